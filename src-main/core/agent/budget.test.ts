// A budget shared by runs (`run --candidates N --max-cost`, SPEC §21): every call of every run
// holds its worst case in the shared budget before it starts, so runs at once never cross it by
// more than one call; a call the shared budget refuses holds nothing anywhere. A call's worst
// case (SPEC §26) is its prompt and the most it may answer, at the model's price.
import { describe, expect, it } from 'vitest';
import { BudgetExceededError, RunBudget } from './budget';

const model = { id: 'scripted', price: { input: 10, output: 10, cacheRead: 10, cacheWrite: 10 } };
const usage = (input: number, output = 0) => ({ inputTokens: input, outputTokens: output, cacheReadTokens: 0, cacheWriteTokens: 0 });

describe('a shared budget', () => {
  it('holds across runs: calls under way in one run count against another’s next call; the refusal names the set', () => {
    const set = new RunBudget({ runUsd: 0.25, label: "the candidates' set" }, 0);
    const a = new RunBudget({ shared: set }, 0);
    const b = new RunBudget({ shared: set }, 0);
    expect(a.active).toBe(true);
    const heldA = a.reserve(model, 10_000, 0); // about $0.10
    const heldB = b.reserve(model, 10_000, 0); // about $0.10, $0.20 under way
    expect(() => a.reserve(model, 10_000, 0)).toThrow(BudgetExceededError);
    expect(() => b.reserve(model, 10_000, 0)).toThrow(/the candidates' set past its budget of \$0\.2500/);
    heldA.spend(usage(10_000), 0.1);
    heldB.release();
    const third = b.reserve(model, 10_000, 0);
    third.spend(usage(10_000), 0.1);
    expect(set.spentUsd).toBeCloseTo(0.2);
    expect(b.spentUsd).toBeCloseTo(0.1);
    expect(() => a.reserve(model, 10_000, 0)).toThrow(BudgetExceededError);
  });

  it('a call its own run refuses takes no hold in the shared budget', () => {
    const set = new RunBudget({ runUsd: 1 }, 0);
    const a = new RunBudget({ runUsd: 0.05, shared: set }, 0);
    expect(() => a.reserve(model, 10_000, 0)).toThrow(/this run past its budget/);
    const b = new RunBudget({ shared: set }, 0);
    // Were a hold left behind, nine more $0.10 calls would not fit.
    for (let i = 0; i < 9; i++) b.reserve(model, 10_000, 0).spend(usage(10_000), 0.1);
    expect(set.spentUsd).toBeCloseTo(0.9);
  });
});

describe('a call’s worst case', () => {
  it('is its prompt and its max_tokens at the price, held before it goes, whatever earlier calls answered', () => {
    const budget = new RunBudget({ runUsd: 0.2 }, 0);
    // 1,000 prompt tokens and at most 20,000 answered: $0.21, past $0.20 before any call.
    expect(() => budget.reserve(model, 1_000, 20_000)).toThrow(/the call would cost about \$0\.2100/);
    // Short answers earlier change nothing: the next call may still answer its max_tokens.
    for (let i = 0; i < 3; i++) budget.reserve(model, 1_000, 5_000).spend(usage(1_000, 10), 0.0101);
    expect(() => budget.reserve(model, 1_000, 16_000)).toThrow(/spent \$0\.0303; the call would cost about \$0\.1700/);
  });

  it('settles at the usage reported; cut short with none, keeps its worst case (here and in a shared budget)', () => {
    const set = new RunBudget({ runUsd: 10 }, 0);
    const budget = new RunBudget({ runUsd: 10, shared: set }, 0);
    budget.reserve(model, 1_000, 20_000).spend(usage(1_000, 50), 0.0105);
    expect(budget.spentUsd).toBeCloseTo(0.0105, 9);
    expect(budget.reserve(model, 1_000, 20_000).keep()).toBeCloseTo(0.21, 9);
    expect(budget.spentUsd).toBeCloseTo(0.2205, 9);
    expect(set.spentUsd).toBeCloseTo(0.2205, 9);
    budget.reserve(model, 1_000, 20_000).release();
    expect(set.spentUsd).toBeCloseTo(0.2205, 9);
  });

  it('under only a shared budget, a call cut short keeps its worst case in the run too (its ledger row’s cost)', () => {
    const set = new RunBudget({ runUsd: 10 }, 0);
    const run = new RunBudget({ shared: set }, 0);
    expect(run.reserve(model, 1_000, 20_000).keep()).toBeCloseTo(0.21, 9);
    expect(run.spentUsd).toBeCloseTo(0.21, 9);
    expect(set.spentUsd).toBeCloseTo(0.21, 9);
  });
});
