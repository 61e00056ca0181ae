// `deepdesk run --candidates N [--model M]… [--agent A]… [--prompt P]… --goal TEXT [--verify CMD]… [--max-cost USD] [--json]`
// (SPEC §21): N threads on the same goal, each on its own git worktree of the folder, run at once
// in the agent host, each goal checked by the host; one budget for the set (the host's, held by
// every model call of every candidate); when all have ended, the ranking by evidence as a table
// (or `--json`). The person's folder is untouched until they apply one (`worktrees apply`).
// A set over 15 asks first, and its end says how many candidates finished, failed, were paused
// or never started (SPEC §26).

import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { HeadlessRunRequest } from '../app/session/headless-run';
import { dollarsOf } from '../app/contract/budget-caps';
import type { BudgetNode } from '../app/contract/budgets';
import { candidateSetJsonSchema, type RankingEntry } from '../app/session/candidate-ranking';
import { candidateChoices, MAX_CANDIDATES } from '../app/session/candidate-sets';
import { formatUsd } from '../core/spend/spend-tree';
import { countParts, LARGE_FAN_OUT, type FanOutPart } from '../core/agent/fan-out';
import { terminalSafe, terminalSafeJson } from '../core/text/terminal-safe';
import { connectToHost, hostRequest } from './host-connection';
import { followRun, interactiveTerminal, type TerminalIo } from './run-client';
import { askLine } from './terminal-output';
import { table } from './table';
import { UsageError } from './usage';

export interface CandidateSetOptions {
  count: number;
  /** `--model` as given, in order (empty: Settings' model, or DEEPDESK_MODEL). */
  models: readonly string[];
  /** `--agent` as given, in order (SPEC §22): the agents go to the candidates first, then the models (candidateChoices). */
  agents?: readonly string[];
  /** `--prompt` as given, in order: each candidate's own instruction, in turn. */
  prompts?: readonly string[];
  /** The local folder the worktrees are made of. */
  folder: string;
  dataDir: string;
  json: boolean;
  /** The set's one budget (`--max-cost`). */
  budget?: BudgetNode;
  approve: 'ask' | 'auto' | 'deny';
  /** The run request each candidate is started with, but for its folder and model. */
  request: (folder: string, model: string | undefined) => Omit<HeadlessRunRequest, 'budgetSet'>;
  io: TerminalIo;
}

/** Every value of `--model` in argv, in order (`--model M` and `--model=M`), up to a `--`. */
export function modelFlags(argv: readonly string[]): string[] {
  return repeatedFlag(argv, 'model');
}

/** Every value of `--NAME` in argv, in order (`--NAME V` and `--NAME=V`), up to a `--`. */
export function repeatedFlag(argv: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg === `--${name}` && argv[i + 1] !== undefined) values.push(argv[++i]!);
    else if (arg.startsWith(`--${name}=`)) values.push(arg.slice(`--${name}=`.length));
  }
  return values;
}

