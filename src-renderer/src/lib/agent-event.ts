// The agent's events as they arrive inside 'thread.event' (SPEC §5 `run --json` shapes).
// The transport validates them against the contract's union; the reducer still reads their
// fields defensively (it also folds events no transport checked): a malformed event must
// never crash the window.

import type { Todo, UsageTotals } from '../../../src-main/app/contract';

export type { Todo, UsageTotals };

export type RawAgentEvent = { type: string; threadId: string; parentToolCallId?: string } & Record<string, unknown>;

export function str(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : fallback;
}

export function num(value: unknown, fallback = 0): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

const TODO_STATUSES = new Set(['pending', 'in_progress', 'completed']);

export function todosOf(value: unknown): Todo[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((t: unknown) => {
    if (!t || typeof t !== 'object') return [];
    const { content, status } = t as Record<string, unknown>;
    if (typeof content !== 'string') return [];
    return [{ content, status: TODO_STATUSES.has(str(status)) ? (status as Todo['status']) : 'pending' }];
  });
}

export function usageOf(value: unknown): UsageTotals {
  const u = value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const usage: UsageTotals = {
    inputTokens: num(u.inputTokens),
    outputTokens: num(u.outputTokens),
    cacheReadTokens: num(u.cacheReadTokens),
    cacheWriteTokens: num(u.cacheWriteTokens),
  };
  if (typeof u.costUsd === 'number' && Number.isFinite(u.costUsd)) usage.costUsd = u.costUsd;
  return usage;
}
