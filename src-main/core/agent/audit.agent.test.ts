// What a run reports to its audit (SPEC §17): every model call — the agent's, a subagent's,
// a summary's, a failed one — with the provider's numbers and its cost, every tool call with
// who decided it, and budgets that stop a run before the call that would cross them. Real
// agent loop, real provider client, scripted server, real SQLite ledger.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../backends/store/store';
import { combineTelemetry } from '../telemetry/observer';
import { recordingTelemetry } from '../telemetry/recording-telemetry.test-support';
import { UsageLedger } from '../telemetry/usage-ledger';
import { createHarness, type Harness } from './agent-harness.test-support';
import { budgetOf } from '../spend/spend-tree.test-support';
import type { PermissionRule } from './permissions/rules';

const MODEL = 'openai-compatible:scripted-model';
const PRICE = { input: 1, output: 2 }; // USD per million tokens; cache prices default to the input price
const WRITE_ASKS: PermissionRule[] = [
  { tools: ['write_file'], decision: 'ask' },
  { tools: ['*'], decision: 'allow' },
];

let h: Harness;
let dir: string;
let db: Database.Database;
let ledger: UsageLedger;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deepdesk-audit-'));
  db = openDatabase(join(dir, 'deepdesk.db'));
  ledger = new UsageLedger(db);
});

