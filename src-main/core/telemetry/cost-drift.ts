// Cost drift (SPEC §26): a turn that costs at least twice the median of its thread's earlier
// turns (at least three of them) while asking for no more tool calls than their median did, so
// a thread that became expensive overnight is seen. Its tool calls are the ledger's (each
// step's answer counted where its cost is: UsageLedger.turns), not the thread's messages: the
// same turn key as the cost, a subagent's steps included, and a rewound history can't hide them.
// A turn whose cost or tool calls are not known is neither judged nor counted as an earlier one.

import type { TurnTotals } from './usage-ledger';

export interface CostDrift {
  thread: string;
  turn: number;
  /** The turn's cost over the median of the thread's earlier turns, to two decimals. */
  ratio: number;
}

/** At least this many times the earlier turns' median cost. */
export const DRIFT_RATIO = 2;
/** Earlier turns needed before a turn is judged. */
export const DRIFT_EARLIER_TURNS = 3;

/** The turns (UsageLedger.turns: each thread's in order) that drifted, in the same order. */
export function costDrifts(turns: readonly TurnTotals[]): CostDrift[] {
  const drifts: CostDrift[] = [];
  const earlier = new Map<string, Array<{ costUsd: number; toolCalls: number }>>();
  for (const turn of turns) {
    const { costUsd, toolCalls } = turn;
    if (costUsd === null || toolCalls === null) continue;
    let before = earlier.get(turn.threadId);
    if (before === undefined) earlier.set(turn.threadId, (before = []));
    if (before.length >= DRIFT_EARLIER_TURNS) {
      const usual = median(before.map((b) => b.costUsd));
      const ratio = usual > 0 ? costUsd / usual : 0;
      // A hair under 2× from adding up floating-point cents is 2×.
      if (ratio >= DRIFT_RATIO - 1e-9 && toolCalls <= median(before.map((b) => b.toolCalls))) {
        drifts.push({ thread: turn.threadId, turn: turn.turn, ratio: Math.round(ratio * 100) / 100 });
      }
    }
    before.push({ costUsd, toolCalls });
  }
  return drifts;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
