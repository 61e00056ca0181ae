// The usage ledger (SPEC §17): every model call — the agent's, a subagent's, a summary's — is
// one row in SQLite with its thread, turn, subagent, provider, model, the four token counts
// the provider reported, its cost (when the price is known), its duration, whether it
// failed and the tool calls its answer asked for. Rows are written in one transaction per
// event-loop turn, off the run's path; a report sums them by thread, day, model or turn.
//
// A cost is read as it was recorded. A call whose price was unknown when it was made is
// priced when it is read, from its tokens, at the price known now (the person's in Settings,
// else the table's): setting a price reaches the calls that made the person set it, in every
// sum read here (the Usage view, `deepdesk usage`, a thread's cost, a run's). A price changed
// later never rewrites a cost that was recorded: that is what the call cost then.
//
// Sandbox time (SPEC §18) is kept beside the calls: slices of a sandbox's running time, each
// written at once, with their cost when a price per hour was known then, and priced the same
// way when read (the person's price per hour now) when it was not.

import type { MemoryUse } from '../memories/memory-types';
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { perConnection, runMigrations } from '../backends/store/store-db';
import type { Migration } from '../backends/store/migration';
import { costAt } from '../models/model-info';
import type { ModelPrice } from '../models/types';
import { MODEL_CALL_PURPOSES, NOOP_RUN, NOOP_TOOL, type ModelCallPurpose, type RunObserver, type Telemetry, type ToolCallObserver, type AgentRunInfo } from './observer';

const MIGRATIONS: Migration[] = [
  {
    id: 'usage-001-model-calls',
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS model_calls (
          id TEXT PRIMARY KEY,
          at TEXT NOT NULL,
          thread_id TEXT NOT NULL,
          turn INTEGER NOT NULL,
          subagent TEXT,
          purpose TEXT NOT NULL,
          provider TEXT NOT NULL,
          model TEXT NOT NULL,
          input_tokens INTEGER NOT NULL,
          output_tokens INTEGER NOT NULL,
          cache_read_tokens INTEGER NOT NULL,
          cache_write_tokens INTEGER NOT NULL,
          cost_usd REAL,
          duration_ms INTEGER NOT NULL,
          failed INTEGER NOT NULL,
          error TEXT
        );
        CREATE INDEX IF NOT EXISTS model_calls_at ON model_calls(at);
        CREATE INDEX IF NOT EXISTS model_calls_thread ON model_calls(thread_id, at);
      `);
    },
  },
  {
    id: 'usage-002-sandbox-time',
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS sandbox_time (
          id TEXT PRIMARY KEY,
          at TEXT NOT NULL,
          thread_id TEXT,
          folder TEXT NOT NULL,
          provider TEXT NOT NULL,
          sandbox_id TEXT NOT NULL,
          seconds REAL NOT NULL,
          cost_usd REAL
        );
        CREATE INDEX IF NOT EXISTS sandbox_time_at ON sandbox_time(at);
      `);
    },
  },
  // The memories each request carried (SPEC §25 "Used in"), JSON; null when none.
  { id: 'usage-003-memories', up: (db) => db.exec('ALTER TABLE model_calls ADD COLUMN memories TEXT') },
  // The tool calls each answer asked for (SPEC §26 cost drift); null for rows written before, and another agent's.
  { id: 'usage-004-tool-calls', up: (db) => db.exec('ALTER TABLE model_calls ADD COLUMN tool_calls INTEGER') },
];

/** One model call as the ledger keeps it. */
export interface ModelCallRecord {
  id: string;
  /** When it started, ISO 8601 UTC. */
  at: string;
  threadId: string;
  turn: number;
  /** The subagent type, for a subagent's call; null for the thread's own agent. */
  subagent: string | null;
  purpose: ModelCallPurpose;
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** null: the model's price is unknown (its tokens still count). */
  costUsd: number | null;
  durationMs: number;
  failed: boolean;
  error: string | null;
  /** The memories the request carried (SPEC §25), when any. */
  memories?: MemoryUse[];
  /** The tool calls its answer asked for; absent when not known (a row written before they were counted, another agent's call). */
  toolCalls?: number;
}

export type UsageGrouping = 'thread' | 'day' | 'model';

/** One turn of a thread in the ledger (UsageLedger.turns). */
export interface TurnTotals {
  threadId: string;
  turn: number;
  /** null unless every call of the turn has a price. */
  costUsd: number | null;
  /** The tool calls its steps asked for; null when one of them was not counted. */
  toolCalls: number | null;
  /** When its last call started. */
  lastAt: string;
}

