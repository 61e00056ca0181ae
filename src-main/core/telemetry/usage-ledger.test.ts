// The usage ledger on a real SQLite file: rows as recorded, sums by thread, day and model.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../backends/store/store';
import { sinceInstant, UsageLedger, type ModelCallRecord, type SandboxTimeRecord } from './usage-ledger';
import { recordRow } from './ledger-rows.test-support';

let dir: string;
beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), 'deepdesk-ledger-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function call(over: Partial<ModelCallRecord>): ModelCallRecord {
  return {
    id: Math.random().toString(36).slice(2),
    at: '2026-11-20T10:00:00.000Z',
    threadId: 't1',
    turn: 1,
    subagent: null,
    purpose: 'agent',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    inputTokens: 100,
    outputTokens: 10,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0.001,
    durationMs: 500,
    failed: false,
    error: null,
    ...over,
  };
}

function slice(over: Partial<SandboxTimeRecord>): SandboxTimeRecord {
  return { at: '2026-11-20T10:00:00.000Z', threadId: 't1', folder: '/work/app', provider: 'daytona', sandboxId: 'sb-1', seconds: 30, costUsd: null, ...over };
}

describe('UsageLedger', () => {
  it('keeps every record across a reopen, and sums by thread, day and model', () => {
    const file = join(dir, 'deepdesk.db');
    let db = openDatabase(file);
    let ledger = new UsageLedger(db);
    recordRow(ledger, call({ threadId: 't1', costUsd: 0.002 }));
    recordRow(ledger, call({ threadId: 't1', at: '2026-11-21T09:00:00.000Z', subagent: 'reviewer', cacheReadTokens: 40 }));
    recordRow(ledger, call({ threadId: 't2', provider: 'openai-compatible', model: 'qwen3', costUsd: null, at: '2026-11-21T11:00:00.000Z' }));
    recordRow(ledger, call({ threadId: 't2', failed: true, error: 'refused', inputTokens: 0, outputTokens: 0, costUsd: null, at: '2026-11-22T00:00:00.000Z', provider: 'openai-compatible', model: 'qwen3' }));
    ledger.close();
    db.close();

    db = openDatabase(file);
    ledger = new UsageLedger(db);
    expect(ledger.calls()).toHaveLength(4);
    expect(ledger.calls('t1').map((c) => c.subagent)).toEqual([null, 'reviewer']);
    expect(ledger.threadSums('t1').costUsd).toBeCloseTo(0.003, 12);

    const byThread = ledger.report({ by: 'thread' });
    expect(byThread.rows.map((r) => [r.key, r.calls, r.failedCalls, r.unpricedCalls, r.inputTokens, r.cacheReadTokens])).toEqual([
      ['t1', 2, 0, 0, 200, 40],
      ['t2', 2, 1, 2, 100, 0],
    ]);
    expect(byThread.total).toMatchObject({ calls: 4, failedCalls: 1, unpricedCalls: 2, inputTokens: 300, outputTokens: 30, durationMs: 2000 });
    expect(byThread.total.costUsd).toBeCloseTo(0.003, 12);
    expect(ledger.report({ by: 'day' }).rows.map((r) => [r.key, r.calls])).toEqual([
      ['2026-11-20', 1],
      ['2026-11-21', 2],
      ['2026-11-22', 1],
    ]);
    expect(ledger.report({ by: 'model' }).rows.map((r) => r.key)).toEqual(['anthropic:claude-sonnet-4-5', 'openai-compatible:qwen3']);
    const since = ledger.report({ by: 'day', since: '2026-11-21' });
    expect(since.rows.map((r) => r.key)).toEqual(['2026-11-21', '2026-11-22']);
    expect(since.total.calls).toBe(3);
    expect(ledger.report({ by: 'thread', threadId: 't2' }).total.calls).toBe(2);
    ledger.close();
    db.close();
  });

  it('writes a turn’s records together, after the call that made them returned', async () => {
    const db = openDatabase(join(dir, 'deepdesk.db'));
    const ledger = new UsageLedger(db);
    recordRow(ledger, call({}));
    const direct = db.prepare('SELECT COUNT(*) AS n FROM model_calls');
    expect((direct.get() as { n: number }).n).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect((direct.get() as { n: number }).n).toBe(1);
    ledger.close();
    recordRow(ledger, call({}));
    expect(ledger.calls()).toHaveLength(1);
    db.close();
  });

  it('sums a thread’s latest turn, with a cost only when every call of it had a price', () => {
    const db = openDatabase(join(dir, 'deepdesk.db'));
    const ledger = new UsageLedger(db);
    expect(ledger.lastTurn('t1')).toBeUndefined();
    recordRow(ledger, call({ turn: 1, costUsd: 0.5 }));
    recordRow(ledger, call({ turn: 2, costUsd: 0.01, cacheReadTokens: 30 }));
    recordRow(ledger, call({ turn: 2, costUsd: 0.02, subagent: 'reviewer' }));
    expect(ledger.lastTurn('t1')).toEqual({ inputTokens: 200, outputTokens: 20, cacheReadTokens: 30, cacheWriteTokens: 0, costUsd: expect.closeTo(0.03, 12) as number });
    recordRow(ledger, call({ turn: 3, costUsd: 0.01 }));
    recordRow(ledger, call({ turn: 3, costUsd: null }));
    expect(ledger.lastTurn('t1')).toEqual({ inputTokens: 200, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 });
    ledger.close();
    db.close();
  });

  it('prices a call made with no known price at the price known now, and keeps a recorded cost whatever the price now', () => {
    const db = openDatabase(join(dir, 'deepdesk.db'));
    const prices = new Map<string, { input: number; output: number; cacheRead: number; cacheWrite: number }>();
    const ledger = new UsageLedger(db, (id) => prices.get(id) ?? null);
    const local = { provider: 'openai-compatible', model: 'local' };
    recordRow(ledger, call({ ...local, turn: 1, costUsd: null, inputTokens: 1000, cacheReadTokens: 400, outputTokens: 100 }));
    recordRow(ledger, call({ ...local, turn: 2, costUsd: null, inputTokens: 2000, outputTokens: 200 }));
    // Recorded at the price of its day: what it cost then.
    recordRow(ledger, call({ ...local, turn: 3, costUsd: 0.5 }));
    recordRow(ledger, call({ ...local, turn: 3, costUsd: null, failed: true, error: 'refused', inputTokens: 0, outputTokens: 0 }));

    // No price yet: tokens only, and the cost of the priced part.
    expect(ledger.threadSums('t1')).toMatchObject({ calls: 4, unpricedCalls: 3, costUsd: 0.5 });
    expect(ledger.report({ by: 'day' }).rows[0]).toMatchObject({ calls: 4, unpricedCalls: 3, costUsd: 0.5 });
    expect(ledger.report({ by: 'day', threadId: 'nobody' }).total).toMatchObject({ calls: 0, costUsd: 0 });
    expect(ledger.lastTurn('t1')?.costUsd).toBeUndefined();

    // The person sets a price: the calls made without one are priced by it — uncached input,
    // cache reads, output — the recorded cost stays, and a failed call with no tokens costs nothing.
    prices.set('openai-compatible:local', { input: 10, output: 20, cacheRead: 1, cacheWrite: 10 });
    const first = (600 * 10 + 400 * 1 + 100 * 20) / 1e6;
    const second = (2000 * 10 + 200 * 20) / 1e6;
    const sums = ledger.threadSums('t1');
    expect(sums).toMatchObject({ calls: 4, unpricedCalls: 0, failedCalls: 1 });
    expect(sums.costUsd).toBeCloseTo(first + second + 0.5, 12);
    const byModel = ledger.report({ by: 'model' });
    expect(byModel.rows).toHaveLength(1);
    expect(byModel.rows[0]!.costUsd).toBeCloseTo(first + second + 0.5, 12);
    expect(byModel.total.costUsd).toBeCloseTo(first + second + 0.5, 12);
    expect(ledger.lastTurn('t1')?.costUsd).toBeCloseTo(0.5, 12);
    recordRow(ledger, call({ ...local, turn: 4, costUsd: null, inputTokens: 1000, outputTokens: 0 }));
    expect(ledger.lastTurn('t1')?.costUsd).toBeCloseTo(0.01, 12);

    // Changed again: the calls it prices follow; the recorded one does not move.
    prices.set('openai-compatible:local', { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
    expect(ledger.threadSums('t1').costUsd).toBeCloseTo(0.5, 12);
    ledger.close();
    db.close();
  });

  it('sorts threads and models by cost, a group with no known price after the priced ones, and says unknown with null, never $0', () => {
    const db = openDatabase(join(dir, 'deepdesk.db'));
    const ledger = new UsageLedger(db, () => null);
    recordRow(ledger, call({ threadId: 'cheap', costUsd: 0.001 }));
    recordRow(ledger, call({ threadId: 'unknown', costUsd: null }));
    recordRow(ledger, call({ threadId: 'unknown', costUsd: null }));
    recordRow(ledger, call({ threadId: 'dear', costUsd: 0.5 }));
    recordRow(ledger, call({ threadId: 'mixed', costUsd: 0.01 }));
    recordRow(ledger, call({ threadId: 'mixed', costUsd: null }));
    const { rows, total } = ledger.report({ by: 'thread' });
    expect(rows.map((r) => [r.key, r.costUsd, r.unpricedCalls])).toEqual([
      ['dear', 0.5, 0],
      ['mixed', 0.01, 1],
      ['cheap', 0.001, 0],
      ['unknown', null, 2],
    ]);
    expect(total).toMatchObject({ calls: 6, unpricedCalls: 3 });
    expect(total.costUsd).toBeCloseTo(0.511, 12);
    ledger.close();
    db.close();
  });

  it('reads a day as its start in UTC and refuses what is not a date', () => {
    expect(sinceInstant('2026-11-21')).toBe('2026-11-21T00:00:00.000Z');
    expect(sinceInstant('2026-11-21T10:00:00+02:00')).toBe('2026-11-21T08:00:00.000Z');
    expect(() => sinceInstant('last week')).toThrow(/not a date/);
  });
});

describe('UsageLedger sandbox time', () => {
  it('writes each slice at once, keeps them across a reopen, and sums them by thread, day and provider', () => {
    const file = join(dir, 'deepdesk.db');
    let db = openDatabase(file);
    let ledger = new UsageLedger(db);
    // Small slices, as a running sandbox reports them: each is in the database when the call returns.
    for (let i = 0; i < 120; i++) ledger.recordSandboxTime(slice({ at: `2026-11-20T10:${String(Math.floor(i / 2)).padStart(2, '0')}:${i % 2 === 0 ? '00' : '30'}.000Z`, costUsd: 0.0001 }));
    expect((db.prepare('SELECT COUNT(*) AS n, SUM(seconds) AS s FROM sandbox_time').get() as { n: number; s: number })).toEqual({ n: 120, s: 3600 });
    ledger.recordSandboxTime(slice({ at: '2026-11-21T08:00:00.000Z', threadId: 't2', provider: 'e2b', sandboxId: 'sb-2', seconds: 200 }));
    ledger.recordSandboxTime(slice({ at: '2026-11-21T09:00:00.000Z', threadId: null, provider: 'modal', sandboxId: 'sb-3', seconds: 12.5, costUsd: 0.002 }));
    ledger.recordSandboxTime(slice({ at: '2026-11-22T09:00:00.000Z', threadId: 't2', provider: 'daytona', sandboxId: 'sb-4', seconds: 60, costUsd: 0.01 }));
    // No time is no slice.
    ledger.recordSandboxTime(slice({ seconds: 0 }));
    ledger.recordSandboxTime(slice({ seconds: Number.NaN }));
    ledger.close();
    db.close();

    db = openDatabase(file);
    ledger = new UsageLedger(db);
    const byThread = ledger.sandboxUsage({ by: 'thread' });
    expect(byThread.rows.map((r) => [r.key, r.provider, r.seconds, r.unpricedSeconds, r.firstAt, r.lastAt])).toEqual([
      ['t1', 'daytona', 3600, undefined, '2026-11-20T10:00:00.000Z', '2026-11-20T10:59:30.000Z'],
      ['t2', 'daytona', 60, undefined, '2026-11-22T09:00:00.000Z', '2026-11-22T09:00:00.000Z'],
      ['', 'modal', 12.5, undefined, '2026-11-21T09:00:00.000Z', '2026-11-21T09:00:00.000Z'],
      // No price known: its time counts, its cost is null, never $0.
      ['t2', 'e2b', 200, 200, '2026-11-21T08:00:00.000Z', '2026-11-21T08:00:00.000Z'],
    ]);
    expect(byThread.rows[0]!.costUsd).toBeCloseTo(0.012, 12);
    expect(byThread.rows[3]!.costUsd).toBeNull();
    expect(byThread.total).toMatchObject({ seconds: 3872.5, unpricedSeconds: 200 });
    expect(byThread.total.costUsd).toBeCloseTo(0.024, 12);

    expect(ledger.sandboxUsage({ by: 'day' }).rows.map((r) => [r.key, r.provider, r.seconds])).toEqual([
      ['2026-11-20', 'daytona', 3600],
      ['2026-11-21', 'e2b', 200],
      ['2026-11-21', 'modal', 12.5],
      ['2026-11-22', 'daytona', 60],
    ]);
    expect(ledger.sandboxUsage({ by: 'model' }).rows.map((r) => [r.key, r.provider, r.seconds])).toEqual([
      ['sandbox:daytona', 'daytona', 3660],
      ['sandbox:modal', 'modal', 12.5],
      ['sandbox:e2b', 'e2b', 200],
    ]);
    const since = ledger.sandboxUsage({ by: 'day', since: '2026-11-21' });
    expect(since.rows.map((r) => r.key)).toEqual(['2026-11-21', '2026-11-21', '2026-11-22']);
    expect(since.total.seconds).toBe(272.5);
    expect(ledger.sandboxUsage({ by: 'model', threadId: 't2' }).rows.map((r) => r.key)).toEqual(['sandbox:daytona', 'sandbox:e2b']);
    expect(ledger.sandboxUsage({ by: 'thread', threadId: 'nobody' })).toEqual({ rows: [], total: { seconds: 0, costUsd: null } });
    ledger.close();
    db.close();
  });

  it('prices time recorded with no price at the provider’s price per hour now; a recorded cost stays whatever the price now', () => {
    const db = openDatabase(join(dir, 'deepdesk.db'));
    const perHour = new Map<string, number>();
    const ledger = new UsageLedger(db, undefined, (provider) => perHour.get(provider) ?? null);
    ledger.recordSandboxTime(slice({ seconds: 1800 }));
    ledger.recordSandboxTime(slice({ seconds: 900 }));
    // Recorded at the price of its day.
    ledger.recordSandboxTime(slice({ seconds: 900, costUsd: 0.5 }));

    expect(ledger.sandboxUsage({ by: 'model' }).rows).toEqual([
      { key: 'sandbox:daytona', provider: 'daytona', seconds: 3600, costUsd: 0.5, unpricedSeconds: 2700, firstAt: '2026-11-20T10:00:00.000Z', lastAt: '2026-11-20T10:00:00.000Z' },
    ]);

    perHour.set('daytona', 0.2);
    const priced = ledger.sandboxUsage({ by: 'model' });
    expect(priced.rows[0]!.unpricedSeconds).toBeUndefined();
    expect(priced.rows[0]!.costUsd).toBeCloseTo(0.5 + 0.75 * 0.2, 12);
    expect(priced.total.costUsd).toBeCloseTo(0.65, 12);

    perHour.set('daytona', 0);
    expect(ledger.sandboxUsage({ by: 'thread' }).rows[0]!.costUsd).toBeCloseTo(0.5, 12);
    ledger.close();
    db.close();
  });

  it('counts sandbox time in a thread’s cost, with its model calls, each priced as read now', () => {
    const db = openDatabase(join(dir, 'deepdesk.db'));
    const perHour = new Map<string, number>();
    const ledger = new UsageLedger(db, () => null, (provider) => perHour.get(provider) ?? null);
    // Nothing of it in the ledger: no cost at all.
    expect(ledger.threadCost('t1')).toBeUndefined();

    // Only sandbox time, of no known price: a cost that is not known (not $0).
    ledger.recordSandboxTime(slice({ threadId: 'box-only', seconds: 600 }));
    expect(ledger.threadCost('box-only')).toBeNull();
    perHour.set('daytona', 0.36);
    expect(ledger.threadCost('box-only')).toBeCloseTo(0.06, 12);

    // Calls and time: both count; another thread's do not.
    recordRow(ledger, call({ threadId: 't1', costUsd: 0.25 }));
    recordRow(ledger, call({ threadId: 't1', costUsd: null }));
    ledger.recordSandboxTime(slice({ threadId: 't1', seconds: 3600, costUsd: 1 }));
    ledger.recordSandboxTime(slice({ threadId: 't1', seconds: 1800, provider: 'e2b' }));
    expect(ledger.threadCost('t1')).toBeCloseTo(1.25, 12);
    perHour.set('e2b', 2);
    expect(ledger.threadCost('t1')).toBeCloseTo(2.25, 12);
    // Calls alone, none priced: null, as before there was sandbox time.
    recordRow(ledger, call({ threadId: 'calls-only', costUsd: null }));
    expect(ledger.threadCost('calls-only')).toBeNull();
    ledger.close();
    db.close();
  });

  it('writes no slice once closed, and loses a slice (never throws) when the database refuses it', () => {
    const db = openDatabase(join(dir, 'deepdesk.db'));
    const ledger = new UsageLedger(db);
    db.exec('CREATE TRIGGER refuse BEFORE INSERT ON sandbox_time BEGIN SELECT RAISE(ABORT, \'busy\'); END');
    expect(() => ledger.recordSandboxTime(slice({}))).not.toThrow();
    db.exec('DROP TRIGGER refuse');
    ledger.close();
    ledger.recordSandboxTime(slice({}));
    expect(ledger.sandboxUsage({ by: 'thread' }).rows).toEqual([]);
    db.close();
  });
});
