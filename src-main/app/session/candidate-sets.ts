// A set of candidates (SPEC §21), run by the agent host for whichever client asks — `deepdesk
// run --candidates N` and the window's *Run N candidates…* alike: N threads on the same goal,
// each on its own git worktree of the folder (made one after another: git locks its admin
// files), started at once with one budget the set shares (every model call of every candidate
// holds it); when all have ended, the host ranks them by evidence and keeps the ranking.
// Nothing reaches the person's folder until they apply one (§16). A set counts as spawns (SPEC
// §26): over a thread's spawn cap, the first candidates start and the rest are not started.

import { dollarCap, dollarsOf } from '../contract/budget-caps';
import type { BudgetNode } from '../contract/budgets';
import { randomUUID } from 'node:crypto';
import { realpathSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { CheckpointHistory } from '../../core/checkpoints/history';
import { rankCandidateSet, type CandidateSetJson } from './candidate-ranking';
import { openFolderSession, type FolderSession } from './folder-session';
import { WorktreeService, type CreatedWorktree } from '../worktrees/worktree-service';
import { CandidateRecords } from '../threads/candidate-records';
import { RunRecords } from '../threads/run-records';
import type { ApprovePolicy, HostRuns, RunEnd, StartRunParams } from './run-requests';
import { asHostError, HostRequestError, type HostConnection } from '../base/host-service';
import { forkedCandidateSandboxes } from '../sandboxes/candidate-sandboxes';
import { DEFAULT_MAX_SPAWNS } from '../../core/agent/fan-out';
import type { SecretStore } from '../base/secret-store';

/** Candidates a set may ask for at most (and at least one); how many start is the spawn cap's (SPEC §26). */
export const MAX_CANDIDATES = 100;
/** Sets still running, or ranked, kept in memory to wait on (the latest); older ones are read from the database. */
const KEPT_SETS = 50;

/** The model (or agent, or prompt) of candidate `i`: the given ones in turn (none given: Settings' model, Deepdesk's agent, no prompt). */
export function candidateModel(models: readonly (string | null)[], i: number): string | undefined {
  return models.length === 0 ? undefined : (models[i % models.length] ?? undefined);
}

/**
 * `run --candidates N [--agent A]… [--model M]…`: the agents and the models given are the
 * candidates' choices, the agents first, given in turn: candidate `i` takes choice `i mod k`
 * (one with an agent is that agent's thread, with its own model; one with a model is Deepdesk's).
 */
export function candidateChoices(agents: readonly string[], models: readonly string[]): { agents: Array<string | null>; models: Array<string | null> } {
  if (agents.length === 0) return { agents: [], models: [...models] };
  return { agents: [...agents, ...models.map(() => null)], models: [...agents.map(() => null), ...models] };
}

export interface StartCandidateSetParams {
  /** The local git repository the worktrees are made of. */
  folder: string;
  count: number;
  /** The models, given to the candidates in turn (empty, or null for one: Settings' model). */
  models: readonly (string | null)[];
  /** The agents (SPEC §22), given to the candidates in turn as the models are (null for one: Deepdesk's own agent). */
  agents?: readonly (string | null)[] | undefined;
  /** Each candidate's own instruction, added after the goal in its first message, in turn as the models (null: none). */
  prompts?: readonly (string | null)[] | undefined;
  /** Each candidate's run request but for its folder, thread, model, agent and set. */
  request: Omit<StartRunParams['request'], 'folder' | 'threadId' | 'candidateSet' | 'model' | 'budget' | 'externalAgent' | 'instruction'>;
  /** The set's one budget. */
  budget?: BudgetNode | undefined;
  approve: ApprovePolicy;
  /** The thread ids to use (a client that follows them from their first event); made here otherwise. */
  threadIds?: readonly string[] | undefined;
  /** The client stays to follow the runs (a terminal); false: they go on without it (a window). */
  follow: boolean;
}

export interface StartedCandidateSet {
  setId: string;
  threadIds: string[];
  /** Each candidate's worktree (a sandbox candidate's is made by the host with its sandbox: null here). */
  worktrees: Array<{ name: string; path: string; branch: string } | null>;
  /** Why each candidate did not start (null: it started). */
  notStarted: Array<string | null>;
}

interface LiveSet {
  done: Promise<CandidateSetJson>;
}

export class HostCandidateSets {
  private readonly sets = new Map<string, LiveSet>();
  private readonly records: CandidateRecords;

  constructor(
    private readonly runs: HostRuns,
    private readonly options: { dataDir: string; db: Database.Database; env: NodeJS.ProcessEnv; version: string; log?: (line: string) => void; secrets: SecretStore },
  ) {
    this.records = new CandidateRecords(options.db);
  }

  /** Makes the worktrees, starts the runs, and returns; the ranking follows when all have ended (`ranking`). */
  async start(connection: HostConnection, params: StartCandidateSetParams): Promise<StartedCandidateSet> {
    const { count } = params;
    if (!Number.isInteger(count) || count < 1 || count > MAX_CANDIDATES) throw new HostRequestError(`a set has 1 to ${MAX_CANDIDATES} candidates (got ${count})`, 'bad_request');
    if (params.threadIds !== undefined && params.threadIds.length !== count) throw new HostRequestError(`${count} candidates need ${count} thread ids`, 'bad_request');
    const folder = this.personsFolder(params.folder);
    // The person's folder's composition (folder-session.ts) lends the set its Settings, ledger and thread store until it is ranked.
    const session = await openFolderSession({
      place: { kind: 'local', path: folder },
      flags: {},
      policy: { mode: 'saved', wording: 'command' },
      context: { ...this.options, openBrowser: () => undefined, notice: (problem) => this.options.log?.(`candidates: ${problem.message}`) },
    });
    return this.startIn(session, folder, connection, params).catch(async (err: unknown) => {
      await session.close();
      throw err;
    });
  }

  private async startIn(session: FolderSession, folder: string, connection: HostConnection, params: StartCandidateSetParams): Promise<StartedCandidateSet> {
    const { count } = params;
    const setId = randomUUID();
    const goal = params.request.goal ?? '';
    const sandbox = params.request.sandbox !== undefined;
    // A thread's spawn cap holds for a set: the first ones start, the others are not started (nor made a worktree).
    const maxSpawns = session.settings.raw().budgets?.thread?.maxSpawns ?? DEFAULT_MAX_SPAWNS;
    const starting = Math.min(count, maxSpawns);
    const capped = `not started (spawn cap): a set may start ${maxSpawns} candidates (budgets.thread.maxSpawns) and ${count} were asked for`;
    // The worktrees first, one after another: nothing starts unless all are made. A sandbox
    // candidate's worktree is made by the host with its sandbox, and found by its thread at the end.
    const worktrees: Array<CreatedWorktree | undefined> = [];
    if (!sandbox) {
      const service = new WorktreeService({ dataDir: this.options.dataDir, env: this.options.env });
      try {
        for (let i = 0; i < starting; i++) worktrees.push(await service.create({ folder, carry: false, nameHint: `${goal} ${i + 1}` }));
      } catch (err) {
        // Made in part: the ones made go (worktree, branch, record); one that cannot is named.
        const kept: string[] = [];
        for (const made of worktrees as CreatedWorktree[]) await service.remove(made.name, { force: true }).catch(() => kept.push(`${made.path} (branch ${made.branch})`));
        const left = kept.length === 0 ? 'the worktrees made for it were removed' : `these worktrees made for it could not be removed: ${kept.join(', ')}`;
        throw new HostRequestError(`${err instanceof Error ? err.message : String(err)}; nothing was started, and ${left}.`, 'failed');
      } finally {
        service.close();
      }
    } else {
      for (let i = 0; i < starting; i++) worktrees.push(undefined);
    }
    const threadIds = params.threadIds !== undefined ? [...params.threadIds] : Array.from({ length: count }, () => randomUUID());
    // A provider that forks: every candidate's sandbox made before any starts, forked from one set up with the folder (candidate-sandboxes.ts).
    const forked = sandbox ? await this.forkedSandboxes({ ...params, folder }, threadIds.slice(0, starting), session) : undefined;
    const models = threadIds.map((_, i) => candidateModel(params.models, i));
    // The set's one budget: the one it was started with, else Settings › Goals' (SPEC §21).
    const caps = params.budget ?? dollarCap(session.settings.raw().goals?.candidatesBudgetUsd);
    const agents = threadIds.map((_, i) => candidateModel(params.agents ?? [], i));
    const prompts = threadIds.map((_, i) => candidateModel(params.prompts ?? [], i));
    // The set is stored before any candidate runs: the Agents view shows it whole from its first event.
    this.records.addSet(
      { setId, goal, budgetUsd: dollarsOf(caps) ?? null },
      threadIds.map((threadId, index) => ({ threadId, index, model: agents[index] !== undefined ? null : (models[index] ?? null), agent: agents[index] ?? null })),
    );
    const ends = threadIds.map((id) => this.endOf(id));
    const start = (made: CreatedWorktree | undefined, i: number) =>
      this.runs.start(connection, {
        request: {
          ...params.request,
          folder: made?.threadFolder ?? folder,
          threadId: threadIds[i]!,
          ...(forked !== undefined ? { sandbox: forked[i] } : {}),
          // A candidate with an agent is that agent's thread (its own model); one without is Deepdesk's, with its model.
          ...(agents[i] !== undefined ? { externalAgent: agents[i] } : models[i] !== undefined ? { model: models[i] } : {}),
          ...(prompts[i] !== undefined ? { instruction: prompts[i] } : {}),
          candidateSet: { id: setId, index: i, count, ...(caps !== undefined ? { caps } : {}) },
        },
        approve: params.approve,
        interactive: false,
        detach: !params.follow,
      });
    let started: Array<PromiseSettledResult<unknown>>;
    if (sandbox) {
      // One after another: each start makes its worktree (git's locks) and its sandbox, then runs on.
      started = [];
      for (const [i, made] of worktrees.entries()) started.push(...(await Promise.allSettled([start(made, i)])));
    } else {
      started = await Promise.allSettled(worktrees.map(start));
    }
    for (const [i, s] of started.entries()) {
      if (s.status !== 'rejected') continue;
      ends[i]!.cancel();
      this.records.noteNotStarted(threadIds[i]!, s.reason instanceof Error ? s.reason.message : String(s.reason));
    }
    for (let i = starting; i < count; i++) {
      ends[i]!.cancel();
      this.records.noteNotStarted(threadIds[i]!, capped);
      started.push({ status: 'rejected', reason: new Error(capped) });
    }
    const live: LiveSet = {
      done: Promise.all(ends.map((e) => e.promise)).then(async () => {
        const set = await this.rank(setId, session);
        this.records.keepRanking(set);
        this.options.log?.(`candidates: set ${setId} ranked (${set.ranking.filter((r) => r.state === 'achieved').length} of ${count} achieved)`);
        return set;
      }).finally(() => session.close()),
    };
    live.done.catch(() => undefined);
    this.sets.set(setId, live);
    for (const old of [...this.sets.keys()].slice(0, Math.max(0, this.sets.size - KEPT_SETS))) this.sets.delete(old);
    return {
      setId,
      threadIds,
      worktrees: threadIds.map((_, i) => {
        const w = worktrees[i];
        return w === undefined ? null : { name: w.name, path: w.path, branch: w.branch };
      }),
      notStarted: started.map((s) => (s.status === 'rejected' ? (s.reason instanceof Error ? s.reason.message : String(s.reason)) : null)),
    };
  }

  /**
   * The folder a set's worktrees are made of: asked from a worktree's thread folder (a
   * candidate's, a sandbox thread's), the person's folder it was made of — each candidate gets a
   * worktree of its own there and is applied to it, never one shared with that thread.
   */
  private personsFolder(folder: string): string {
    let real: string;
    try {
      real = realpathSync(folder);
    } catch {
      return folder;
    }
    const worktrees = new WorktreeService({ dataDir: this.options.dataDir, db: this.options.db });
    try {
      const record = worktrees.byFolder(real);
      return record !== undefined && record.threadFolder === real ? record.originFolder : folder;
    } finally {
      worktrees.close();
    }
  }

  /** Each candidate's own sandbox, forked from one set up with the folder where the provider forks; undefined where it does not. */
  private async forkedSandboxes(params: StartCandidateSetParams, threadIds: readonly string[], session: FolderSession) {
    const { request } = params;
    try {
      return await forkedCandidateSandboxes(
        { folder: params.folder, cwd: request.cwd, sandbox: request.sandbox!, env: request.env, threadIds, nameHint: (i) => `${request.goal ?? ''} ${i + 1}` },
        { dataDir: this.options.dataDir, db: this.options.db, settings: session.settings, ledger: session.audit },
        (line) => this.options.log?.(`candidates: ${line}`),
      );
    } catch (err) {
      throw asHostError(err);
    }
  }

  /** The set's ranking once all its candidates have ended (waits for them); a set this host no longer runs: its kept ranking. */
  async ranking(setId: string): Promise<CandidateSetJson> {
    const set = this.sets.get(setId);
    if (set !== undefined) return set.done;
    const kept = this.records.set(setId);
    if (kept?.ranking !== undefined) return kept.ranking;
    if (kept === undefined) throw new HostRequestError(`there is no set of candidates '${setId}'`, 'not_found');
    throw new HostRequestError(`the set of candidates '${setId}' was not ranked: the agent host that ran it stopped before its candidates ended (the Agents view compares them as they stand)`, 'not_found');
  }

  /** How the thread's run ends (resolved at once if it already has); `cancel`: it never started. */
  private endOf(threadId: string): { promise: Promise<RunEnd | undefined>; cancel(): void } {
    let settle!: (end: RunEnd | undefined) => void;
    const promise = new Promise<RunEnd | undefined>((resolve) => (settle = resolve));
    const stop = this.runs.onActivity((activity) => {
      if (activity.kind !== 'ended' || activity.threadId !== threadId) return;
      stop();
      settle(this.runs.recordedEnd(threadId));
    });
    return {
      promise,
      cancel: () => {
        stop();
        settle(undefined);
      },
    };
  }

  /** The ended set, ranked from what is stored (the same way the window compares one), its costs as the composition's ledger prices them. */
  private async rank(setId: string, session: FolderSession): Promise<CandidateSetJson> {
    const worktrees = new WorktreeService({ dataDir: this.options.dataDir, db: this.options.db });
    const history = new CheckpointHistory(session.checkpointStore);
    try {
      const sources = { candidates: this.records, threads: session.threadStore, runs: new RunRecords(this.options.db), worktrees, costOf: (threadId: string) => session.audit.ledger.threadCost(threadId), ignoredChanges: (threadId: string) => history.ignoredChanges(threadId, '') };
      const set = await rankCandidateSet(sources, setId, this.options.env);
      if (set === undefined) throw new HostRequestError(`there is no set of candidates '${setId}'`, 'not_found');
      return set;
    } finally {
      worktrees.close();
    }
  }
}
