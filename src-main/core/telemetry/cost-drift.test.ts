// Cost drift (SPEC §26) over a real SQLite ledger: rows written by the ledger's own observer of
// the metering point (the one every model call reports to), each step's answer with its tool
// calls; a subagent's steps count in its parent's turn.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../backends/store/store';
import { costDrifts } from './cost-drift';
import { recordRow } from './ledger-rows.test-support';
import type { AgentRunInfo } from './observer';
import { UsageLedger } from './usage-ledger';

let dir: string;
let db: Database.Database;
let ledger: UsageLedger;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deepdesk-cost-drift-'));
  db = openDatabase(join(dir, 'deepdesk.db'));
  ledger = new UsageLedger(db);
});
afterEach(() => {
  ledger.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const ZERO = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
const info = (threadId: string, turn: number): AgentRunInfo => ({ threadId, turn, agentName: 'deepdesk', depth: 0, provider: 'anthropic', model: 'claude-sonnet-4-5' });
const call = { purpose: 'agent' as const, provider: 'anthropic' as const, model: 'claude-sonnet-4-5', system: '', messages: [], tools: [] };
const asked = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `c${i}`, name: 'ls', args: {} }));

/** One turn: a step asking for `tools` tool calls, then the answer; `usd` split between them. */
function turn(threadId: string, n: number, usd: number, tools = 1): void {
  const run = ledger.telemetry().turn(info(threadId, n));
  run.modelCall(call).end({ usage: ZERO, costUsd: usd / 2, durationMs: 1, toolCalls: asked(tools) });
  run.modelCall(call).end({ usage: ZERO, costUsd: usd / 2, durationMs: 1, toolCalls: [] });
  run.end({ reason: 'completed', text: '' });
}

const drifts = () => costDrifts(ledger.turns());

describe('cost drift', () => {
  it('a 4th turn at 3× the median of three earlier ones, with as many tool calls, drifts by 3; only it', () => {
    for (const n of [1, 2, 3]) turn('t', n, 0.01);
    turn('t', 4, 0.03);
    expect(drifts()).toEqual([{ thread: 't', turn: 4, ratio: 3 }]);
    // A fifth turn back at the usual cost is none; the median of four (0.01, 0.01, 0.01, 0.03) is 0.01.
    turn('t', 5, 0.01);
    turn('t', 6, 0.021);
    expect(drifts()).toEqual([
      { thread: 't', turn: 4, ratio: 3 },
      { thread: 't', turn: 6, ratio: 2.1 },
    ]);
  });

  it('a costly turn that asked for more tool calls than the median did is no drift', () => {
    for (const n of [1, 2, 3]) turn('t', n, 0.01);
    turn('t', 4, 0.03, 2);
    expect(drifts()).toEqual([]);
  });

  it('fewer than three earlier turns judge nothing; under 2× is none', () => {
    turn('a', 1, 0.01);
    turn('a', 2, 0.01);
    turn('a', 3, 0.05);
    for (const n of [1, 2, 3]) turn('b', n, 0.01);
    turn('b', 4, 0.0199);
    expect(drifts()).toEqual([]);
  });

  it('a subagent’s steps count in its parent’s turn: its cost and its tool calls', () => {
    for (const n of [1, 2, 3]) turn('t', n, 0.01);
    const run = ledger.telemetry().turn(info('t', 4));
    run.modelCall(call).end({ usage: ZERO, costUsd: 0.005, durationMs: 1, toolCalls: asked(1) });
    const sub = run.toolCall({ id: 'task_1', name: 'task', args: {} }).subagent({ ...info('t', 4), agentName: 'general-purpose', depth: 1, parentToolCallId: 'task_1' });
    sub.modelCall(call).end({ usage: ZERO, costUsd: 0.02, durationMs: 1, toolCalls: asked(3) });
    run.modelCall(call).end({ usage: ZERO, costUsd: 0.005, durationMs: 1, toolCalls: [] });
    expect(ledger.turns().find((t) => t.turn === 4)).toMatchObject({ toolCalls: 4 });
    expect(drifts()).toEqual([]);
  });

  it('a turn whose cost or tool calls are not known is neither judged nor counted as an earlier one', () => {
    for (const n of [1, 2]) turn('t', n, 0.01);
    // Written before the ledger counted tool calls: unknown.
    recordRow(ledger, { id: 'old', at: new Date().toISOString(), threadId: 't', turn: 3, subagent: null, purpose: 'agent', provider: 'anthropic', model: 'claude-sonnet-4-5', ...ZERO, costUsd: 0.01, durationMs: 1, failed: false, error: null });
    turn('t', 4, 0.03);
    expect(ledger.turns().map((t) => t.toolCalls)).toEqual([1, 1, null, 1]);
    expect(drifts()).toEqual([]);
    turn('t', 5, 0.03);
    // Earlier known: 0.01, 0.01, 0.03 — the median is 0.01.
    expect(drifts()).toEqual([{ thread: 't', turn: 5, ratio: 3 }]);
  });

  it('a model of no known price leaves its turns out', () => {
    for (const n of [1, 2, 3]) turn('t', n, 0.01);
    const run = ledger.telemetry().turn(info('t', 4));
    run.modelCall(call).end({ usage: { ...ZERO, inputTokens: 1_000_000 }, durationMs: 1, toolCalls: [] });
    expect(ledger.turns().at(-1)).toMatchObject({ turn: 4, costUsd: null });
    expect(drifts()).toEqual([]);
  });
});