export interface UsageSums {
  calls: number;
  failedCalls: number;
  /** Calls whose price is still unknown: their tokens are counted, their cost is not. */
  unpricedCalls: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** What the priced calls cost (only part of it while unpricedCalls > 0); null when no call has a price. */
  costUsd: number | null;
  durationMs: number;
  /** The calls and their cost by what they were for (`agent`, `grader`, `other-agent`…); a cost is null while none of them has a price. */
  byPurpose: Record<string, { calls: number; costUsd: number | null }>;
}

/** The price of `provider:model` now, or null when none is known. */
export type PriceNow = (modelId: string) => ModelPrice | null;

/** A sandbox provider's price now, USD per hour of a sandbox's time, or null when none is known. */
export type SandboxPriceNow = (provider: string) => number | null;

/** A slice of one sandbox's running time. */
export interface SandboxTimeRecord {
  /** When the slice started, ISO 8601 UTC. */
  at: string;
  /** The thread it ran for; null for a sandbox of no thread. */
  threadId: string | null;
  folder: string;
  provider: string;
  sandboxId: string;
  seconds: number;
  /** null: no price per hour was known then (its time still counts). */
  costUsd: number | null;
}

export interface SandboxSums {
  seconds: number;
  /** What the priced time cost (only part of it while unpricedSeconds is there); null when none of it has a price. */
  costUsd: number | null;
  /** Time of a provider whose price is still unknown: counted, its cost not. Absent when there is none. */
  unpricedSeconds?: number;
}

export interface SandboxUsageGroup extends SandboxSums {
  /** The thread id (`''` for time of no thread), the day (`YYYY-MM-DD`, UTC) or `sandbox:<provider>`. */
  key: string;
  provider: string;
  firstAt: string;
  lastAt: string;
}

export interface UsageGroup extends UsageSums {
  key: string;
  firstAt: string;
  lastAt: string;
}

export interface UsageQuery {
  by: UsageGrouping;
  /** ISO time or `YYYY-MM-DD` (from that day's start, UTC). */
  since?: string;
  threadId?: string;
}

/** The row key of each grouping, as SQL over model_calls. */
const GROUP_KEY: Record<UsageGrouping, string> = {
  thread: 'thread_id',
  day: 'substr(at, 1, 10)',
  model: "provider || ':' || model",
};

/** The row key of each grouping, as SQL over sandbox_time (a row is also apart by provider). */
const SANDBOX_KEY: Record<UsageGrouping, string> = {
  thread: "COALESCE(thread_id, '')",
  day: 'substr(at, 1, 10)',
  model: "'sandbox:' || provider",
};

interface SandboxPartRow {
  key: string;
  provider: string;
  unpriced: number;
  seconds: number;
  costUsd: number;
  firstAt: string;
  lastAt: string;
}

/**
 * Sums of the calls of one model in one group, apart for the calls with a recorded cost and
 * those without one (priced when read).
 */
const PART = `provider, model, purpose, cost_usd IS NULL AS unpriced, COUNT(*) AS calls, SUM(failed) AS failedCalls,
  SUM(input_tokens) AS inputTokens, SUM(output_tokens) AS outputTokens, SUM(cache_read_tokens) AS cacheReadTokens,
  SUM(cache_write_tokens) AS cacheWriteTokens, COALESCE(SUM(cost_usd), 0) AS costUsd, SUM(duration_ms) AS durationMs,
  MIN(at) AS firstAt, MAX(at) AS lastAt`;

interface PartRow extends Omit<UsageGroup, 'unpricedCalls' | 'costUsd' | 'byPurpose'> {
  provider: string;
  purpose: string;
  model: string;
  unpriced: number;
  costUsd: number;
}

interface RecordRow {
  id: string;
  at: string;
  thread_id: string;
  turn: number;
  subagent: string | null;
  purpose: string;
  provider: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number | null;
  duration_ms: number;
  failed: number;
  error: string | null;
  memories: string | null;
  tool_calls: number | null;
}

/** The ledger's queries by their SQL, per connection (UsageLedger.query). */
const LEDGER_QUERIES = Symbol('ledger_queries');

export class UsageLedger {
  private readonly insert;
  private readonly insertSandbox;
  private pending: ModelCallRecord[] = [];
  private scheduled = false;
  private closed = false;

