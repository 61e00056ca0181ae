// `deepdesk run --candidates N [--model M]… --goal TEXT [--verify CMD]… [--max-cost USD] [--json]`
// (SPEC §21): N threads on the same goal, each on its own git worktree of the folder, run at once
// in the agent host, each goal checked by the host; one budget for the set (the host's, held by
// every model call of every candidate); when all have ended, the ranking by evidence as a table
// (or `--json`). The person's folder is untouched until they apply one (`worktrees apply`).

import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { databasePath } from '../app/base/data-dir';
import type { HeadlessRunRequest } from '../app/session/headless-run';
import { rankOutcomes, type CandidateOutcome, type CandidateSetJson, type RankingEntry } from '../app/session/candidate-ranking';
import { readSavedSettings } from '../app/settings/settings-service';
import { pricesNow, sandboxPricesNow } from '../app/usage/usage-report';
import { WorktreeService, type CreatedWorktree } from '../app/worktrees/worktree-service';
import { ThreadStore } from '../app/threads/thread-store';
import { formatUsd } from '../core/agent/budget';
import { openDatabase } from '../core/backends/store/store';
import { UsageLedger } from '../core/telemetry/usage-ledger';
import { terminalSafe, terminalSafeJson } from '../core/text/terminal-safe';
import { connectToHost, hostRequest } from './host-connection';
import { followRun, type TerminalIo } from './run-client';
import { table } from './table';
import { UsageError } from './usage';

/** How the host words a budget's stop (core/agent/budget.ts). */
const BUDGET_STOP = /^Stopped before (the next )?model call\b.*\bbudget\b/;

/** Candidates a set may have at most. */
export const MAX_CANDIDATES = 10;

export interface CandidateSetOptions {
  count: number;
  /** `--model` as given, in order (empty: Settings' model, or DEEPDESK_MODEL). */
  models: readonly string[];
  /** The local folder the worktrees are made of. */
  folder: string;
  dataDir: string;
  json: boolean;
  maxCostUsd?: number;
  approve: 'ask' | 'auto' | 'deny';
  /**
   * `--sandbox PROVIDER`: each candidate runs in its own provider sandbox, made by the host from
   * the same folder at the same commit (the host makes each one's worktree; no provider's fork
   * is used yet), started one after another.
   */
  sandbox?: boolean;
  /** The run request each candidate is started with, but for its folder and model. */
  request: (folder: string, model: string | undefined) => Omit<HeadlessRunRequest, 'sharedBudget'>;
  io: TerminalIo;
}

/** Every value of `--model` in argv, in order (`--model M` and `--model=M`), up to a `--`. */
export function modelFlags(argv: readonly string[]): string[] {
  const models: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg === '--model' && argv[i + 1] !== undefined) models.push(argv[++i]!);
    else if (arg.startsWith('--model=')) models.push(arg.slice('--model='.length));
  }
  return models;
}

/** The model of candidate `i`: the given ones in turn. */
export function candidateModel(models: readonly string[], i: number): string | undefined {
  return models.length === 0 ? undefined : models[i % models.length];
}

