// Where /memories/ lives, as the person writes it (`--memories-store`, Settings › Mounts ›
// Memories store; SPEC §13): `sqlite` (the data folder's deepdesk.db) or a PostgreSQL URL.
// A URL with a password is refused everywhere: settings.json and the window would hold it,
// and a flag's value is visible to other users in the process list. The password comes from
// PGPASSWORD or ~/.pgpass instead, as for psql. Free of Node imports (the window checks with it).

export const DEFAULT_MEMORIES_STORE = 'sqlite';

/** Why `text` cannot name the memories store, or null. */
export function memoriesStoreTextError(text: string): string | null {
  const value = text.trim();
  if (value === '' || value.toLowerCase() === DEFAULT_MEMORIES_STORE) return null;
  if (!/^postgres(ql)?:\/\//i.test(value)) return `the memories store must be sqlite or a postgres://USER@HOST[:PORT]/DATABASE URL (got '${value.slice(0, 80)}')`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'the memories store URL is not a valid URL';
  }
  if (url.password !== '' || url.searchParams.has('password')) {
    return 'the memories store URL carries a password: leave it out and put it in PGPASSWORD or ~/.pgpass (it would otherwise be saved in settings.json or seen in the process list)';
  }
  if (url.hostname === '' && !url.searchParams.has('host')) return 'the memories store URL names no host';
  return null;
}