  /**
   * `priceNow`: the price of a model now, for the calls whose price was unknown when they were
   * made; `sandboxPrice`: a provider's price per hour now, for sandbox time in the same case.
   */
  constructor(
    private readonly db: Database.Database,
    private readonly priceNow?: PriceNow,
    private readonly sandboxPrice?: SandboxPriceNow,
  ) {
    runMigrations(db, MIGRATIONS);
    this.insert = db.prepare(
      `INSERT OR IGNORE INTO model_calls (id, at, thread_id, turn, subagent, purpose, provider, model, input_tokens, output_tokens,
        cache_read_tokens, cache_write_tokens, cost_usd, duration_ms, failed, error, memories, tool_calls)
       VALUES (@id, @at, @threadId, @turn, @subagent, @purpose, @provider, @model, @inputTokens, @outputTokens,
        @cacheReadTokens, @cacheWriteTokens, @costUsd, @durationMs, @failed, @error, @memories, @toolCalls)`,
    );
    this.insertSandbox = db.prepare(
      `INSERT INTO sandbox_time (id, at, thread_id, folder, provider, sandbox_id, seconds, cost_usd)
       VALUES (@id, @at, @threadId, @folder, @provider, @sandboxId, @seconds, @costUsd)`,
    );
  }

  /** Writes a slice of a sandbox's time now (a slice of no time is not one). */
  recordSandboxTime(r: SandboxTimeRecord): void {
    if (this.closed || !this.db.open || !(r.seconds > 0) || !Number.isFinite(r.seconds)) return;
    try {
      this.insertSandbox.run({ ...r, id: randomUUID() });
    } catch {
      // A busy or read-only database loses this slice, never the sandbox's work.
    }
  }

