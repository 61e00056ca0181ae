/** The `code` of a Node system error ('ENOENT', 'ELOOP'…), or 'EUNKNOWN'. */
export function errnoOf(err: unknown): string {
  return typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : 'EUNKNOWN';
}

/** An error's message; anything else thrown, as a string. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
