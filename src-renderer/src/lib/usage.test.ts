import { describe, expect, it } from 'vitest';
import type { UsageRow, UsageSums } from '../../../src-main/app/contract';
import { sandboxTimeText } from '../../../src-main/app/contract';
import { costCell, dayChart, daysBetween, formatCount, niceMax, sandboxCostCell, sinceParam, unpricedNote, unpricedSandboxNote } from './usage';

const NONE: UsageSums = { calls: 0, failedCalls: 0, unpricedCalls: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, durationMs: 0 };

function day(key: string, sums: Partial<UsageSums>): UsageRow {
  return { ...NONE, calls: 1, ...sums, key, label: key, firstAt: `${key}T10:00:00.000Z`, lastAt: `${key}T11:00:00.000Z` };
}

function totalOf(rows: readonly UsageRow[]): UsageSums {
  const total = { ...NONE };
  for (const row of rows) for (const k of Object.keys(NONE) as Array<Exclude<keyof UsageSums, 'byPurpose'>>) total[k] = (total[k] ?? 0) + (row[k] ?? 0);
  return total;
}

describe('Since', () => {
  const now = Date.parse('2025-03-10T15:30:00Z');
  it('asks for all time, the last 7 or 30 days (today is one of them, in UTC), or a day', () => {
    expect(sinceParam('all', '', now)).toBeUndefined();
    expect(sinceParam('7d', '', now)).toBe('2025-03-04');
    expect(sinceParam('30d', '', now)).toBe('2025-02-09');
    expect(sinceParam('date', ' 2025-01-31 ', now)).toBe('2025-01-31');
  });
  it('refuses a date that is not a real day', () => {
    expect(sinceParam('date', '', now)).toBeNull();
    expect(sinceParam('date', '2025-02-30', now)).toBeNull();
    expect(sinceParam('date', '31/01/2025', now)).toBeNull();
  });
});

describe('the table', () => {
  it('shows every digit of a count', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatCount(Number.NaN)).toBe('0');
  });
  it('shows a known cost, the known part and a mark when some calls have no price, and — when none has one', () => {
    expect(costCell({ unpricedCalls: 0, costUsd: 0.0123 })).toEqual({ amount: '$0.0123', partly: false });
    expect(costCell({ unpricedCalls: 0, costUsd: 0 })).toEqual({ amount: '$0.00', partly: false });
    expect(costCell({ unpricedCalls: 3, costUsd: null })).toEqual({ amount: '—', partly: false, note: 'Unknown: no price for the model' });
    expect(costCell({ unpricedCalls: 1, costUsd: 2.5 })).toEqual({ amount: '$2.50', partly: true, note: '$2.50, and 1 call of models with no known price not counted' });
    // Unknown is not free: a part with no price never reads as $0 alone.
    expect(costCell({ unpricedCalls: 2, costUsd: 0 })).toEqual({ amount: '$0.00', partly: true, note: '$0.00, and 2 calls of models with no known price not counted' });
  });
  it('says how many calls had no price, and where to set one', () => {
    expect(unpricedNote({ unpricedCalls: 0 })).toBeNull();
    expect(unpricedNote({ unpricedCalls: 1 })).toBe('1 call of models with no known price: tokens only (set a price in Settings › Prices).');
    expect(unpricedNote({ unpricedCalls: 3 })).toBe('3 calls of models with no known price: tokens only (set a price in Settings › Prices).');
  });
});

