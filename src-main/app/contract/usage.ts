// The contract's usage shapes (SPEC §17): the window's `Usage` view reads the ledger of every
// model call, and of sandbox time (§18), by thread, day or model, with totals; Settings sets
// prices per model, a budget per thread and where traces go. Renderer-safe: zod only.
import { z } from 'zod';

export const usageGroupingSchema = z.enum(['thread', 'day', 'model']);
export type UsageGrouping = z.infer<typeof usageGroupingSchema>;

/**
 * Sums over some model calls. A call whose price was unknown when it was made is priced at the
 * price known now (a price set later in Settings reaches it); a recorded cost stays as it was.
 */
export const usageSumsSchema = z.object({
  calls: z.number().int().nonnegative(),
  failedCalls: z.number().int().nonnegative(),
  /** Calls of a model whose price is still unknown: their tokens are counted, not their cost. */
  unpricedCalls: z.number().int().nonnegative(),
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  cacheReadTokens: z.number().nonnegative(),
  cacheWriteTokens: z.number().nonnegative(),
  /** What the priced calls cost: only part of the cost while `unpricedCalls` > 0; null when no call has a price. */
  costUsd: z.number().nonnegative().nullable(),
  durationMs: z.number().nonnegative(),
  /** The calls and their cost by what they were for (`agent`, `summarization`, `grader`, `goal-draft`, `other-agent`). */
  byPurpose: z.record(z.string(), z.object({ calls: z.number().int().nonnegative(), costUsd: z.number().nonnegative().nullable() })).optional(),
});
export type UsageSums = z.infer<typeof usageSumsSchema>;

export const usageRowSchema = usageSumsSchema.extend({
  /** The thread id, the day (`YYYY-MM-DD`, UTC) or `provider:model`. */
  key: z.string(),
  /** What to show: a thread's title (the id when it has none or is gone), else the key. */
  label: z.string(),
  /** By thread: the folder the thread belongs to (absent when the thread is gone). */
  folder: z.string().optional(),
  /** By thread: its agent's label when it is another one over ACP (SPEC §22). */
  agent: z.string().optional(),
  firstAt: z.string(),
  lastAt: z.string(),
});
export type UsageRow = z.infer<typeof usageRowSchema>;

/**
 * Sandbox time (SPEC §18) summed. Time of a provider with no price per hour (Settings ›
 * Sandboxes) when it ran is priced at the price set now; with none, it counts, its cost not.
 */
export const sandboxSumsSchema = z.object({
  seconds: z.number().nonnegative(),
  /** What the priced time cost: only part of it while `unpricedSeconds` is there; null when none of it has a price. */
  costUsd: z.number().nonnegative().nullable(),
  /** Time of a provider whose price is still unknown. */
  unpricedSeconds: z.number().positive().optional(),
});
export type SandboxSums = z.infer<typeof sandboxSumsSchema>;

export const sandboxRowSchema = sandboxSumsSchema.extend({
  /** The thread id (`''`: time of no thread), the day (`YYYY-MM-DD`, UTC) or `sandbox:<provider>`. */
  key: z.string(),
  /** What to show for the key, as a usage row's label. */
  label: z.string(),
  /** By thread: the folder the time was spent for. */
  folder: z.string().optional(),
  /** The provider's name (`daytona`). */
  provider: z.string(),
  firstAt: z.string(),
  lastAt: z.string(),
});

/**
 * Cost drift (SPEC §26): a turn that cost `ratio` times the median of its thread's earlier turns
 * (at least 3, `ratio` ≥ 2) with no more tool calls than their median.
 */
export const costDriftSchema = z.object({ thread: z.string(), turn: z.number().int().positive(), ratio: z.number().positive() });
export type CostDriftDto = z.infer<typeof costDriftSchema>;

export const usageReportSchema = z.object({
  by: usageGroupingSchema,
  since: z.string().optional(),
  /** Most expensive first for threads and models, oldest first for days. */
  rows: z.array(usageRowSchema),
  total: usageSumsSchema,
  /** Sandbox time grouped the same way (and apart by provider), in the same order. */
  sandboxes: z.array(sandboxRowSchema),
  sandboxTotal: sandboxSumsSchema,
  /** The turns (since `since`) that cost far more than their thread's usual, each thread's in order. */
  drifts: z.array(costDriftSchema),
});
export type UsageReport = z.infer<typeof usageReportSchema>;

/** A drift as the Usage view and `deepdesk usage` say it: `cost ×2.7 the thread's median`. */
export function costDriftText(ratio: number): string {
  return `cost ×${Number(ratio.toFixed(1))} the thread's median`;
}

/** A sandbox's time as the Usage view and `deepdesk usage` write it: `45s`, `3m 20s`, `1h 02m`. */
export function sandboxTimeText(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 1) return seconds > 0 ? '<1s' : '0s';
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** `YYYY-MM-DD` or a full ISO time. */
export const usageSinceSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/, 'a date as YYYY-MM-DD');

/** US dollars per million tokens, set for one `provider:model` (SPEC §17). */
export const modelPriceSchema = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative().optional(),
  cacheWrite: z.number().nonnegative().optional(),
});
export type ModelPriceSetting = z.infer<typeof modelPriceSchema>;

/** Settings › Telemetry: where traces go (the standard OTEL_* variables also do). */
export const telemetrySettingsSchema = z.object({
  /** An OTLP/HTTP endpoint (`http://host:4318`); empty: none. */
  otlpEndpoint: z.string().optional(),
  /** Send message and tool content with the spans. */
  captureContent: z.boolean().optional(),
});
export type TelemetrySettings = z.infer<typeof telemetrySettingsSchema>;

export const usageMethods = {
  /** The ledger summed by thread, day or model since a date (all time when absent). */
  'usage.report': { params: z.object({ by: usageGroupingSchema, since: usageSinceSchema.optional() }), result: usageReportSchema },
  /** The budget tree (SPEC §26): what each node spent and holds, its cap, a call paused at it. */
  'usage.budgetTree': { params: z.object({}), result: z.lazy(() => budgetTreeNodeSchema) },
} as const;

/**
 * A node of the budget tree (SPEC §26), as `deepdesk budget show --json` and the Usage view show
 * it: what it spent (the ledger's, and what this process counted since), what calls under way
 * hold, its dollar cap, its tokens, and the line of a call paused at it.
 */
export interface BudgetTreeNode {
  kind: 'workspace' | 'folder' | 'thread' | 'fanout';
  id?: string;
  path?: string;
  /** A thread's title, a fan-out's name. */
  label?: string;
  spentUsd: number;
  heldUsd: number;
  capUsd: number | null;
  inputTokens: number;
  outputTokens: number;
  paused?: string;
  children: BudgetTreeNode[];
}
export const budgetTreeNodeSchema: z.ZodType<BudgetTreeNode> = z.lazy(() =>
  z.object({
    kind: z.enum(['workspace', 'folder', 'thread', 'fanout']),
    id: z.string().optional(),
    path: z.string().optional(),
    label: z.string().optional(),
    spentUsd: z.number(),
    heldUsd: z.number(),
    capUsd: z.number().nullable(),
    inputTokens: z.number(),
    outputTokens: z.number(),
    paused: z.string().optional(),
    children: z.array(budgetTreeNodeSchema),
  }),
);