  /**
   * A query of the ledger's, prepared once per connection and SQL (a run's cost is asked for at
   * its start; its ledger is made per run). Run to completion (all) only: never iterated.
   */
  private query<P extends unknown[], R>(sql: string): Database.Statement<P, R> {
    const made = perConnection(this.db, LEDGER_QUERIES, () => new Map<string, Database.Statement<never[], unknown>>());
    let statement = made.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      made.set(sql, statement);
    }
    return statement as unknown as Database.Statement<P, R>;
  }

  /**
   * Sandbox time by thread, day or provider (`sandbox:<provider>` for `by: 'model'`), each
   * group apart by provider: threads and providers most expensive first (then the longest),
   * days oldest first; with the total.
   */
  sandboxUsage(query: UsageQuery): { rows: SandboxUsageGroup[]; total: SandboxSums } {
    const { filter, params } = queryFilter(query);
    const parts = this.query<string[], SandboxPartRow>(
        `SELECT ${SANDBOX_KEY[query.by]} AS key, provider, cost_usd IS NULL AS unpriced, SUM(seconds) AS seconds,
          COALESCE(SUM(cost_usd), 0) AS costUsd, MIN(at) AS firstAt, MAX(at) AS lastAt
         FROM sandbox_time ${filter} GROUP BY key, provider, unpriced`,
      )
      .all(...params);
    const groups = new Map<string, SandboxTally>();
    const total = new SandboxTally('', '');
    for (const part of parts) {
      const cost = this.sandboxPriced(part);
      total.add(part, cost);
      const id = JSON.stringify([part.key, part.provider]);
      let group = groups.get(id);
      if (group === undefined) groups.set(id, (group = new SandboxTally(part.key, part.provider)));
      group.add(part, cost);
    }
    const rows = [...groups.values()].map((g) => g.group());
    const byKey = (a: SandboxUsageGroup, b: SandboxUsageGroup) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) || (a.provider < b.provider ? -1 : a.provider > b.provider ? 1 : 0);
    rows.sort((a, b) => (query.by === 'day' ? byKey(a, b) : (b.costUsd ?? 0) - (a.costUsd ?? 0) || b.seconds - a.seconds || byKey(a, b)));
    return { rows, total: total.sums() };
  }

  /**
   * What a thread has cost so far, its model calls and its sandbox time, as the ledger prices
   * them now; null when none of it has a price, undefined when the ledger has none of it.
   */
  threadCost(threadId: string): number | null | undefined {
    const calls = this.threadSums(threadId);
    const sandbox = this.sandboxUsage({ by: 'thread', threadId }).total;
    if (calls.calls === 0 && sandbox.seconds === 0) return undefined;
    // No calls sum to a cost of 0: that is not a price known.
    const callsCost = calls.calls === 0 ? null : calls.costUsd;
    if (callsCost === null && sandbox.costUsd === null) return null;
    return (callsCost ?? 0) + (sandbox.costUsd ?? 0);
  }

  /** What a part's time cost: as recorded, else at the provider's price per hour now; null while none is known. */
  private sandboxPriced(part: SandboxPartRow): number | null {
    if (part.unpriced === 0) return part.costUsd;
    const perHour = this.sandboxPrice?.(part.provider) ?? null;
    return perHour === null ? null : (part.seconds / 3600) * perHour;
  }

  /** Queues a model call's row, written with the others of this event-loop turn: the ledger's one write of a call, its observer's (below). */
  private record(record: ModelCallRecord): void {
    if (this.closed) return;
    this.pending.push(record);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Writes what is queued now. */
  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0 || !this.db.open) return;
    const rows = this.pending;
    this.pending = [];
    try {
      this.db.transaction(() => {
        for (const { memories, toolCalls, ...r } of rows) this.insert.run({ ...r, failed: r.failed ? 1 : 0, memories: memories !== undefined ? JSON.stringify(memories) : null, toolCalls: toolCalls ?? null });
      })();
    } catch {
      // A busy or read-only database loses these rows, never the run.
    }
  }

  close(): void {
    this.flush();
    this.closed = true;
  }

  /** The calls of one thread (or all), oldest first. */
  calls(threadId?: string): ModelCallRecord[] {
    this.flush();
    const rows =
      threadId === undefined
        ? this.query<[], RecordRow>('SELECT * FROM model_calls ORDER BY at, rowid').all()
        : this.query<[string], RecordRow>('SELECT * FROM model_calls WHERE thread_id = ? ORDER BY at, rowid').all(threadId);
    return rows.map(fromRow);
  }

  /** What a thread's calls used and cost so far. */
  threadSums(threadId: string): UsageSums {
    return this.sums('WHERE thread_id = ?', [threadId]).total;
  }

  /** The memories a thread's calls carried, turn by turn (each memory once a turn, at the last version carried). */
  memoriesUsed(threadId: string): Array<{ turn: number; memories: MemoryUse[] }> {
    this.flush();
    const rows = this.query<[string], { turn: number; memories: string }>('SELECT turn, memories FROM model_calls WHERE thread_id = ? AND memories IS NOT NULL ORDER BY at, rowid').all(threadId);
    const turns = new Map<number, Map<string, MemoryUse>>();
    for (const row of rows) {
      const uses = turns.get(row.turn) ?? new Map<string, MemoryUse>();
      for (const use of JSON.parse(row.memories) as MemoryUse[]) uses.set(use.path, use);
      turns.set(row.turn, uses);
    }
    return [...turns].map(([turn, uses]) => ({ turn, memories: [...uses.values()] }));
  }

  /** What the calls of a thread's latest turn used; the cost only when every call's price is known. */
  lastTurn(threadId: string): { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; costUsd?: number } | undefined {
    const s = this.sums('WHERE thread_id = ? AND turn = (SELECT MAX(turn) FROM model_calls WHERE thread_id = ?)', [threadId, threadId]).total;
    if (s.calls === 0) return undefined;
    const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = s;
    return { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, ...(s.unpricedCalls === 0 && s.costUsd !== null ? { costUsd: s.costUsd } : {}) };
  }

  /**
   * Each turn of every thread (or of one), in its thread's order: what it cost as the ledger
   * prices it now (null unless every call of it has a price) and the tool calls the model asked
   * for in it, subagents' included (null when one of its steps was not counted). For cost drift.
   */
  turns(threadId?: string): TurnTotals[] {
    const { filter, params } = queryFilter(threadId !== undefined ? { by: 'thread', threadId } : { by: 'thread' });
    const costs = new Map(this.sums(filter, params, 'json_array(thread_id, turn)').groups.map((g) => [g.key, g]));
    const steps = this.query<string[], { key: string; threadId: string; turn: number; toolCalls: number; uncounted: number }>(
      `SELECT json_array(thread_id, turn) AS key, thread_id AS threadId, turn, COALESCE(SUM(tool_calls), 0) AS toolCalls,
        SUM(tool_calls IS NULL AND purpose IN ('agent', 'other-agent')) AS uncounted
       FROM model_calls ${filter} GROUP BY thread_id, turn ORDER BY thread_id, turn`,
    ).all(...params);
    return steps.map((step) => {
      const cost = costs.get(step.key)!;
      return {
        threadId: step.threadId,
        turn: step.turn,
        costUsd: cost.unpricedCalls === 0 ? cost.costUsd : null,
        toolCalls: step.uncounted === 0 ? step.toolCalls : null,
        lastAt: cost.lastAt,
      };
    });
  }

  /** Sums by thread (most expensive first), day (oldest first) or model (most expensive first), with the total. */
  report(query: UsageQuery): { rows: UsageGroup[]; total: UsageSums } {
    const { filter, params } = queryFilter(query);
    const { groups, total } = this.sums(filter, params, GROUP_KEY[query.by]);
    const cost = (g: UsageGroup) => g.costUsd ?? 0;
    const rows = [...groups].sort((a, b) => (query.by === 'day' ? 0 : cost(b) - cost(a) || b.calls - a.calls) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return { rows, total };
  }

  /** The calls `filter` keeps, summed in all and (with `groupKey`) by group, each priced as the ledger reads it. */
  private sums(filter: string, params: string[], groupKey = "''"): { groups: UsageGroup[]; total: UsageSums } {
    this.flush();
    const parts = this.query<string[], PartRow & { key: string }>(`SELECT ${groupKey} AS key, ${PART} FROM model_calls ${filter} GROUP BY key, provider, model, purpose, unpriced`).all(...params);
    const groups = new Map<string, GroupTally>();
    const total = new GroupTally('');
    for (const part of parts) {
      const priced = this.priced(part);
      total.add(part, priced);
      let group = groups.get(part.key);
      if (group === undefined) groups.set(part.key, (group = new GroupTally(part.key)));
      group.add(part, priced);
    }
    return { groups: [...groups.values()].map((g) => g.group()), total: total.sums() };
  }

  /** What a part's calls cost: as recorded, else at the price known now; null while none is known. */
  private priced(part: PartRow): number | null {
    if (part.unpriced === 0) return part.costUsd;
    const price = this.priceNow?.(`${part.provider}:${part.model}`) ?? null;
    return costAt(price, part) ?? null;
  }

  /** The ledger as a listener of runs: one row per model call metered (core/telemetry/metering.ts). */
  telemetry(): Telemetry {
    return { turn: (info) => this.runObserver(info, null) };
  }

  private runObserver(info: AgentRunInfo, subagent: string | null): RunObserver {
    if (this.closed) return NOOP_RUN;
    const tool: ToolCallObserver = { ...NOOP_TOOL, subagent: (child) => this.runObserver(child, child.agentName) };
    return {
      modelCall: (call) => {
        const startedAt = new Date();
        return {
          end: (outcome) =>
            this.record({
              id: randomUUID(),
              at: startedAt.toISOString(),
              threadId: info.threadId,
              turn: info.turn,
              subagent,
              purpose: call.purpose,
              // Another agent's row names the agent; its model is the provider's own name for it.
              provider: call.agent ?? call.provider,
              model: outcome.responseModel ?? call.model,
              inputTokens: outcome.usage.inputTokens,
              outputTokens: outcome.usage.outputTokens,
              cacheReadTokens: outcome.usage.cacheReadTokens,
              cacheWriteTokens: outcome.usage.cacheWriteTokens,
              costUsd: outcome.costUsd ?? null,
              durationMs: Math.round(outcome.durationMs),
              failed: outcome.error !== undefined,
              error: outcome.error ?? null,
              ...(call.memories !== undefined && call.memories.length > 0 ? { memories: [...call.memories] } : {}),
              ...(outcome.toolCalls !== undefined ? { toolCalls: outcome.toolCalls.length } : {}),
            }),
        };
      },
      toolCall: () => tool,
      end() {},
    };
  }
}

