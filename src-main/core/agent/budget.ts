// Budgets (SPEC §17): a run stops before the model call that would take its cost — or its
// thread's — past a limit the person set, with one line saying so. The next call's cost is
// estimated before it is made: its prompt tokens at the input price, plus the average answer
// of this run so far at the output price. A model whose price is unknown cannot be held to
// a budget: with a budget set, such a call is not made (the line says how to set a price).

import { modelPrice } from '../models/model-info';
import type { ChatModel, Usage } from '../models/types';

export interface BudgetLimits {
  /** `run --max-cost`: what this run (its subagents and summaries included) may spend. */
  runUsd?: number;
  /** Settings' budget per thread: what the thread may have cost in all. */
  threadUsd?: number;
}

/** Thrown before a model call the budget does not allow; the run ends with reason `budget`. */
export class BudgetExceededError extends Error {
  override readonly name = 'BudgetExceededError';
}

export class RunBudget {
  private spent = 0;
  private calls = 0;
  private outputTokens = 0;

  /** `threadSpentBefore`: what the thread had cost before this run. */
  constructor(
    private readonly limits: BudgetLimits,
    private readonly threadSpentBefore: number,
  ) {}

  /** Whether any limit is set (without one, nothing is estimated). */
  get active(): boolean {
    return this.limits.runUsd !== undefined || this.limits.threadUsd !== undefined;
  }

  /** Counts a finished call (every purpose, every depth). */
  spend(usage: Usage, costUsd: number | undefined): void {
    this.calls++;
    this.outputTokens += usage.outputTokens;
    if (costUsd !== undefined) this.spent += costUsd;
  }

  /** Throws BudgetExceededError when the call of `promptTokens` on `model` would cross a limit. */
  check(model: Pick<ChatModel, 'id' | 'price'>, promptTokens: number): void {
    if (!this.active) return;
    const price = modelPrice(model);
    const limit = this.limits.runUsd !== undefined ? { usd: this.limits.runUsd, what: 'this run', spent: this.spent } : undefined;
    const threadLimit = this.limits.threadUsd !== undefined ? { usd: this.limits.threadUsd, what: 'this thread', spent: this.threadSpentBefore + this.spent } : undefined;
    if (price === null) {
      const what = [limit, threadLimit].filter((l) => l !== undefined).map((l) => `${l.what}'s budget of ${formatUsd(l.usd)}`).join(' and ');
      throw new BudgetExceededError(`Stopped before the model call: the price of ${model.id} is unknown, so ${what} cannot be kept (set its price in Settings › Prices).`);
    }
    const expectedOutput = this.calls > 0 ? this.outputTokens / this.calls : 0;
    const next = (promptTokens * price.input + expectedOutput * price.output) / 1_000_000;
    for (const l of [limit, threadLimit]) {
      if (l === undefined || l.spent + next <= l.usd) continue;
      throw new BudgetExceededError(
        `Stopped before the next model call: it would take ${l.what} past its budget of ${formatUsd(l.usd)} (spent ${formatUsd(l.spent)}; the call would cost about ${formatUsd(next)}).`,
      );
    }
  }
}

/** `$0.0123` below a dollar, `$12.34` from one up. */
export function formatUsd(usd: number): string {
  return usd < 1 ? `$${usd.toFixed(4)}` : `$${usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}
