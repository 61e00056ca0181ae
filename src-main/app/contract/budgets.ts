// The budget tree's settings and scopes (SPEC §26): a node's caps, settings.json `budgets`, the
// scope a run request carries, and one cap set as `deepdesk budget set` and the window set it.
// Renderer-safe: zod only.
import { z } from 'zod';

/** One node of the budget tree (SPEC §26): dollars, tokens, spawns (subagents, candidates), at once, and what may be spent unattended. */
export const budgetNodeSchema = z.object({
  maxCostUsd: z.number().positive().optional(),
  maxTokens: z.number().int().positive().optional(),
  maxSpawns: z.number().int().nonnegative().optional(),
  maxConcurrent: z.number().int().min(1).max(64).optional(),
  unattendedUsd: z.number().positive().optional(),
});
/** settings.json `budgets` (SPEC §26): the workspace's daily and monthly limits, every thread's default node, and a folder's own. */
export const budgetsSchema = z.object({
  dailyUsd: z.number().positive().optional(),
  monthlyUsd: z.number().positive().optional(),
  thread: budgetNodeSchema.optional(),
  folders: z.record(z.string(), budgetNodeSchema).optional(),
  /** One thread's own node (`deepdesk budget set thread:ID`), over `thread`. */
  threads: z.record(z.string(), budgetNodeSchema).optional(),
});

export type BudgetsSettings = z.infer<typeof budgetsSchema>;
export type BudgetNode = z.infer<typeof budgetNodeSchema>;

/**
 * What a request's run holds under besides its thread's node (SPEC §26): its own caps (`run
 * --max-cost`) and those of the candidates' set it is one of. Requests carry this scope as it
 * is; only the budget tree (app/usage/budget-tree.ts) reads its numbers.
 */
export const budgetScopeSchema = z.object({ run: budgetNodeSchema.optional(), set: z.object({ id: z.string().min(1).max(200), caps: budgetNodeSchema.optional() }).optional() });
export type BudgetScope = z.infer<typeof budgetScopeSchema>;

const WORKSPACE_KEYS = ['dailyUsd', 'monthlyUsd'] as const;

/**
 * `budgets` with one cap set (`value` undefined: cleared), as `deepdesk budget set SCOPE KEY VALUE`
 * and the window's *Raise and resume* set it (SPEC §26). SCOPE: `workspace`, `folder:DIR`,
 * `thread` (every thread's default) or `thread:ID`. Throws on a scope, key or value it does not take.
 */
export function budgetsWith(budgets: BudgetsSettings | undefined, scope: string, key: string, value: number | undefined): BudgetsSettings {
  const next: BudgetsSettings = structuredClone(budgets ?? {});
  if (scope === 'workspace') {
    if (!(WORKSPACE_KEYS as readonly string[]).includes(key)) throw new Error(`the workspace takes ${WORKSPACE_KEYS.join(' or ')}, not ${key}`);
    const k = key as (typeof WORKSPACE_KEYS)[number];
    if (value === undefined) delete next[k];
    else next[k] = budgetsSchema.shape[k].unwrap().parse(value);
    return next;
  }
  const keys = Object.keys(budgetNodeSchema.shape);
  if (!keys.includes(key)) throw new Error(`a ${scope.split(':')[0]} takes ${keys.join(', ')}, not ${key}`);
  const k = key as keyof z.infer<typeof budgetNodeSchema>;
  const parsed = value === undefined ? undefined : budgetNodeSchema.shape[k].unwrap().parse(value);
  const set = (node: z.infer<typeof budgetNodeSchema> | undefined) => {
    const out = { ...node };
    if (parsed === undefined) delete out[k];
    else out[k] = parsed;
    return out;
  };
  const [kind, ...rest] = scope.split(':');
  const id = rest.join(':');
  if (kind === 'thread' && id === '') next.thread = set(next.thread);
  else if (kind === 'thread') next.threads = { ...next.threads, [id]: set(next.threads?.[id]) };
  else if (kind === 'folder' && id !== '') next.folders = { ...next.folders, [id]: set(next.folders?.[id]) };
  else throw new Error(`'${scope}' is not a scope: workspace, folder:DIR, thread or thread:ID`);
  return next;
}
