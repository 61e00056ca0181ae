// A node's dollar cap made and read (SPEC §26) without zod: `deepdesk run`'s client and the
// window take these; only the budget tree reads the other caps.
import type { BudgetNode } from './budgets';

/** The caps of an amount of dollars (`--max-cost`, a dialog's budget); none for none. */
export function dollarCap(usd: number | undefined): BudgetNode | undefined {
  return usd === undefined ? undefined : { maxCostUsd: usd };
}

/** A node's dollar cap, where it has one. */
export function dollarsOf(caps: BudgetNode | undefined): number | undefined {
  return caps?.maxCostUsd;
}