export async function runCandidates(options: CandidateSetOptions): Promise<number> {
  const { io, count } = options;
  if (count < 1 || count > MAX_CANDIDATES) throw new UsageError(`--candidates must be 1 to ${MAX_CANDIDATES} (got ${count})`);
  const setId = randomUUID();
  const goalText = options.request(options.folder, undefined).goal ?? '';
  // The worktrees first, one after another (git locks its admin files): nothing starts unless all are made.
  // A sandbox candidate's worktree is made by the host with its sandbox, and found by its thread at the end.
  const { worktreeForRun } = await import('./worktrees-command');
  const worktrees: Array<CreatedWorktree | undefined> = [];
  for (let i = 0; i < count; i++) {
    worktrees.push(options.sandbox === true ? undefined : await worktreeForRun({ dataDir: options.dataDir, folder: options.folder, carry: false, nameHint: `${goalText} ${i + 1}`, mayAsk: false, io }));
  }
  const host = await connectToHost(options.dataDir, 'run', io.env);
  const threadIds = worktrees.map(() => randomUUID());
  const models = worktrees.map((_, i) => candidateModel(options.models, i));
  const followers = threadIds.map((threadId, i) => followRun(host, threadId, labelled(io, i), { json: false, interactive: false }));
  let stopping = false;
  const onSignal = () => {
    if (stopping) process.exit(130);
    stopping = true;
    for (const threadId of threadIds) void host.request('runs.stop', { threadId }).catch(() => undefined);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const start = (made: CreatedWorktree | undefined, i: number) =>
      hostRequest(host, 'runs.start', {
        request: {
          ...options.request(made?.threadFolder ?? options.folder, models[i]),
          threadId: threadIds[i],
          candidateSet: { id: setId, index: i, count, ...(options.maxCostUsd !== undefined ? { maxCostUsd: options.maxCostUsd } : {}) },
        },
        approve: options.approve,
        interactive: false,
        detach: false,
      });
    let started: PromiseSettledResult<unknown>[];
    if (options.sandbox === true) {
      // One after another: each start makes its worktree (git's locks) and its sandbox, then runs on.
      started = [];
      for (const [i, made] of worktrees.entries()) started.push(...(await Promise.allSettled([start(made, i)])));
    } else {
      started = await Promise.allSettled(worktrees.map(start));
    }
    const ended = await Promise.all(followers.map((f, i) => (started[i]!.status === 'rejected' ? (f.detach(), undefined) : f.done)));
    const found = options.sandbox === true ? sandboxWorktrees(options.dataDir, threadIds, io.env) : new Map<string, CreatedWorktree>();
    const outcomes: CandidateOutcome[] = await Promise.all(
      worktrees.map(async (own, i): Promise<CandidateOutcome> => {
        const made = own ?? found.get(threadIds[i]!);
        const worktree = made !== undefined ? { name: made.name, path: made.path, branch: made.branch, baseCommit: made.baseCommit } : { name: '', path: '', branch: '', baseCommit: '' };
        const base = { threadId: threadIds[i]!, model: models[i] ?? null, worktree, costUsd: null };
        const begun = started[i]!;
        if (begun.status === 'rejected') {
          const why = begun.reason instanceof Error ? begun.reason.message : String(begun.reason);
          // The set's budget stopped it before its goal began (the drafting call): it is budget-limited too.
          return { ...base, error: `it did not start: ${why}`, ...(BUDGET_STOP.test(why) ? { state: 'budget-limited' as const } : {}) };
        }
        const followed = ended[i]!;
        if (followed.kind === 'host-gone') return { ...base, error: `the agent host stopped (${followed.reason})` };
        if (followed.kind === 'detached') return base;
        const { end } = followed;
        return { ...base, ...(end.goal !== undefined ? { goal: end.goal } : {}), ...(end.goal === undefined ? { error: end.error ?? `the run ended ${end.reason}` } : {}) };
      }),
    );
    const costs = threadCosts(options.dataDir, threadIds);
    for (const o of outcomes) o.costUsd = costs.get(o.threadId) ?? null;
    const ranking = await rankOutcomes(outcomes, io.env);
    const known = ranking.every((r) => r.costUsd !== null);
    const spentUsd = known ? ranking.reduce((sum, r) => sum + (r.costUsd ?? 0), 0) : null;
    const set: CandidateSetJson = { type: 'candidates', setId, goal: goalText, budgetUsd: options.maxCostUsd ?? null, spentUsd, ranking };
    if (options.json) io.stdout.write(`${terminalSafeJson(set)}\n`);
    else io.stdout.write(rankingTable(ranking, spentUsd, options.maxCostUsd));
    const achieved = ranking.filter((r) => r.state === 'achieved').length;
    const first = ranking[0];
    io.stderr.write(
      `deepdesk run: ${achieved} of ${count} candidates achieved the goal${first !== undefined && first.verifyPassed ? `; first: ${first.threadId} (deepdesk worktrees apply ${first.threadId})` : ''}\n`,
    );
    return achieved > 0 ? 0 : 1;
  } finally {
    for (const f of followers) f.detach();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await host.close();
  }
}

