// A goal (SPEC §21) in the window: `/goal`'s draft as an editable card the person accepts
// before anything starts, and the goal's state in the thread header with its evidence one
// click away.

import { useState } from 'react';
import type { GoalDraft, GoalJsonDto } from '../../../src-main/app/contract';
import { useBusy } from '../state/use-busy';
import { Icon } from './Icon';
import { Modal } from './Modal';

interface GoalDraftCardProps {
  draft: GoalDraft;
  onAccept(draft: GoalDraft): Promise<boolean>;
  onDismiss(): void;
}

/** The drafted criteria and verify steps, editable: one criterion a line, one step a row. */
export function GoalDraftCard({ draft, onAccept, onDismiss }: GoalDraftCardProps): React.JSX.Element {
  const [criteria, setCriteria] = useState(draft.criteria.join('\n'));
  const [steps, setSteps] = useState(draft.verify.map((s) => ({ command: s.command, code: String(s.expectedExitCode) })));
  const [busy, run] = useBusy();
  const edited = (): GoalDraft => ({
    objective: draft.objective,
    criteria: criteria
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== ''),
    verify: steps
      .filter((s) => s.command.trim() !== '')
      .map((s) => ({ command: s.command.trim(), expectedExitCode: Number.isInteger(Number(s.code)) ? Math.max(0, Math.min(255, Number(s.code))) : 0 })),
  });
  const valid = edited().criteria.length > 0;
  return (
    <section className="goal-card" aria-label="Goal draft">
      <h2 className="goal-card-title">Goal: {draft.objective}</h2>
      {/* Nothing runs until the person answers: said as an approval says it, not as work going on. */}
      <p className="goal-waiting" role="status">
        <Icon name="alert" size={14} /> Waiting for you: edit the criteria and the checks the host will run, then Start goal. Nothing runs until then.
      </p>
      <label className="goal-field">
        Criteria (one a line)
        <textarea aria-label="Criteria" value={criteria} rows={Math.min(8, Math.max(2, draft.criteria.length + 1))} onChange={(e) => setCriteria(e.target.value)} />
      </label>
      <fieldset className="goal-steps">
        <legend>Verify steps the host runs</legend>
        {steps.map((step, i) => (
          <div className="goal-step" key={i}>
            <input
              aria-label={`Verify command ${i + 1}`}
              className="goal-command mono"
              value={step.command}
              onChange={(e) => setSteps(steps.map((s, j) => (j === i ? { ...s, command: e.target.value } : s)))}
            />
            <input
              aria-label={`Expected exit code ${i + 1}`}
              className="goal-code mono"
              inputMode="numeric"
              value={step.code}
              onChange={(e) => setSteps(steps.map((s, j) => (j === i ? { ...s, code: e.target.value } : s)))}
            />
            <button type="button" className="btn" onClick={() => setSteps(steps.filter((_, j) => j !== i))}>
              Remove
            </button>
          </div>
        ))}
        <button type="button" className="btn" onClick={() => setSteps([...steps, { command: '', code: '0' }])}>
          Add verify step
        </button>
      </fieldset>
      <div className="goal-actions">
        <button
          type="button"
          className="btn primary"
          disabled={!valid || busy}
          onClick={() => void run(() => onAccept(edited()))}
        >
          Start goal
        </button>
        <button type="button" className="btn" onClick={onDismiss}>
          Cancel
        </button>
      </div>
    </section>
  );
}

/** The goal's state in the thread header; its evidence opens in a dialog. */
export function GoalBadge({ goal }: { goal: GoalJsonDto }): React.JSX.Element {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className={`badge goal-badge goal-${goal.state}`} aria-label={`Goal: ${goal.state}`} title={goal.reason ?? goal.objective} onClick={() => setOpen(true)}>
        Goal: {goal.state}
      </button>
      {open ? (
        <Modal label="Goal evidence" onEscape={() => setOpen(false)} title={`Goal: ${goal.state}`}>
          <GoalEvidence goal={goal} />
          <button type="button" className="btn" onClick={() => setOpen(false)}>
            Close
          </button>
        </Modal>
      ) : null}
    </>
  );
}

function GoalEvidence({ goal }: { goal: GoalJsonDto }): React.JSX.Element {
  const evidence = goal.evidence;
  return (
    <div className="goal-evidence">
      <p>{goal.objective}</p>
      {goal.reason !== undefined ? <p aria-label="Why">{goal.reason}</p> : null}
      <h3>Criteria</h3>
      <ul>
        {goal.criteria.map((c) => (
          <li key={c.id}>
            {c.id}: {c.text} — <strong>{c.verdict ?? 'not judged yet'}</strong>
            {c.reason ? ` (${c.reason})` : ''}
          </li>
        ))}
      </ul>
      <h3>Verify steps (the host's runs)</h3>
      {evidence === null ? (
        <p>Not checked yet.</p>
      ) : (
        <ul>
          {evidence.steps.map((s, i) => (
            <li key={i}>
              <code>{s.command}</code> exited {s.exitCode ?? 'without a code'} (expected {s.expectedExitCode}) — {s.passed ? 'passed' : 'failed'}
              {s.refused !== undefined ? ` — ${s.refused}` : ''}
              <pre className="mono">{s.outputTail}</pre>
            </li>
          ))}
        </ul>
      )}
      {evidence !== null ? <p>Files touched: {evidence.filesTouched.length > 0 ? evidence.filesTouched.join(', ') : 'none'}</p> : null}
      {goal.contradictedClaims.length > 0 ? (
        <>
          <h3>Contradicted claims</h3>
          <ul>
            {goal.contradictedClaims.map((c, i) => (
              <li key={i}>
                “{c.claim}” while {c.failingSteps.map((s) => `${s.command} exited ${s.exitCode ?? 'without a code'}`).join(', ')}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}
