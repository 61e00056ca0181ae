// A budget shared by runs (`run --candidates N --max-cost`, SPEC §21): every call of every run
// holds its estimate in the shared budget before it starts, so runs at once never cross it by
// more than one call's estimate; a call the shared budget refuses holds nothing anywhere.
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
    const heldA = a.reserve(model, 10_000); // about $0.10
    const heldB = b.reserve(model, 10_000); // about $0.10, $0.20 under way
    expect(() => a.reserve(model, 10_000)).toThrow(BudgetExceededError);
    expect(() => b.reserve(model, 10_000)).toThrow(/the candidates' set past its budget of \$0\.2500/);
    heldA.spend(usage(10_000), 0.1);
    heldB.release();
    const third = b.reserve(model, 10_000);
    third.spend(usage(10_000), 0.1);
    expect(set.spentUsd).toBeCloseTo(0.2);
    expect(b.spentUsd).toBeCloseTo(0.1);
    expect(() => a.reserve(model, 10_000)).toThrow(BudgetExceededError);
  });

  it('a call its own run refuses takes no hold in the shared budget', () => {
    const set = new RunBudget({ runUsd: 1 }, 0);
    const a = new RunBudget({ runUsd: 0.05, shared: set }, 0);
    expect(() => a.reserve(model, 10_000)).toThrow(/this run past its budget/);
    const b = new RunBudget({ shared: set }, 0);
    // Were a hold left behind, nine more $0.10 calls would not fit.
    for (let i = 0; i < 9; i++) b.reserve(model, 10_000).spend(usage(10_000), 0.1);
    expect(set.spentUsd).toBeCloseTo(0.9);
  });
});
