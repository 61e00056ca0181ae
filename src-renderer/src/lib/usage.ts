// The `Usage` view's arithmetic and words (SPEC §17): what `Since` asks the ledger for, how
// counts and costs read in its table, the line about calls of models with no known price,
// and the bar chart of a day-by-day report (scaled to a round maximum, with a text
// alternative that says what it shows); sandbox time's cost and its line when a provider has
// no price per hour. Pure: unit-tested on its own.

import { sandboxTimeText, type SandboxSums, type UsageRow, type UsageSums } from '../../../src-main/app/contract';
import { formatCost, formatTokens } from './format';

export type SinceChoice = 'all' | '7d' | '30d' | 'date';

export const SINCE_CHOICES: ReadonlyArray<{ value: SinceChoice; label: string }> = [
  { value: 'all', label: 'All time' },
  { value: '7d', label: 'Last 7 days' },
  { value: '30d', label: 'Last 30 days' },
  { value: 'date', label: 'Since a date…' },
];

const DAY_MS = 86_400_000;

/** The UTC day of `ms` as `YYYY-MM-DD` (the ledger's days are UTC). */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * The `since` of usage.report for a choice: undefined for all time; the last N days count
 * today (UTC) as one of them; a date must be a real `YYYY-MM-DD` (null when it is not, so
 * the view can say so instead of asking).
 */
export function sinceParam(choice: SinceChoice, date: string, now: number = Date.now()): string | undefined | null {
  switch (choice) {
    case 'all':
      return undefined;
    case '7d':
      return utcDay(now - 6 * DAY_MS);
    case '30d':
      return utcDay(now - 29 * DAY_MS);
    case 'date': {
      const day = date.trim();
      if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return null;
      const ms = Date.parse(`${day}T00:00:00Z`);
      return Number.isNaN(ms) || utcDay(ms) !== day ? null : day;
    }
  }
}

/** A whole count as the table shows it: every digit, grouped (`12,345`). */
export function formatCount(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '0';
  return Math.round(n).toLocaleString('en-US');
}

export interface CostCell {
  /** The known cost (`$0.0123`), or `—` when no call has a price. */
  amount: string;
  /** Some calls have no price: the cell reads `$0.0123 + unknown`. */
  partly: boolean;
  /** For a screen reader and the tooltip, when the text alone does not say it. */
  note?: string;
}

/** The cost of some calls: known, partly known (the known part and a mark) or unknown — never a `$0` for what is not known. */
export function costCell(sums: Pick<UsageSums, 'unpricedCalls' | 'costUsd'>): CostCell {
  if (sums.costUsd === null) return { amount: '—', partly: false, note: 'Unknown: no price for the model' };
  const cost = formatCost(sums.costUsd) ?? '$0.00';
  if (sums.unpricedCalls > 0) return { amount: cost, partly: true, note: `${cost}, and ${callCount(sums.unpricedCalls)} of models with no known price not counted` };
  return { amount: cost, partly: false };
}

function callCount(n: number): string {
  return `${formatCount(n)} ${n === 1 ? 'call' : 'calls'}`;
}

/** The line under the table when some calls had no price; null when every call had one. */
export function unpricedNote(total: Pick<UsageSums, 'unpricedCalls'>): string | null {
  if (total.unpricedCalls <= 0) return null;
  return `${callCount(total.unpricedCalls)} of models with no known price: tokens only (set a price in Settings › Prices).`;
}

/** The cost of some sandbox time: as costCell, the unknown part being time of a provider with no price per hour. */
export function sandboxCostCell(sums: Pick<SandboxSums, 'unpricedSeconds' | 'costUsd'>): CostCell {
  if (sums.costUsd === null) return { amount: '—', partly: false, note: 'Unknown: no price per hour for the provider' };
  const cost = formatCost(sums.costUsd) ?? '$0.00';
  if (sums.unpricedSeconds !== undefined) return { amount: cost, partly: true, note: `${cost}, and ${sandboxTimeText(sums.unpricedSeconds)} with no price per hour not counted` };
  return { amount: cost, partly: false };
}

