// The budget tree (SPEC §26): every call holds its worst case — its prompt and the most it may
// answer, at the model's price — against every node from its own up before it goes, settles at
// the usage reported, keeps its worst case when cut short with none; a call over a cap waits,
// paused, until the cap is raised.
import { describe, expect, it } from 'vitest';
import { BudgetExceededError, SpendRoom, type Pause, type SpendCaps } from './spend-tree';

const model = { id: 'scripted', price: { input: 10, output: 10, cacheRead: 10, cacheWrite: 10 } };
const usage = (input: number, output = 0) => ({ inputTokens: input, outputTokens: output, cacheReadTokens: 0, cacheWriteTokens: 0 });

function tree(caps: { workspace?: SpendCaps; thread?: SpendCaps; set?: SpendCaps } = {}) {
  const room = new SpendRoom({ caps: () => caps.workspace ?? {} }, true);
  const folder = room.workspace.child({ kind: 'folder', id: '/w', label: "the folder's budget" });
  const set = folder.child({ kind: 'fanout', id: 'candidates', label: "the candidates' set's budget", caps: () => caps.set ?? {} });
  const thread = (id: string, under = folder) => under.child({ kind: 'thread', id, label: "the thread's budget", scope: `thread:${id}`, caps: () => caps.thread ?? {} });
  return { room, folder, set, thread };
}

describe('the budget tree', () => {
  it('holds against every ancestor: calls under way in one thread count against another’s under the same set', () => {
    const caps = { set: { maxCostUsd: 0.25 } };
    const { set, thread } = tree(caps);
    const a = thread('a', set);
    const b = thread('b', set);
    expect(a.active).toBe(true);
    const heldA = a.holdNow(model, 10_000, 0); // $0.10
    const heldB = b.holdNow(model, 10_000, 0); // $0.10, $0.20 under way
    expect(() => a.holdNow(model, 10_000, 0)).toThrow(BudgetExceededError);
    expect(() => b.holdNow(model, 10_000, 0)).toThrow("stopped: the candidates' set's budget of $0.25 is spent ($0.20 + this call's $0.10)");
    heldA.spend(usage(10_000), 0.1);
    heldB.release();
    b.holdNow(model, 10_000, 0).spend(usage(10_000), 0.1);
    expect(set.snapshot()).toMatchObject({ spentUsd: expect.closeTo(0.2), heldUsd: 0, capUsd: 0.25, inputTokens: 20_000 });
    expect(set.snapshot().children.map((c) => c.spentUsd)).toEqual([expect.closeTo(0.1), expect.closeTo(0.1)]);
  });

  it('a call the thread refuses holds nothing above it', () => {
    const { room, thread } = tree({ thread: { maxCostUsd: 0.05 }, workspace: { dailyUsd: 1 } });
    expect(() => thread('a').holdNow(model, 10_000, 0)).toThrow(/the thread's budget of \$0\.05/);
    expect(room.workspace.snapshot().heldUsd).toBe(0);
  });

  it('a call’s worst case is its prompt and its max_tokens at the price, whatever earlier calls answered', () => {
    const { thread } = tree({ thread: { maxCostUsd: 0.2 } });
    const t = thread('a');
    expect(() => t.holdNow(model, 1_000, 20_000)).toThrow("stopped: the thread's budget of $0.20 is spent ($0.00 + this call's $0.21)");
    for (let i = 0; i < 3; i++) t.holdNow(model, 1_000, 5_000).spend(usage(1_000, 10), 0.0101);
    expect(() => t.holdNow(model, 1_000, 16_000)).toThrow("($0.03 + this call's $0.17)");
  });

  it('settles at the usage reported; cut short with none, keeps its worst case at every node', () => {
    const { room, thread } = tree({ workspace: { dailyUsd: 10 } });
    const t = thread('a');
    t.holdNow(model, 1_000, 20_000).spend(usage(1_000, 50), 0.0105);
    expect(t.holdNow(model, 1_000, 20_000).keep()).toBeCloseTo(0.21, 9);
    t.holdNow(model, 1_000, 20_000).release();
    expect(t.spentUsd).toBeCloseTo(0.2205, 9);
    expect(room.workspace.spentUsd).toBeCloseTo(0.2205, 9);
  });

  it('the workspace’s day, tokens and what is spent unattended are caps too; touching the thread resets the last', () => {
    const caps: { workspace: SpendCaps; thread: SpendCaps } = { workspace: {}, thread: { unattendedUsd: 0.15 } };
    const room = new SpendRoom({ caps: () => caps.workspace, before: () => ({ usd: 5, todayUsd: 0.95 }) });
    const t = room.workspace.child({ kind: 'thread', id: 't', label: "the thread's budget", caps: () => caps.thread });
    t.holdNow(model, 10_000, 0).spend(usage(10_000), 0.1);
    expect(() => t.holdNow(model, 10_000, 0)).toThrow(/what the thread's budget lets be spent unattended, \$0\.15 is spent/);
    t.touch();
    t.holdNow(model, 10_000, 0).spend(usage(10_000), 0.1);
    caps.workspace = { dailyUsd: 1.1 };
    t.touch();
    expect(() => t.holdNow(model, 10_000, 0)).toThrow("stopped: the workspace's daily limit of $1.10 is spent ($1.15 + this call's $0.10)");
    caps.workspace = {};
    caps.thread = { maxTokens: 25_000 };
    expect(() => t.holdNow(model, 10_000, 0)).toThrow("stopped: the thread's budget of 25,000 tokens is spent (20,000 + this call's 10,000)");
  });

  it('an unpriced model cannot be held to a dollar cap', () => {
    const { thread } = tree({ thread: { maxCostUsd: 1 } });
    expect(() => thread('a').holdNow({ id: 'x:unknown', price: null } as never, 10, 10)).toThrow(/the price of x:unknown is unknown/);
  });

  it('over a cap a call waits, paused, and goes on when the cap is raised; the tree shows the line meanwhile', async () => {
    const caps = { thread: { maxCostUsd: 0.15 } as SpendCaps };
    const { room, thread } = tree(caps);
    const t = thread('a');
    t.holdNow(model, 10_000, 0).spend(usage(10_000), 0.1);
    const told: Array<Pause | undefined> = [];
    const waiting = t.hold(model, 10_000, 0, { onPause: (pause) => told.push(pause) });
    await expect.poll(() => t.snapshot().paused).toBe("paused: the thread's budget of $0.15 is spent ($0.10 + this call's $0.10)");
    room.raised(); // nothing changed: it waits on
    await new Promise((r) => setTimeout(r, 10));
    expect(t.snapshot().paused).toBeDefined();
    caps.thread = { maxCostUsd: 1 };
    room.raised();
    (await waiting).spend(usage(10_000), 0.1);
    expect(told).toEqual([{ line: expect.stringMatching(/^paused: /), key: 'maxCostUsd', cap: 0.15, scope: 'thread:a' }, undefined]);
    expect(t.snapshot()).toMatchObject({ spentUsd: expect.closeTo(0.2) });
    expect(t.snapshot().paused).toBeUndefined();
  });

  it('a paused call stopped by its run holds nothing', async () => {
    const { room, thread } = tree({ thread: { maxCostUsd: 0.05 } });
    const stop = new AbortController();
    const waiting = thread('a').hold(model, 10_000, 0, { signal: stop.signal });
    stop.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    expect(room.workspace.snapshot().heldUsd).toBe(0);
  });
});
