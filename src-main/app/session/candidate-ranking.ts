// A candidates' set's ranking (SPEC §21) as `run` prints it and `--json` carries it: each
// candidate's goal as the host left it (its state, the host's verify results, the grader's
// criteria, contradicted claims), the size of its change from its worktree's git, and its cost
// from the ledger; ordered by core/goals/rank.ts.

import type { GoalJson, GoalState } from '../../core/goals/goal';
import { diffSize, rankCandidates, type ChangeSize } from '../../core/goals/rank';
import { gitGoalFolder } from './goal-folder';
import type { RankingEntry } from '../contract/agents';

export { candidateSetJsonSchema, rankingEntrySchema, type CandidateSetJson, type RankingEntry } from '../contract/agents';

/** A candidate as the set started it and the host ended it. */
export interface CandidateOutcome {
  threadId: string;
  /** The model it ran with (`provider:model`), or null for Settings'. */
  model: string | null;
  /** The agent it ran as (SPEC §22), or null for Deepdesk's own. */
  agent: string | null;
  worktree: { name: string; path: string; branch: string; baseCommit: string };
  /** The thread's goal when its run ended (undefined: the run ended before a goal started). */
  goal?: GoalJson;
  /** Its run ended without a goal state to tell (a failure before the goal): why. */
  error?: string;
  /** Its state when it has no goal to tell it (a budget that stopped its drafting call); else `blocked`. */
  state?: GoalState;
  /** The ledger's sum of its calls; null when a price is unknown. */
  costUsd: number | null;
}

/** The size of a candidate's change: its worktree now (untracked files included) against its base commit. */
export async function changeOf(worktree: CandidateOutcome['worktree'], env: NodeJS.ProcessEnv = process.env): Promise<ChangeSize> {
  const changed = await gitGoalFolder(worktree.path, env)
    .diff(worktree.baseCommit)
    .catch(() => undefined);
  return changed === undefined ? { files: 0, lines: 0, newDependencies: 0 } : diffSize(changed.diff);
}

/** The candidates in rank order, with the evidence each was ranked by. */
export async function rankOutcomes(outcomes: readonly CandidateOutcome[], env: NodeJS.ProcessEnv = process.env): Promise<RankingEntry[]> {
  const facts = await Promise.all(
    outcomes.map(async (o, index) => ({
      index,
      threadId: o.threadId,
      outcome: o,
      state: o.goal?.state ?? o.state ?? ('blocked' as const),
      ...(o.goal?.evidence ? { steps: o.goal.evidence.steps } : {}),
      criteria: o.goal?.criteria ?? [],
      contradictedClaims: o.goal?.contradictedClaims.length ?? 0,
      change: await changeOf(o.worktree, env),
      costUsd: o.costUsd,
    })),
  );
  return rankCandidates(facts).map(({ rank, candidate: c, keys }) => {
    const { goal, worktree } = c.outcome;
    const reason = goal?.reason ?? c.outcome.error;
    return {
      rank,
      threadId: c.threadId,
      model: c.outcome.model,
      agent: c.outcome.agent,
      worktree: { name: worktree.name, path: worktree.path, branch: worktree.branch },
      state: c.state,
      ...(reason !== undefined ? { reason } : {}),
      verifyPassed: keys.verifyPassed,
      verify: (goal?.evidence?.steps ?? []).map((s) => ({ command: s.command, exitCode: s.exitCode, passed: s.passed, outputTail: s.outputTail })),
      criteria: c.criteria.map((x) => ({ id: x.id, text: x.text, ...(x.verdict !== undefined ? { verdict: x.verdict } : {}), ...(x.reason !== undefined ? { reason: x.reason } : {}) })),
      contradictedClaims: goal?.contradictedClaims ?? [],
      change: c.change,
      costUsd: c.costUsd,
    };
  });
}
