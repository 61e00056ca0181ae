// Budgets (SPEC §17, §26): a run stops before the model call that would take its cost — or its
// thread's, or a budget it shares — past a limit the person set, with one line saying so.
// Before a call goes, its worst case is held: its prompt's tokens (as model-call.ts counts them
// from what the provider reported) at the input price plus the most it may answer (its
// max_tokens) at the output price. It settles at the usage the provider reported; cut short with
// none, it keeps its worst case. A model whose price is unknown cannot be held to a budget: with
// a budget set, such a call is not made (the line says how to set a price). Calls run at once
// (parallel subagents) are each checked against what is spent and what the calls under way hold.

import { modelPrice } from '../models/model-info';
import type { ChatModel, Usage } from '../models/types';

export interface BudgetLimits {
  /** `run --max-cost`: what this run (its subagents and summaries included) may spend. */
  runUsd?: number;
  /** Settings' budget per thread: what the thread may have cost in all. */
  threadUsd?: number;
  /**
   * A budget this run shares with others (`run --candidates N --max-cost`, SPEC §21): each call
   * holds its worst case there too, so the runs together never cross it.
   */
  shared?: RunBudget;
  /** What `runUsd` is called in the line that stops a run (default `this run`). */
  label?: string;
}

/** Thrown before a model call the budget does not allow; the run ends with reason `budget`. */
export class BudgetExceededError extends Error {
  override readonly name = 'BudgetExceededError';
}

/** A call's place in the budget, from before it is made until it ends. */
export interface BudgetHold {
  /** The provider reported the call's usage: its cost takes the place of its worst case. */
  spend(usage: Usage, costUsd: number | undefined): void;
  /** The call ended without a usage before the provider answered (failed, stopped): its worst case is let go. */
  release(): void;
  /** Cut short after the provider began answering (billed) with no usage reported: its worst case is spent as its cost, and returned. */
  keep(): number;
}

export class RunBudget {
  private spent = 0;
  /** The worst cases of the calls under way. */
  private held = 0;

  /** `threadSpentBefore`: what the thread had cost before this run. */
  constructor(
    private readonly limits: BudgetLimits,
    private readonly threadSpentBefore: number,
  ) {}

  /** Whether any limit is set (without one, nothing is estimated). */
  get active(): boolean {
    return this.limits.runUsd !== undefined || this.limits.threadUsd !== undefined || this.limits.shared?.active === true;
  }

  /** What the calls that ended have cost (those of a known price). */
  get spentUsd(): number {
    return this.spent;
  }

  /**
   * Holds the worst case of the call of `promptTokens` on `model` that may answer `maxOutputTokens`
   * (every purpose, every depth), or throws BudgetExceededError when it would cross a limit with
   * what is spent and held.
   */
  reserve(model: Pick<ChatModel, 'id' | 'price'>, promptTokens: number, maxOutputTokens: number): BudgetHold {
    const estimate = this.check(model, promptTokens, maxOutputTokens);
    // The shared budget's hold is taken after this one's check, and only if it holds too.
    const shared = this.limits.shared?.reserve(model, promptTokens, maxOutputTokens);
    this.held += estimate;
    let open = true;
    const release = () => {
      if (!open) return false;
      open = false;
      this.held -= estimate;
      return true;
    };
    return {
      spend: (usage, costUsd) => {
        if (!release()) return;
        shared?.spend(usage, costUsd);
        if (costUsd !== undefined) this.spent += costUsd;
      },
      release: () => {
        if (release()) shared?.release();
      },
      keep: () => {
        if (!release()) return 0;
        shared?.keep();
        this.spent += estimate;
        return estimate;
      },
    };
  }

  /** The call's worst case (0 without any budget, or unpriced under only a shared one: that one refuses it); throws when it would cross a limit. */
  private check(model: Pick<ChatModel, 'id' | 'price'>, promptTokens: number, maxOutputTokens: number): number {
    if (!this.active) return 0;
    const price = modelPrice(model);
    const limit = this.limits.runUsd !== undefined ? { usd: this.limits.runUsd, what: this.limits.label ?? 'this run', spent: this.spent } : undefined;
    const threadLimit = this.limits.threadUsd !== undefined ? { usd: this.limits.threadUsd, what: 'this thread', spent: this.threadSpentBefore + this.spent } : undefined;
    if (price === null) {
      if (limit === undefined && threadLimit === undefined) return 0;
      const what = [limit, threadLimit].filter((l) => l !== undefined).map((l) => `${l.what}'s budget of ${formatUsd(l.usd)}`).join(' and ');
      throw new BudgetExceededError(`Stopped before the model call: the price of ${model.id} is unknown, so ${what} cannot be kept (set its price in Settings › Prices).`);
    }
    const next = (promptTokens * price.input + maxOutputTokens * price.output) / 1_000_000;
    const held = this.held > 0 ? `; calls under way may spend ${formatUsd(this.held)}` : '';
    for (const l of [limit, threadLimit]) {
      if (l === undefined || l.spent + this.held + next <= l.usd) continue;
      throw new BudgetExceededError(
        `Stopped before the next model call: it would take ${l.what} past its budget of ${formatUsd(l.usd)} (spent ${formatUsd(l.spent)}${held}; the call would cost about ${formatUsd(next)}).`,
      );
    }
    return next;
  }
}

/** `$0.0123` below a dollar, `$12.34` from one up. */
export function formatUsd(usd: number): string {
  return usd < 1 ? `$${usd.toFixed(4)}` : `$${usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}
