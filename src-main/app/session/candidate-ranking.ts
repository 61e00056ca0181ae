// A candidates' set's ranking (SPEC §21) as `run` prints it and `--json` carries it: each
// candidate's goal as the host left it (its state, the host's verify results, the grader's
// criteria, contradicted claims), the size of its change as the host saw it (its worktree's git
// and, for what git leaves out, the checkpoint log's ignored entries), and its cost from the
// ledger; ordered by core/goals/rank.ts.

import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { goalJson, type GoalJson } from '../../core/goals/goal';
import { diffSize, rankCandidates, type ChangeSize } from '../../core/goals/rank';
import { gitGoalFolder } from './goal-folder';
import type { CandidateSetJson, CandidateState, RankingEntry } from '../contract/agents';
import type { CandidateRecords } from '../threads/candidate-records';
import type { RunRecords } from '../threads/run-records';
import type { ThreadStore } from '../threads/thread-store';
import type { WorktreeService } from '../worktrees/worktree-service';

export { candidateSetJsonSchema, type CandidateSetJson, type RankingEntry } from '../contract/agents';

/** A candidate as the set started it and the host ended it. */
export interface CandidateOutcome {
  threadId: string;
  /** The model it ran with (`provider:model`), or null for Settings'. */
  model: string | null;
  /** The agent it ran as (SPEC §22), or null for Deepdesk's own. */
  agent: string | null;
  worktree: { name: string; path: string; branch: string; baseCommit: string };
  /** The ignored entries (absolute paths) the checkpoint log saw it change (git's diff leaves them out), and when its thread began. */
  ignored?: { paths: readonly string[]; sinceMs: number };
  /** The thread's goal when its run ended (undefined: the run ended before a goal started). */
  goal?: GoalJson;
  /** Why it did not get its goal to a state of its own: it did not start, or its run failed. */
  error?: string;
  /** Its state when its goal does not tell it: `failed` (its run failed: a goal left `paused` by that goes on by nobody), a budget that stopped its drafting call; else its goal's, or `blocked`. */
  state?: CandidateState;
  /** The ledger's sum of its calls; null when a price is unknown. */
  costUsd: number | null;
}

/** How the host words a budget's stop (core/spend/spend-tree.ts). */
const BUDGET_STOP = /^(stopped|paused): .*\b(budget|limit)\b/;

/** Where a set's candidates are read from: the data folder's database, whichever process reads it. */
export interface CandidateSetSources {
  candidates: CandidateRecords;
  threads: ThreadStore;
  runs: RunRecords;
  worktrees: WorktreeService;
  /** The ledger's sum of a thread's calls (undefined: no call; null: a price unknown). */
  costOf(threadId: string): number | null | undefined;
  /** The ignored entries (relative to its folder) a thread's steps changed, by the checkpoint log (CheckpointHistory.ignoredChanges). */
  ignoredChanges(threadId: string): ReadonlyArray<{ path: string }>;
}

/**
 * A set as it stands, ranked: each candidate from what is stored (its goal as the host left it,
 * its worktree's change, its cost), the one way the host ranks an ended set and the window
 * compares one. Undefined: no such set.
 */
export async function rankCandidateSet(sources: CandidateSetSources, setId: string, env: NodeJS.ProcessEnv = process.env): Promise<CandidateSetJson | undefined> {
  const members = sources.candidates.members(setId);
  if (members.length === 0) return undefined;
  const set = sources.candidates.set(setId);
  const outcomes = members.map((m): CandidateOutcome => {
    const thread = sources.threads.get(m.threadId);
    const folder = thread?.folder;
    const record = folder !== undefined ? sources.worktrees.byFolder(folder) : undefined;
    const worktree = record !== undefined ? { name: record.name, path: record.path, branch: record.branch, baseCommit: record.baseCommit } : { name: '', path: '', branch: '', baseCommit: '' };
    const cost = sources.costOf(m.threadId);
    // No row: it made no call.
    const ignored = thread !== undefined ? { paths: sources.ignoredChanges(m.threadId).map((i) => join(thread.folder, i.path)), sinceMs: Date.parse(thread.createdAt) } : undefined;
    const base = { threadId: m.threadId, model: m.model, agent: m.agent, worktree, ...(ignored !== undefined ? { ignored } : {}), costUsd: cost === undefined ? 0 : cost };
    if (m.notStarted !== null) {
      // The set's budget stopped it before its goal began (the drafting call): it is budget-limited too.
      return { ...base, error: `it did not start: ${m.notStarted}`, state: BUDGET_STOP.test(m.notStarted) ? 'budget-limited' : 'failed' };
    }
    const goal = sources.threads.goal(m.threadId);
    const run = sources.runs.get(m.threadId);
    // Its model (or its agent) failed: it failed, with the run's words, whatever its goal was left as.
    const failed = run?.state === 'failed' && (goal === undefined || goal.state === 'paused' || goal.state === 'pursuing');
    if (failed) return { ...base, ...(goal !== undefined ? { goal: goalJson(goal) } : {}), error: run.message ?? goal?.reason ?? 'the run failed', state: BUDGET_STOP.test(run.message ?? '') ? 'budget-limited' : 'failed' };
    if (goal !== undefined) return { ...base, goal: goalJson(goal) };
    return { ...base, error: run?.message ?? (run === undefined || run.endedAt === null ? 'it has not begun its goal yet' : `the run ended ${run.state}`) };
  });
  const ranking = await rankOutcomes(outcomes, env);
  const spentUsd = ranking.every((r) => r.costUsd !== null) ? ranking.reduce((sum, r) => sum + (r.costUsd ?? 0), 0) : null;
  return { type: 'candidates', setId, goal: set?.goal ?? members[0]!.goal, budgetUsd: set?.budgetUsd ?? null, spentUsd, ranking };
}