afterEach(async () => {
  await h?.dispose();
  ledger.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a run reports to its audit', () => {
  it('every model call with the provider’s numbers and cost, tool calls with who decided, a subagent under its task call', async () => {
    h = await createHarness({
      rules: WRITE_ASKS,
      decisions: [{ type: 'approve' }],
      prices: { [MODEL]: PRICE },
      script: [
        {
          toolCalls: [
            { name: 'write_file', args: { file_path: '/a.txt', content: 'x' } },
            { name: 'task', args: { description: 'look around', subagent_type: 'general-purpose' } },
          ],
          usage: { promptTokens: 100, completionTokens: 10, cachedTokens: 40 },
        },
        { text: 'found it', usage: { promptTokens: 50, completionTokens: 5 } },
        { text: 'done', usage: { promptTokens: 200, completionTokens: 20 } },
      ],
    });
    const recorded = recordingTelemetry();
    const result = await h.run('do it', undefined, { telemetry: combineTelemetry([ledger.telemetry(), recorded])!, folder: '/project' });
    expect(result.reason).toBe('completed');

    const [turn] = recorded.turns;
    expect(recorded.turns).toHaveLength(1);
    expect(turn!.info).toMatchObject({ threadId: 'thread-1', turn: 1, agentName: 'deepdesk', depth: 0, provider: 'openai-compatible', model: 'scripted-model', folder: '/project' });
    expect(turn!.modelCalls.map((c) => [c.info.purpose, c.outcome?.usage])).toEqual([
      ['agent', { inputTokens: 100, outputTokens: 10, cacheReadTokens: 40, cacheWriteTokens: 0 }],
      ['agent', { inputTokens: 200, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 }],
    ]);
    const write = turn!.toolCalls.find((t) => t.info.name === 'write_file')!;
    const task = turn!.toolCalls.find((t) => t.info.name === 'task')!;
    expect(write.decisions).toEqual([{ decision: 'approve', by: 'person' }]);
    expect(task.decisions).toEqual([{ decision: 'allow', by: 'rule' }]);
    expect(write.outcome).toMatchObject({ isError: false });
    expect(task.subagents).toHaveLength(1);
    expect(task.subagents[0]!.info).toMatchObject({ threadId: 'thread-1', turn: 1, agentName: 'general-purpose', depth: 1, parentToolCallId: task.info.id });
    expect(task.subagents[0]!.modelCalls[0]!.outcome?.usage).toEqual({ inputTokens: 50, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(task.subagents[0]!.end?.reason).toBe('completed');
    expect(turn!.end).toMatchObject({ reason: 'completed', text: 'done' });

    const rows = ledger.calls('thread-1');
    expect(rows.map((r) => [r.turn, r.subagent, r.purpose, r.provider, r.model, r.inputTokens, r.outputTokens, r.cacheReadTokens, r.cacheWriteTokens, r.failed])).toEqual([
      [1, null, 'agent', 'openai-compatible', 'scripted-model', 100, 10, 40, 0, false],
      [1, 'general-purpose', 'agent', 'openai-compatible', 'scripted-model', 50, 5, 0, 0, false],
      [1, null, 'agent', 'openai-compatible', 'scripted-model', 200, 20, 0, 0, false],
    ]);
    const costs = [(60 * 1 + 40 * 1 + 10 * 2) / 1e6, (50 + 5 * 2) / 1e6, (200 + 20 * 2) / 1e6];
    rows.forEach((row, i) => expect(row.costUsd).toBeCloseTo(costs[i]!, 12));
    // The thread's own totals count the subagent's call too, and agree with the ledger.
    expect(h.state.usage.costUsd).toBeCloseTo(costs.reduce((a, b) => a + b), 12);
    expect(ledger.threadSums('thread-1').costUsd).toBeCloseTo(h.state.usage.costUsd!, 12);
    // The run's own `done` says what it used and cost, its subagent's call included.
    const done = h.events.filter((e) => e.type === 'done' && e.parentToolCallId === undefined).at(-1) as { usage?: { costUsd?: number } };
    expect(done.usage).toMatchObject({ inputTokens: 350, outputTokens: 35, cacheReadTokens: 40, cacheWriteTokens: 0 });
    expect(done.usage?.costUsd).toBeCloseTo(costs.reduce((a, b) => a + b), 12);
    for (const row of rows) expect(row.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('counts turns, and records a failed call and the summary that follows it', async () => {
    const overflow = { error: { status: 400, body: { error: { message: "This model's maximum context length is 10 tokens.", code: 'context_length_exceeded', type: 'invalid_request_error' } } } };
    h = await createHarness({
      script: [
        { text: 'first', usage: { promptTokens: 10, completionTokens: 1 } },
        overflow,
        { text: '## Intent\nx\n## Done so far\ny', usage: { promptTokens: 70, completionTokens: 7 } },
        { text: 'answered after summary', usage: { promptTokens: 30, completionTokens: 3 } },
      ],
    });
    const telemetry = ledger.telemetry();
    await h.run('one', undefined, { telemetry });
    for (let i = 0; i < 6; i++) h.state.messages.push({ role: 'user', content: `old ${i}` }, { role: 'assistant', content: `reply ${i}` });
    const result = await h.run('two', undefined, { telemetry });
    expect(result.reason).toBe('completed');
    const rows = ledger.calls('thread-1');
    expect(rows.map((r) => [r.turn, r.purpose, r.inputTokens, r.outputTokens, r.failed, r.costUsd])).toEqual([
      [1, 'agent', 10, 1, false, null],
      [8, 'agent', 0, 0, true, null],
      [8, 'summarization', 70, 7, false, null],
      [8, 'agent', 30, 3, false, null],
    ]);
    expect(rows[1]!.error).toContain('maximum context length');
    // A summary's tokens count in the thread's totals as any call's.
    expect(h.state.usage).toMatchObject({ inputTokens: 110, outputTokens: 11 });
    expect(ledger.report({ by: 'model' }).total).toMatchObject({ calls: 4, failedCalls: 1, unpricedCalls: 4, inputTokens: 110, costUsd: null });
    // The second run's usage, its summary included; no cost, as its model has no price.
    const done = h.events.filter((e) => e.type === 'done').at(-1) as { usage?: Record<string, number> };
    expect(done.usage).toEqual({ inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it('says which calls the mode and a plan mode decided', async () => {
    h = await createHarness({
      mode: 'edit',
      rules: [],
      script: [{ toolCalls: [{ name: 'write_file', args: { file_path: '/b.txt', content: 'y' } }] }, { text: 'ok' }],
    });
    const recorded = recordingTelemetry();
    await h.run('write', undefined, { telemetry: recorded });
    expect(recorded.turns[0]!.toolCalls[0]!.decisions).toEqual([{ decision: 'allow', by: 'mode' }]);
  });
});

describe('budgets', () => {
  it('stop a run before the model call that would cross the run’s budget, with one line, and make no such call', async () => {
    h = await createHarness({
      prices: { [MODEL]: { input: 10, output: 10 } },
      script: [
        { toolCalls: [{ name: 'ls', args: { path: '/' } }], usage: { promptTokens: 20_000, completionTokens: 10 } },
        { text: 'never asked' },
      ],
    });
    // The first call's prompt (a few thousand tokens) is estimated well under $0.21, and costs
    // $0.2001; the second's estimate would take the run past $0.21.
    const result = await h.run('list', undefined, { telemetry: ledger.telemetry(), budget: budgetOf({ maxCostUsd: 0.21 }) });
    expect(result.reason).toBe('budget');
    expect(h.server.requests).toHaveLength(1);
    const errors = h.events.filter((e) => e.type === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ budget: true });
    const line = (errors[0] as { message: string }).message;
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toMatch(/^stopped: this run's budget of \$0\.21 is spent \(\$0\.20 \+ this call's \$0\.\d+\)$/);
    expect(h.events.at(-1)).toMatchObject({ type: 'done', reason: 'budget' });
    expect(ledger.calls('thread-1')).toHaveLength(1);
  });

  // SPEC §26 changed what such a call keeps: its worst case (its prompt and the most it may
  // answer), where it kept its prompt and this run's average answer.
  it('count a call the provider began answering and that was cut short with no usage at its worst case, as another agent’s (issue 78): its hold is kept, its row says so', async () => {
    h = await createHarness({ prices: { [MODEL]: PRICE }, script: [{ disconnect: true, text: 'half an answ' }, { text: 'whole', usage: { promptTokens: 100, completionTokens: 10 } }] });
    const budget = budgetOf({ maxCostUsd: 1 });
    await h.run('hi', undefined, { telemetry: ledger.telemetry(), budget });
    const [cut] = ledger.calls('thread-1');
    expect(cut).toMatchObject({ failed: true, inputTokens: 0, outputTokens: 0 });
    expect(cut!.error).toContain('counted at its worst case');
    // Its prompt at the input price and the most an unknown model answers (4,096 tokens) at the output price.
    expect(cut!.costUsd).toBeGreaterThan((4_096 * PRICE.output) / 1_000_000);
    // Held before it went and kept: the budget spent what the row says, as for each call.
    expect(budget.spentUsd).toBeCloseTo(ledger.calls('thread-1').reduce((sum, c) => sum + (c.costUsd ?? 0), 0), 12);
  });

  it('count a call cut short with no usage at its worst case without a budget too: its ledger row’s cost', async () => {
    h = await createHarness({ prices: { [MODEL]: PRICE }, script: [{ disconnect: true, text: 'half an answ' }] });
    await h.run('hi', undefined, { telemetry: ledger.telemetry() });
    const [cut] = ledger.calls('thread-1');
    expect(cut).toMatchObject({ failed: true, inputTokens: 0, outputTokens: 0 });
    expect(cut!.error).toContain('counted at its worst case');
    expect(cut!.costUsd).toBeGreaterThan((4_096 * PRICE.output) / 1_000_000);
  });

  it('hold each call’s worst case: calls billing 100,000 tokens each under $0.50 stop before the one that could cross, never all six served', async () => {
    const step = (i: number) => ({ toolCalls: [{ name: 'ls', args: { path: `/${i}` } }], usage: { promptTokens: 100_000, completionTokens: 0 } });
    h = await createHarness({ prices: { [MODEL]: { input: 1, output: 1 } }, script: [...Array.from({ length: 6 }, (_, i) => step(i)), { text: 'done' }] });
    const result = await h.run('list it six times', undefined, { telemetry: ledger.telemetry(), budget: budgetOf({ maxCostUsd: 0.5 }) });
    expect(result.reason).toBe('budget');
    expect(h.server.requests.length).toBeLessThan(6);
    const spent = ledger.calls('thread-1').reduce((sum, c) => sum + (c.costUsd ?? 0), 0);
    expect(spent).toBeLessThanOrEqual(0.5 + 0.1);
    // Four calls ($0.40) fit; the fifth's worst case (its prompt of about 100,000 tokens and 4,096 answered) would not.
    expect(h.server.requests).toHaveLength(4);
    expect(spent).toBeCloseTo(0.4, 9);
    expect(result.error?.message).toMatch(/^stopped: this run's budget of \$0\.50 is spent \(\$0\.40 \+ this call's \$0\.1\d\)$/);
  });

  it('count what the thread cost before this run against the thread’s budget', async () => {
    h = await createHarness({ prices: { [MODEL]: PRICE }, script: [{ text: 'never asked' }] });
    h.state.usage.costUsd = 0.5;
    const result = await h.run('hi', undefined, { budget: budgetOf({ maxCostUsd: 0.5 }, h.state.usage.costUsd, "the thread's budget") });
    expect(result.reason).toBe('budget');
    expect(h.server.requests).toHaveLength(0);
    expect(result.error?.message).toContain("stopped: the thread's budget of $0.50 is spent ($0.50 + this call's");
  });

  it('are not kept by guessing: a model of unknown price is not called under a budget', async () => {
    h = await createHarness({ script: [{ text: 'never asked' }] });
    const result = await h.run('hi', undefined, { budget: budgetOf({ maxCostUsd: 5 }) });
    expect(result.reason).toBe('budget');
    expect(h.server.requests).toHaveLength(0);
    expect(result.error?.message).toBe("stopped: the price of openai-compatible:scripted-model is unknown, so this run's budget of $5.00 cannot be kept (set its price in Settings › Prices)");
  });

  it('hold for subagents: their calls count against the run’s budget', async () => {
    h = await createHarness({
      prices: { [MODEL]: { input: 10, output: 10 } },
      script: [
        { toolCalls: [{ name: 'task', args: { description: 'work', subagent_type: 'general-purpose' } }], usage: { promptTokens: 5_000, completionTokens: 10 } },
        { toolCalls: [{ name: 'ls', args: { path: '/' } }], usage: { promptTokens: 15_000, completionTokens: 10 } },
        { text: 'sub done' },
        { text: 'main done' },
      ],
    });
    const result = await h.run('go', undefined, { budget: budgetOf({ maxCostUsd: 0.21 }) });
    // $0.0501 + $0.1501 spent; the subagent's next call would cross $0.21, and so would the parent's.
    expect(result.reason).toBe('budget');
    expect(h.server.requests).toHaveLength(2);
  });

  it('hold for calls made at once: parallel subagents together never spend past the run’s budget', async () => {
    // Each subagent's call reports less than its worst case (its prompt is counted here at more
    // than a thousand tokens, and it may answer 4,096), so what is held for it covers what it
    // spends. (SPEC §26: the output price is lower than it was, for the worst case holds 4,096
    // answered tokens where the estimate held none.)
    const sub = { text: 'sub done', usage: { promptTokens: 1_000, completionTokens: 0 } };
    h = await createHarness({
      prices: { [MODEL]: { input: 10, output: 1 } },
      script: [
        {
          toolCalls: Array.from({ length: 7 }, (_, i) => ({ name: 'task', args: { description: `part ${i}`, subagent_type: 'general-purpose' } })),
          usage: { promptTokens: 1_000, completionTokens: 0 },
        },
        ...Array.from({ length: 8 }, () => ({ delayMs: 300, then: sub })),
      ],
    });
    // The parent's first call ($0.01) and two subagents' (estimated at about $0.025 each) fit.
    const budget = 0.06;
    await h.run('split it', undefined, { telemetry: ledger.telemetry(), budget: budgetOf({ maxCostUsd: budget }) });
    ledger.flush();
    const spent = ledger.calls('thread-1').reduce((sum, c) => sum + (c.costUsd ?? 0), 0);
    const sevenWouldSpend = 0.01 + 7 * 0.01;
    expect(sevenWouldSpend).toBeGreaterThan(budget);
    expect(h.server.requests.length).toBeLessThan(8);
    expect(h.server.requests.length).toBeGreaterThan(2);
    expect(ledger.calls('thread-1')).toHaveLength(h.server.requests.length);
    expect(spent).toBeLessThanOrEqual(budget);
  });
});

