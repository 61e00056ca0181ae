// The comparison of a set of candidates (SPEC §21): one column per candidate in the host's rank
// order — its state, its verify results with their output, the grader's criteria, the size of
// its change, its cost, its diff one click away — with `Apply` (§16's Apply to folder) and
// `Discard` (its worktree removed).

import { useCallback, useEffect, useState } from 'react';
import type { RankingEntry } from '../../../src-main/app/contract/agents';
import { useExternalAgents } from './AgentsSettings';
import { formatCost } from '../lib/format';
import { useApi } from '../state/use-api';
import { Spinner } from './Icon';
import { CloseActions, Modal } from './Modal';

interface Compared {
  goal: string;
  ranking: RankingEntry[];
  applied?: string[] | undefined;
}

/** A candidate's number in its set (as the Agents view and `run` number it); a ranking kept before numbers were: its rank. */
const numberOf = (entry: RankingEntry): number => entry.candidate ?? entry.rank;

export function CandidatesDialog({ setId, onClose }: { setId: string; onClose(): void }): React.JSX.Element {
  const api = useApi();
  const [externalAgents] = useExternalAgents();
  const agentLabels = new Map((externalAgents ?? []).map((a) => [a.name, a.label]));
  const [compared, setCompared] = useState<Compared | null>(null);
  const [diff, setDiff] = useState<{ threadId: string; text: string } | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const load = useCallback(async () => {
    const result = await api.safe('agentsView.compare', { setId });
    if (result !== undefined) setCompared(result);
  }, [api, setId]);
  useEffect(() => {
    void load();
  }, [load]);

  const showDiff = async (threadId: string) => {
    const result = await api.safe('agentsView.candidateDiff', { threadId });
    if (result !== undefined) setDiff({ threadId, text: result.diff + (result.truncated ? '\n…' : '') });
  };
  const apply = async (entry: RankingEntry) => {
    const result = await api.safe('agentsView.applyCandidate', { threadId: entry.threadId });
    if (result === undefined) return;
    setSaid(
      result.conflicts.length > 0
        ? `Nothing was applied: ${result.conflicts.length} conflict${result.conflicts.length === 1 ? '' : 's'} (${result.conflicts.join(', ')}).`
        : `Applied candidate ${numberOf(entry)} to your folder: ${result.applied.length} file${result.applied.length === 1 ? '' : 's'}.`,
    );
    if (result.conflicts.length === 0) await load();
  };
  const discard = async (entry: RankingEntry) => {
    const result = await api.safe('agentsView.discardCandidate', { threadId: entry.threadId });
    if (result?.removed === true) {
      setSaid(`Discarded candidate ${numberOf(entry)}'s worktree ${entry.worktree.name}.`);
      await load();
    }
  };

  const title = compared === null ? 'Candidates' : `Candidates: ${compared.goal}`;
  const applied = new Set(compared?.applied ?? []);
  // The one to apply, if any: the first whose checks all passed and whose goal was granted (never a failed one).
  const best = compared?.ranking.find((e) => e.verifyPassed && e.state === 'achieved')?.threadId;
  return (
    <Modal label="Candidates" onEscape={onClose} className="candidates-dialog" title={title}>
      {compared === null ? (
        <Spinner />
      ) : (
        <div className="candidate-columns">
          {compared.ranking.map((entry) => (
            <section key={entry.threadId} className="candidate-column" aria-label={`Candidate ${numberOf(entry)}`}>
              <h3>Candidate {numberOf(entry)}</h3>
              <p className="candidate-rank">
                Ranked {entry.rank} · <strong className={entry.state === 'failed' ? 'error-text' : undefined}>{entry.state}</strong>
              </p>
              {entry.state !== 'achieved' && entry.reason !== undefined ? <p className={entry.state === 'failed' ? 'error-text candidate-reason' : 'muted candidate-reason'}>{entry.reason}</p> : null}
              {entry.contradictedClaims.length > 0 ? <p className="error-text">Claimed success while a check failed ({entry.contradictedClaims.length}×)</p> : null}
              <p className="muted mono candidate-model">{entry.agent !== null ? (agentLabels.get(entry.agent) ?? entry.agent) : (entry.model ?? "Settings' model")}</p>
              <p className="muted mono">{entry.worktree.name || 'worktree removed'}</p>
              <h4>Verify</h4>
              <ul className="candidate-steps">
                {entry.verify.length === 0 ? <li className="muted">Not run</li> : null}
                {entry.verify.map((step, i) => (
                  <li key={i}>
                    <details>
                      <summary>
                        <span className="mono">{step.command}</span> — {step.passed ? 'passed' : `failed (exit ${step.exitCode ?? 'none'})`}
                      </summary>
                      <pre className="candidate-output">{step.outputTail}</pre>
                    </details>
                  </li>
                ))}
              </ul>
              <h4>Criteria</h4>
              <ul className="candidate-criteria">
                {entry.criteria.map((c) => (
                  <li key={c.id}>
                    {c.text}: {c.verdict ?? 'not judged'}
                  </li>
                ))}
              </ul>
              <p>
                Change: {entry.change.files} files, {entry.change.lines} lines
                {entry.change.newDependencies > 0 ? `, ${entry.change.newDependencies} new dependencies` : ''}
              </p>
              <p>Cost: {formatCost(entry.costUsd ?? undefined) ?? 'unknown'}</p>
              <div className="dialog-actions">
                <button type="button" className="btn" disabled={entry.worktree.name === ''} onClick={() => void showDiff(entry.threadId)}>
                  Show diff
                </button>
                {applied.has(entry.threadId) ? (
                  <span className="badge badge-success">Applied to your folder</span>
                ) : (
                  <button type="button" className={entry.threadId === best ? 'btn btn-primary' : 'btn'} disabled={entry.worktree.name === ''} onClick={() => void apply(entry)}>
                    Apply
                  </button>
                )}
                <button type="button" className="btn" disabled={entry.worktree.name === ''} onClick={() => void discard(entry)}>
                  Discard
                </button>
              </div>
              {diff?.threadId === entry.threadId ? (
                <pre className="candidate-diff" aria-label={`Diff of candidate ${numberOf(entry)}`} tabIndex={0}>
                  {diff.text}
                </pre>
              ) : null}
            </section>
          ))}
        </div>
      )}
      {said !== null ? (
        <p role="status" className="candidate-said">
          {said}
        </p>
      ) : null}
      <CloseActions onClose={onClose} />
    </Modal>
  );
}