/** The worktree each sandbox candidate's thread works in (the host made it with the sandbox). */
function sandboxWorktrees(dataDir: string, threadIds: readonly string[], env: NodeJS.ProcessEnv): Map<string, CreatedWorktree> {
  const db = openDatabase(databasePath(dataDir));
  const service = new WorktreeService({ dataDir, env });
  try {
    const threads = new ThreadStore(db);
    const out = new Map<string, CreatedWorktree>();
    for (const id of threadIds) {
      const folder = threads.get(id)?.folder;
      const record = folder !== undefined ? service.byFolder(folder) : undefined;
      if (record !== undefined) out.set(id, { name: record.name, path: record.path, threadFolder: record.threadFolder, branch: record.branch, baseCommit: record.baseCommit, carried: 0 });
    }
    return out;
  } finally {
    service.close();
    db.close();
  }
}

/** What each thread's calls cost, as the ledger prices them now. */
function threadCosts(dataDir: string, threadIds: readonly string[]): Map<string, number | null> {
  const db = openDatabase(databasePath(dataDir));
  try {
    const { prices, sandboxes } = readSavedSettings(dataDir);
    const ledger = new UsageLedger(
      db,
      pricesNow(() => prices),
      sandboxPricesNow(() => sandboxes),
    );
    return new Map(
      threadIds.map((id) => {
        const cost = ledger.threadCost(id);
        // No row: it made no call.
        return [id, cost === undefined ? 0 : cost];
      }),
    );
  } finally {
    db.close();
  }
}

/** `RANK  THREAD  MODEL  STATE  VERIFY  CRITERIA  CHANGE  COST  WORKTREE`, then the set's spend. */
export function rankingTable(ranking: readonly RankingEntry[], spentUsd: number | null, budgetUsd: number | undefined): string {
  const rows = [
    ['RANK', 'THREAD', 'MODEL', 'STATE', 'VERIFY', 'CRITERIA', 'CHANGE', 'COST', 'WORKTREE'],
    ...ranking.map((r) => [
      String(r.rank),
      r.threadId,
      r.model ?? 'settings',
      r.contradictedClaims.length > 0 ? `${r.state} (claim contradicted)` : r.state,
      r.verify.length === 0 ? 'not run' : `${r.verify.filter((s) => s.passed).length}/${r.verify.length} passed`,
      r.criteria.length === 0 ? '-' : `${r.criteria.filter((c) => c.verdict === 'satisfied').length}/${r.criteria.length}`,
      `${r.change.files} files, ${r.change.lines} lines${r.change.newDependencies > 0 ? `, ${r.change.newDependencies} new deps` : ''}`,
      r.costUsd === null ? 'unknown' : formatUsd(r.costUsd),
      r.worktree.name,
    ]),
  ];
  const total = `set: ${spentUsd === null ? 'cost unknown (a price is missing)' : formatUsd(spentUsd)}${budgetUsd !== undefined ? ` of a budget of ${formatUsd(budgetUsd)}` : ''}\n`;
  return table(rows) + total;
}

/** A candidate's terminal: its lines on stderr marked with its number, nothing on stdout. */
function labelled(io: TerminalIo, i: number): TerminalIo {
  const prefix = `[candidate ${i + 1}] `;
  let partial = '';
  const stderr = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      partial += chunk.toString();
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') io.stderr.write(`${prefix}${terminalSafe(line.replace(/^deepdesk: /, ''), { singleLine: true })}\n`);
      done();
    },
  });
  const stdout = new Writable({ write: (_c, _e, done) => done() });
  return { stdin: io.stdin, stdout, stderr, env: io.env };
}