describe('sandbox time', () => {
  it('reads as seconds, minutes and seconds, or hours and minutes', () => {
    expect(sandboxTimeText(0)).toBe('0s');
    expect(sandboxTimeText(0.2)).toBe('<1s');
    expect(sandboxTimeText(45)).toBe('45s');
    expect(sandboxTimeText(200)).toBe('3m 20s');
    expect(sandboxTimeText(305)).toBe('5m 05s');
    expect(sandboxTimeText(3720)).toBe('1h 02m');
    expect(sandboxTimeText(90_000)).toBe('25h 00m');
  });
  it('costs what is known, marks time of no price, and says where to set one', () => {
    expect(sandboxCostCell({ costUsd: 0.148 })).toEqual({ amount: '$0.148', partly: false });
    expect(sandboxCostCell({ costUsd: null, unpricedSeconds: 60 })).toEqual({ amount: '—', partly: false, note: 'Unknown: no price per hour for the provider' });
    expect(sandboxCostCell({ costUsd: 0.1, unpricedSeconds: 200 })).toEqual({ amount: '$0.10', partly: true, note: '$0.10, and 3m 20s with no price per hour not counted' });
    expect(unpricedSandboxNote({})).toBeNull();
    expect(unpricedSandboxNote({ unpricedSeconds: 2120 })).toBe(
      "35m 20s of sandbox time with no price: time counted, cost not (set a price per hour in Settings › Sandboxes; a provider's price depends on the sandbox's size).",
    );
  });
});

describe('the chart', () => {
  it('rounds its top up to 1, 2, 2.5 or 5 of a power of ten', () => {
    expect(niceMax(0)).toBe(0);
    expect(niceMax(1)).toBe(1);
    expect(niceMax(1.2)).toBe(2);
    expect(niceMax(2.2)).toBe(2.5);
    expect(niceMax(0.3)).toBeCloseTo(0.5);
    expect(niceMax(0.1 + 0.2)).toBeCloseTo(0.5);
    expect(niceMax(0.0042)).toBeCloseTo(0.005);
    expect(niceMax(7300)).toBe(10_000);
    expect(niceMax(50)).toBe(50);
  });

  it('lists the days between two, or gives up past a limit', () => {
    expect(daysBetween('2025-02-27', '2025-03-02', 10)).toEqual(['2025-02-27', '2025-02-28', '2025-03-01', '2025-03-02']);
    expect(daysBetween('2025-01-01', '2025-12-31', 120)).toBeNull();
    expect(daysBetween('2025-03-02', '2025-03-01', 10)).toBeNull();
  });

  it('charts cost per day when a cost is known, days without calls as empty bars, and says what it shows', () => {
    const rows = [day('2025-03-01', { costUsd: 0.02 }), day('2025-03-03', { costUsd: 0.08 })];
    const chart = dayChart(rows, totalOf(rows))!;
    expect(chart.metric).toBe('cost');
    expect(chart.max).toBeCloseTo(0.1);
    expect(chart.maxLabel).toBe('$0.10');
    expect(chart.bars.map((b) => [b.day, b.value])).toEqual([
      ['2025-03-01', 0.02],
      ['2025-03-02', 0],
      ['2025-03-03', 0.08],
    ]);
    expect(chart.bars.map((b) => Math.round(b.share * 100))).toEqual([20, 0, 80]);
    expect(chart.bars[2]!.label).toBe('2025-03-03: $0.08');
    expect(chart.summary).toBe('Cost per day from 2025-03-01 to 2025-03-03 (3 days, 2 with calls): total $0.10; highest $0.08 on 2025-03-03.');
  });

  it('charts tokens when no cost is known', () => {
    const rows = [day('2025-03-01', { inputTokens: 1200, outputTokens: 300, unpricedCalls: 1 })];
    const chart = dayChart(rows, totalOf(rows))!;
    expect(chart.metric).toBe('tokens');
    expect(chart.max).toBe(2000);
    expect(chart.maxLabel).toBe('2k tokens');
    expect(chart.bars).toHaveLength(1);
    expect(chart.summary).toBe('Tokens (input and output) per day on 2025-03-01: total 1,500 tokens; highest 1,500 tokens on 2025-03-01.');
  });

  it('draws nothing without rows, and every bar of a long sparse span', () => {
    expect(dayChart([], NONE)).toBeNull();
    const rows = [day('2024-01-01', { costUsd: 1 }), day('2025-01-01', { costUsd: 3 })];
    expect(dayChart(rows, totalOf(rows))!.bars.map((b) => b.day)).toEqual(['2024-01-01', '2025-01-01']);
  });
});