/** The size of a candidate's change: its worktree now against its base commit, and each ignored entry it changed besides (git's view alone would hide a checker there). */
async function changeOf(worktree: CandidateOutcome['worktree'], ignored: CandidateOutcome['ignored'], env: NodeJS.ProcessEnv = process.env): Promise<ChangeSize> {
  const changed = await gitGoalFolder(worktree.path, env)
    .diff(worktree.baseCommit)
    .catch(() => undefined);
  const size = changed === undefined ? { files: 0, lines: 0, newDependencies: 0 } : diffSize(changed.diff);
  const inGit = new Set(changed?.files.map((f) => join(worktree.path, f)));
  const budget = { bytes: MAX_READ };
  for (const path of ignored?.paths ?? []) {
    if (inGit.has(path)) continue;
    const hidden = ignoredSize(path, ignored!.sinceMs, budget);
    size.files += hidden.files;
    size.lines += hidden.lines;
  }
  return size;
}

/** Entries of an ignored folder looked at, and bytes of a candidate's ignored files read, at most (a dependency folder can be huge). */
const MAX_WALKED = 20_000;
const MAX_READ = 64 * 1024 * 1024;
/** File times come from the kernel's coarse clock: a file changed just after `sinceMs` may be stamped a little before it. */
const CLOCK_SLACK_MS = 1_000;

/** An ignored entry (its earlier text is not kept) by its files' lines now, a folder's files changed since `sinceMs` (ctime: no process sets it back); at least 1 and 1. */
function ignoredSize(path: string, sinceMs: number, budget: { bytes: number }): { files: number; lines: number } {
  let files = 0;
  let lines = 0;
  const pending = [path];
  for (let walked = 0; pending.length > 0 && walked < MAX_WALKED; walked++) {
    const at = pending.pop()!;
    try {
      const stat = lstatSync(at);
      if (stat.isDirectory()) pending.push(...readdirSync(at).map((name) => join(at, name)));
      else if (stat.isFile() && (at === path || stat.ctimeMs >= sinceMs - CLOCK_SLACK_MS)) {
        files++;
        lines += linesNow(at, budget);
      }
    } catch {
      // Gone meanwhile: nothing there to count.
    }
  }
  return { files: Math.max(1, files), lines: Math.max(1, lines) };
}

/** Lines of a file, as far as the read budget goes: read without following a link or blocking on a pipe (0: not a file now). */
function linesNow(path: string, budget: { bytes: number }): number {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const text = Buffer.alloc(Math.max(0, Math.min(fstatSync(fd).size, budget.bytes)));
    const read = readSync(fd, text);
    budget.bytes -= read;
    let lines = read > 0 && text[read - 1] !== 10 ? 1 : 0;
    for (let i = 0; i < read; i++) if (text[i] === 10) lines++;
    return lines;
  } finally {
    closeSync(fd);
  }
}

/** The candidates in rank order, with the evidence each was ranked by. */
export async function rankOutcomes(outcomes: readonly CandidateOutcome[], env: NodeJS.ProcessEnv = process.env): Promise<RankingEntry[]> {
  const facts = await Promise.all(
    outcomes.map(async (o, index) => ({
      index,
      threadId: o.threadId,
      outcome: o,
      state: o.goal?.state ?? 'blocked',
      ...(o.goal?.evidence ? { steps: o.goal.evidence.steps } : {}),
      criteria: o.goal?.criteria ?? [],
      contradictedClaims: o.goal?.contradictedClaims.length ?? 0,
      change: await changeOf(o.worktree, o.ignored, env),
      costUsd: o.costUsd,
    })),
  );
  return rankCandidates(facts).map(({ rank, candidate: c, keys }) => {
    const { goal, worktree } = c.outcome;
    const reason = c.outcome.error ?? goal?.reason;
    return {
      rank,
      candidate: c.index + 1,
      threadId: c.threadId,
      model: c.outcome.model,
      agent: c.outcome.agent,
      worktree: { name: worktree.name, path: worktree.path, branch: worktree.branch },
      state: c.outcome.state ?? c.state,
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
