// *Run N candidates…* (SPEC §21): N goal threads of the open folder, each on its own worktree,
// run by the agent host with one budget for the set. The goal (prefilled from the message box,
// or from a thread's goal with its verify commands), how many (2–10), per candidate its agent
// (Deepdesk's own or an installed one over ACP, §22), its model (Deepdesk's: Settings' by
// default) and its own instruction added after the goal, the verify commands, an optional
// budget, and whether their approvals are granted without asking (off: they wait for
// the person as any thread's do). The set then shows in the Agents view as one item.

import { useId, useState } from 'react';
import { useApi } from '../state/use-api';
import { useBusy } from '../state/use-busy';
import { useSettings } from '../state/settings-context';
import { Modal, submitted } from './Modal';
import { IconButton } from './Icon';
import { ErrorAlert } from './ErrorText';
import { Options } from './TextField';
import type { GoalJsonDto, SandboxPlaceDto } from '../../../src-main/app/contract';
import { dollarCap } from '../../../src-main/app/contract/budget-caps';
import { useExternalAgents } from './AgentsSettings';

const MIN = 2;
const MAX = 10;

export function RunCandidatesDialog({
  goal: initialGoal,
  verify: initialVerify = [],
  sandbox,
  onClose,
  onStarted,
}: {
  goal: string;
  /** The verify commands to start with (a thread's goal's). */
  verify?: readonly string[];
  /** The provider of the thread it is opened from when that thread runs in a sandbox: its candidates may too. */
  sandbox?: Pick<SandboxPlaceDto, 'provider' | 'label'> | undefined;
  onClose(): void;
  onStarted?(setId: string): void;
}): React.JSX.Element {
  const api = useApi();
  const { settings } = useSettings();
  const id = useId();
  const [goal, setGoal] = useState(initialGoal);
  const [count, setCount] = useState(3);
  const [models, setModels] = useState<string[]>([]);
  /** Each candidate's agent: '' for Deepdesk's own, else an installed agent's name. */
  const [agents, setAgents] = useState<string[]>([]);
  const [prompts, setPrompts] = useState<string[]>([]);
  const [externalAgents] = useExternalAgents();
  const installed = (externalAgents ?? []).filter((a) => a.installed);
  const [verify, setVerify] = useState(initialVerify.join('\n'));
  const [budget, setBudget] = useState('');
  /** Empty, the set's budget is Settings › Goals' (the host applies it). */
  const settingsBudget = settings?.goals?.candidatesBudgetUsd;
  const [autoApprove, setAutoApprove] = useState(false);
  const [inSandboxes, setInSandboxes] = useState(sandbox !== undefined);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, starting] = useBusy();
  const settingsModel = settings?.model ?? '';

  const start = async () => {
    const maxCost = budget.trim() === '' ? undefined : Number(budget);
    if (goal.trim() === '') return setProblem('Write the goal the candidates pursue.');
    if (maxCost !== undefined && !(Number.isFinite(maxCost) && maxCost > 0)) return setProblem(`The budget is an amount in US dollars above 0, or empty for ${settingsBudget !== undefined ? "Settings' budget" : 'none'}.`);
    setProblem(null);
    const result = await starting(() =>
      api.safe('agentsView.runCandidates', {
        goal: goal.trim(),
        count,
        // A candidate with an agent calls that agent's own model: no model of Deepdesk's is sent for it.
        models: Array.from({ length: count }, (_, i) => (!agents[i] && models[i]?.trim() ? models[i]!.trim() : null)),
        agents: Array.from({ length: count }, (_, i) => (agents[i] ? agents[i]! : null)),
        prompts: Array.from({ length: count }, (_, i) => (prompts[i]?.trim() ? prompts[i]!.trim() : null)),
        verify: verify
          .split('\n')
          .map((line) => line.trim())
          .filter((line) => line !== ''),
        ...(maxCost !== undefined ? { budget: dollarCap(maxCost)! } : {}),
        autoApprove,
        ...(sandbox !== undefined && inSandboxes ? { sandbox: { provider: sandbox.provider } } : {}),
      }),
    );
    if (result !== undefined) {
      onStarted?.(result.setId);
      onClose();
    }
  };

  return (
    <Modal label="Run candidates" onEscape={onClose} className="run-candidates-dialog" title={`Run ${count} candidates`}>
      <form className="run-candidates-form" onSubmit={submitted(start)}>
        <label htmlFor={`${id}-goal`}>Goal</label>
        <textarea id={`${id}-goal`} data-autofocus rows={3} value={goal} onChange={(e) => setGoal(e.target.value)} />
        <label htmlFor={`${id}-count`}>Number of candidates</label>
        <input id={`${id}-count`} type="number" min={MIN} max={MAX} value={count} onChange={(e) => setCount(Math.min(MAX, Math.max(MIN, Math.round(Number(e.target.value) || MIN))))} />
        <fieldset className="run-candidates-models">
          <legend>Candidates</legend>
          {Array.from({ length: count }, (_, i) => (
            <div key={i} className="run-candidates-model">
              <label htmlFor={`${id}-agent-${i}`}>Agent of candidate {i + 1}</label>
              <select id={`${id}-agent-${i}`} value={agents[i] ?? ''} onChange={(e) => setAgents((now) => Object.assign([...now], { [i]: e.target.value }))}>
                <option value="">Deepdesk</option>
                <Options options={installed.map((a) => ({ value: a.name, label: a.label }))} />
              </select>
              <label htmlFor={`${id}-model-${i}`}>Model of candidate {i + 1}</label>
              <input
                id={`${id}-model-${i}`}
                type="text"
                className="mono"
                disabled={Boolean(agents[i])}
                placeholder={agents[i] ? 'its own model' : settingsModel !== '' ? settingsModel : "Settings' model"}
                value={agents[i] ? '' : (models[i] ?? '')}
                onChange={(e) => setModels((now) => Object.assign([...now], { [i]: e.target.value }))}
              />
              <label htmlFor={`${id}-prompt-${i}`}>Instruction for candidate {i + 1}</label>
              <input
                id={`${id}-prompt-${i}`}
                type="text"
                placeholder="optional, added after the goal"
                value={prompts[i] ?? ''}
                onChange={(e) => setPrompts((now) => Object.assign([...now], { [i]: e.target.value }))}
              />
            </div>
          ))}
        </fieldset>
        <label htmlFor={`${id}-verify`}>Verify commands (one per line)</label>
        <textarea id={`${id}-verify`} className="mono" rows={2} value={verify} onChange={(e) => setVerify(e.target.value)} placeholder="npm test" />
        <label htmlFor={`${id}-budget`}>Budget for the set (USD, optional)</label>
        <input id={`${id}-budget`} type="text" inputMode="decimal" value={budget} placeholder={settingsBudget !== undefined ? `Settings › Goals: ${settingsBudget}` : 'none'} onChange={(e) => setBudget(e.target.value)} />
        <label className="checkbox-row">
          <input type="checkbox" checked={autoApprove} onChange={(e) => setAutoApprove(e.target.checked)} />
          Approve the candidates' actions without asking
        </label>
        {sandbox !== undefined ? (
          <label className="checkbox-row">
            <input type="checkbox" checked={inSandboxes} onChange={(e) => setInSandboxes(e.target.checked)} />
            Each candidate in its own {sandbox.label} sandbox
          </label>
        ) : null}
        <p className="muted">
          {sandbox !== undefined && inSandboxes
            ? `Each candidate works in its own ${sandbox.label} sandbox (forked from one sent your folder where ${sandbox.label} can fork), its changes brought back to its own worktree;`
            : 'Each candidate works on its own worktree;'}{' '}
          nothing reaches your folder until you apply one from the comparison in the Agents view.
        </p>
        <ErrorAlert error={problem} />
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            Start
          </button>
        </div>
      </form>
    </Modal>
  );
}

/** *Run N candidates…* from a thread (its header): the thread's goal and verify commands as the set's. */
export function RunCandidatesOnGoal({ goal, sandbox }: { goal: GoalJsonDto; sandbox?: Pick<SandboxPlaceDto, 'provider' | 'label'> | undefined }): React.JSX.Element {
  const [open, setOpen] = useState(false);
  return (
    <>
      <IconButton icon="branch" aria-label="Run N candidates on this goal…" title="Run N candidates… on this thread's goal — several attempts on worktrees, ranked by evidence" onClick={() => setOpen(true)} />
      {open ? <RunCandidatesDialog goal={goal.objective} verify={goal.verify.map((step) => step.command)} sandbox={sandbox} onClose={() => setOpen(false)} /> : null}
    </>
  );
}