/** The line under the sandbox table when some time had no price; null when all of it had one. */
export function unpricedSandboxNote(total: Pick<SandboxSums, 'unpricedSeconds'>): string | null {
  if (total.unpricedSeconds === undefined) return null;
  return `${sandboxTimeText(total.unpricedSeconds)} of sandbox time with no price: time counted, cost not (set a price per hour in Settings › Sandboxes; a provider's price depends on the sandbox's size).`;
}

// ------------------------------------------------------------------ the chart

export interface ChartBar {
  day: string;
  value: number;
  /** Height as a share of the chart's maximum, 0..1. */
  share: number;
  /** What the bar's tooltip says (`2025-03-02: $0.0123`). */
  label: string;
}

export interface DayChart {
  metric: 'cost' | 'tokens';
  bars: ChartBar[];
  /** The round number the chart's top stands for (≥ every bar). */
  max: number;
  /** The top's label on the axis, short (`$0.10`, `10k tokens`). */
  maxLabel: string;
  /** The text alternative: what is charted, over which days, the total and the highest day. */
  summary: string;
}

/** The smallest of 1, 2, 2.5, 5 × 10^k at or above `value` (0 stays 0). */
export function niceMax(value: number): number {
  if (!(value > 0) || !Number.isFinite(value)) return 0;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) {
    // A little slack for floating point: 0.3 / 0.1 is 2.9999999999999996.
    if (value <= step * power * (1 + 1e-9)) return step * power;
  }
  return 10 * power;
}

/** The days from `first` to `last` inclusive, when there are at most `limit` of them; else null. */
export function daysBetween(first: string, last: string, limit: number): string[] | null {
  const from = Date.parse(`${first}T00:00:00Z`);
  const to = Date.parse(`${last}T00:00:00Z`);
  if (Number.isNaN(from) || Number.isNaN(to) || to < from) return null;
  const count = Math.round((to - from) / DAY_MS) + 1;
  if (count > limit) return null;
  return Array.from({ length: count }, (_, i) => utcDay(from + i * DAY_MS));
}

/** Days with no calls between the first and the last are drawn (as nothing) up to this many days. */
const FILL_LIMIT = 120;

/**
 * The bars of a day-by-day report: cost per day when any cost is known, else tokens (input
 * and output) per day; days without calls between the first and the last are empty bars.
 */
export function dayChart(rows: readonly UsageRow[], total: UsageSums): DayChart | null {
  if (rows.length === 0) return null;
  const metric: DayChart['metric'] = (total.costUsd ?? 0) > 0 ? 'cost' : 'tokens';
  const valueOf = (row: UsageRow): number => (metric === 'cost' ? (row.costUsd ?? 0) : row.inputTokens + row.outputTokens);
  const format = (value: number): string => (metric === 'cost' ? (formatCost(value) ?? '$0.00') : `${formatCount(value)} tokens`);
  const byDay = new Map(rows.map((row) => [row.key, valueOf(row)]));
  const sorted = [...byDay.keys()].sort();
  const days = daysBetween(sorted[0]!, sorted.at(-1)!, FILL_LIMIT) ?? sorted;
  const highest = Math.max(...byDay.values());
  const max = niceMax(highest);
  const bars = days.map((day) => {
    const value = byDay.get(day) ?? 0;
    return { day, value, share: max > 0 ? value / max : 0, label: `${day}: ${format(value)}` };
  });
  const top = sorted.reduce((best, day) => ((byDay.get(day) ?? 0) > (byDay.get(best) ?? 0) ? day : best), sorted[0]!);
  const sum = metric === 'cost' ? (total.costUsd ?? 0) : total.inputTokens + total.outputTokens;
  const span = days.length === 1 ? `on ${days[0]}` : `from ${days[0]} to ${days.at(-1)} (${days.length} days, ${sorted.length} with calls)`;
  const what = metric === 'cost' ? 'Cost per day' : 'Tokens (input and output) per day';
  const summary = `${what} ${span}: total ${format(sum)}; highest ${format(byDay.get(top) ?? 0)} on ${top}.`;
  const maxLabel = metric === 'cost' ? format(max) : `${formatTokens(max)} tokens`;
  return { metric, bars, max, maxLabel, summary };
}
