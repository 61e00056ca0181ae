import type { ToolContext } from './tool';

/**
 * Why a change of `path` is refused before the person is asked, or undefined: a path the
 * backend never lets change (a read-only mount, a git mount's .git), in its words, then the
 * read guard's refusal (a file not read first, or changed since).
 */
export async function changeRefusedBeforeAsking(ctx: ToolContext, path: string, action: 'edit' | 'overwrite'): Promise<string | undefined> {
  const refused = await ctx.backend.changeRefusal?.(path);
  if (refused !== undefined) return refused;
  return (await ctx.guard.check(ctx.backend, path, action)) ?? undefined;
}