export async function runCandidates(options: CandidateSetOptions): Promise<number> {
  const { io, count } = options;
  if (count < 1 || count > MAX_CANDIDATES) throw new UsageError(`--candidates must be 1 to ${MAX_CANDIDATES} (got ${count})`);
  const { folder: _folder, model: _model, budget: _own, threadId: _thread, externalAgent: _agent, instruction: _instruction, ...request } = options.request(options.folder, undefined);
  const choices = candidateChoices(options.agents ?? [], options.models);
  const refused = await largeSetAnswer(options, request.mode === 'auto');
  if (refused !== undefined) {
    io.stderr.write(`deepdesk run: ${refused}\n`);
    return 1;
  }
  const host = await connectToHost(options.dataDir, 'run', io.env);
  // The host makes the worktrees, starts the runs with the set's budget and ranks them (app/session/candidate-sets.ts);
  // this terminal follows each thread from its first event and prints the ranking.
  const threadIds = Array.from({ length: count }, () => randomUUID());
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
    let started: { setId: string; worktrees: Array<{ name: string; path: string; branch: string } | null>; notStarted: Array<string | null> };
    try {
      started = (await hostRequest(host, 'candidates.start', {
        folder: options.folder,
        count,
        models: choices.models,
        ...(choices.agents.length > 0 ? { agents: choices.agents } : {}),
        ...(options.prompts !== undefined && options.prompts.length > 0 ? { prompts: options.prompts } : {}),
        request,
        ...(options.budget !== undefined ? { budget: options.budget } : {}),
        approve: options.approve,
        threadIds,
        follow: true,
      })) as typeof started;
    } catch (err) {
      for (const f of followers) f.detach();
      throw err;
    }
    for (const [i, w] of started.worktrees.entries()) if (w !== null) io.stderr.write(`deepdesk: candidate ${i + 1}: worktree ${w.name} at ${terminalSafe(w.path, { singleLine: true })} (branch ${terminalSafe(w.branch, { singleLine: true })})\n`);
    // A candidate that did not start has nothing to follow (the ranking says why).
    await Promise.all(followers.map((f, i) => (started.notStarted[i] !== null ? f.detach() : f.done.catch(() => undefined))));
    const set = candidateSetJsonSchema.parse(await hostRequest(host, 'candidates.ranking', { setId: started.setId }));
    const { ranking, spentUsd } = set;
    if (options.json) io.stdout.write(`${terminalSafeJson(set)}\n`);
    else io.stdout.write(rankingTable(ranking, spentUsd, set.budgetUsd ?? undefined));
    const achieved = ranking.filter((r) => r.state === 'achieved').length;
    io.stderr.write(`deepdesk run: candidates: ${setCounts(threadIds, started.notStarted, ranking).line}\n`);
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

/**
 * A set over 15 asks once (SPEC §26), naming the count and what it may cost: `--approve auto` or
 * `--mode auto` allow it, `--approve deny` refuses it, else the person at this terminal answers.
 * Why none starts, or undefined when they may.
 */
async function largeSetAnswer(options: CandidateSetOptions, autoMode: boolean): Promise<string | undefined> {
  const { count, io } = options;
  if (count <= LARGE_FAN_OUT || options.approve === 'auto' || autoMode) return undefined;
  const usd = dollarsOf(options.budget);
  const cost = usd !== undefined ? `at most ${formatUsd(usd)}, the set's budget` : 'no --max-cost: Settings › Goals budget, if any, holds';
  const question = `Start ${count} candidates (${cost})`;
  const asks = `a set of more than ${LARGE_FAN_OUT} candidates asks first`;
  if (options.approve === 'deny') return `not started: ${asks}, and --approve deny refused it (${question})`;
  if (!interactiveTerminal(io)) return `not started: ${asks}, and nobody is at this terminal to answer (${question}; --approve auto allows it)`;
  const answer = await askLine(io.stdin, io.stderr, `deepdesk run: ${question}? [y]es / [n]o: `);
  return /^(y|yes)$/i.test(answer.trim()) ? undefined : `not started: you refused to start ${count} candidates`;
}

/** The set's honest count: a candidate not started, failed, stopped by the budget (paused), or finished (achieved, unmet, stalled, blocked). */
export function setCounts(threadIds: readonly string[], notStarted: ReadonlyArray<string | null>, ranking: readonly RankingEntry[]) {
  const states = new Map(ranking.map((r) => [r.threadId, r.state]));
  const parts = threadIds.map((id, i): FanOutPart => {
    if ((notStarted[i] ?? null) !== null) return { kind: 'not-started' };
    const state = states.get(id);
    return state === 'failed' ? { kind: 'failed' } : state === 'budget-limited' ? { kind: 'paused' } : { kind: 'finished' };
  });
  return countParts(parts);
}

/**
 * `RANK  CANDIDATE  THREAD  MODEL/AGENT  STATE  VERIFY  CRITERIA  CHANGE  COST  WORKTREE` (CANDIDATE: its number, as its
 * `[candidate N]` lines said it), then why each failed one failed, then the set's spend.
 */
export function rankingTable(ranking: readonly RankingEntry[], spentUsd: number | null, budgetUsd: number | undefined): string {
  const number = (r: RankingEntry) => r.candidate ?? r.rank;
  const rows = [
    ['RANK', 'CANDIDATE', 'THREAD', 'MODEL/AGENT', 'STATE', 'VERIFY', 'CRITERIA', 'CHANGE', 'COST', 'WORKTREE'],
    ...ranking.map((r) => [
      String(r.rank),
      String(number(r)),
      r.threadId,
      r.agent !== null ? `agent ${r.agent}` : (r.model ?? 'settings'),
      r.contradictedClaims.length > 0 ? `${r.state} (claim contradicted)` : r.state,
      r.verify.length === 0 ? 'not run' : `${r.verify.filter((s) => s.passed).length}/${r.verify.length} passed`,
      r.criteria.length === 0 ? '-' : `${r.criteria.filter((c) => c.verdict === 'satisfied').length}/${r.criteria.length}`,
      `${r.change.files} files, ${r.change.lines} lines${r.change.newDependencies > 0 ? `, ${r.change.newDependencies} new deps` : ''}`,
      r.costUsd === null ? 'unknown' : formatUsd(r.costUsd),
      r.worktree.name,
    ]),
  ];
  const failed = ranking.filter((r) => r.state === 'failed').map((r) => `candidate ${number(r)} failed: ${terminalSafe(r.reason ?? 'its run failed', { singleLine: true })}\n`);
  const total = `set: ${spentUsd === null ? 'cost unknown (a price is missing)' : formatUsd(spentUsd)}${budgetUsd !== undefined ? ` of a budget of ${formatUsd(budgetUsd)}` : ''}\n`;
  return table(rows) + failed.join('') + total;
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