/** A query's `since` and `threadId` as SQL (over model_calls or sandbox_time) and its parameters. */
function queryFilter(query: UsageQuery): { filter: string; params: string[] } {
  const where: string[] = [];
  const params: string[] = [];
  if (query.since !== undefined) {
    where.push('at >= ?');
    params.push(sinceInstant(query.since));
  }
  if (query.threadId !== undefined) {
    where.push('thread_id = ?');
    params.push(query.threadId);
  }
  return { filter: where.length > 0 ? `WHERE ${where.join(' AND ')}` : '', params };
}

/** `YYYY-MM-DD` is that day's start (UTC); a full time is taken as it is. */
export function sinceInstant(since: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(since)) return `${since}T00:00:00.000Z`;
  const time = new Date(since);
  if (Number.isNaN(time.getTime())) throw new Error(`'${since}' is not a date (use YYYY-MM-DD)`);
  return time.toISOString();
}

/** What a group sums of its parts as they come, besides their cost. */
const COUNTS = { calls: 0, failedCalls: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, durationMs: 0 };

/** Sums of the parts of one group as they come. */
class GroupTally {
  private readonly counts = { ...COUNTS };
  private unpricedCalls = 0;
  private cost = 0;
  private firstAt = '';
  private lastAt = '';
  private readonly byPurpose: UsageSums['byPurpose'] = {};

  constructor(private readonly key: string) {}

  add(part: PartRow, cost: number | null): void {
    for (const name of Object.keys(COUNTS) as Array<keyof typeof COUNTS>) this.counts[name] += part[name];
    const purpose = (this.byPurpose[part.purpose] ??= { calls: 0, costUsd: null });
    purpose.calls += part.calls;
    if (cost === null) this.unpricedCalls += part.calls;
    else this.cost += cost;
    if (cost !== null) purpose.costUsd = (purpose.costUsd ?? 0) + cost;
    if (this.firstAt === '' || part.firstAt < this.firstAt) this.firstAt = part.firstAt;
    if (part.lastAt > this.lastAt) this.lastAt = part.lastAt;
  }

  sums(): UsageSums {
    const { unpricedCalls, counts } = this;
    return { ...counts, unpricedCalls, costUsd: counts.calls > 0 && unpricedCalls >= counts.calls ? null : this.cost, byPurpose: { ...this.byPurpose } };
  }

  group(): UsageGroup {
    return { key: this.key, ...this.sums(), firstAt: this.firstAt, lastAt: this.lastAt };
  }
}

/** Sums of the parts of one group of sandbox time as they come. */
class SandboxTally {
  private seconds = 0;
  private unpricedSeconds = 0;
  private cost = 0;
  private priced = false;
  private firstAt = '';
  private lastAt = '';

  constructor(
    private readonly key: string,
    private readonly provider: string,
  ) {}

  add(part: SandboxPartRow, cost: number | null): void {
    this.seconds += part.seconds;
    if (cost === null) this.unpricedSeconds += part.seconds;
    else {
      this.cost += cost;
      this.priced = true;
    }
    if (this.firstAt === '' || part.firstAt < this.firstAt) this.firstAt = part.firstAt;
    if (part.lastAt > this.lastAt) this.lastAt = part.lastAt;
  }

  sums(): SandboxSums {
    return { seconds: this.seconds, costUsd: this.priced ? this.cost : null, ...(this.unpricedSeconds > 0 ? { unpricedSeconds: this.unpricedSeconds } : {}) };
  }

  group(): SandboxUsageGroup {
    return { key: this.key, provider: this.provider, ...this.sums(), firstAt: this.firstAt, lastAt: this.lastAt };
  }
}

function fromRow(row: RecordRow): ModelCallRecord {
  return {
    id: row.id,
    at: row.at,
    threadId: row.thread_id,
    turn: row.turn,
    subagent: row.subagent,
    purpose: (MODEL_CALL_PURPOSES as readonly string[]).includes(row.purpose) ? (row.purpose as ModelCallPurpose) : 'agent',
    provider: row.provider,
    model: row.model,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    cacheReadTokens: row.cache_read_tokens,
    cacheWriteTokens: row.cache_write_tokens,
    costUsd: row.cost_usd,
    durationMs: row.duration_ms,
    failed: row.failed === 1,
    error: row.error,
    ...(row.memories !== null && row.memories !== undefined ? { memories: JSON.parse(row.memories) as MemoryUse[] } : {}),
    ...(row.tool_calls !== null && row.tool_calls !== undefined ? { toolCalls: row.tool_calls } : {}),
  };
}

/** The ledger as a report reads it (`deepdesk usage`, `threads export`, the Agents view's costs): it writes nothing. */
export type LedgerReader = Pick<UsageLedger, 'report' | 'calls' | 'threadCost' | 'sandboxUsage' | 'turns'>;

export const ledgerReader = (db: Database.Database, priceNow?: PriceNow, sandboxPrice?: SandboxPriceNow): LedgerReader => new UsageLedger(db, priceNow, sandboxPrice);
