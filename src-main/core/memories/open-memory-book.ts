// A folder's memories (SPEC §25): the global scope is the namespace every memory lived in
// before scopes (so those memories are now global, byte for byte, without moving a row),
// and the project's scope a namespace of its own. On first open, a memory kept under
// `/global/` before moves to the global scope's root (`global/x.md` stays `global/x.md`),
// and the person is told once.

import type Database from 'better-sqlite3';
import type { MemoryStore } from '../backends/store/memory-store-api';
import { MEMORIES_NAMESPACE } from '../backends/store/memory-store-api';
import { MemoryBook } from './memory-book';
import type { MemoryReview } from './memories-backend';
import { MemoryRecords } from './memory-records';
import { projectScope } from './memory-types';

const MIGRATED = 'scopes-migrated';
const NOTICE = 'scopes-notice';

export interface MemoryBookOptions {
  /** The store of /memories/ (SQLite or PostgreSQL), in the namespace of the global scope. */
  store: MemoryStore;
  /** The data folder's database: the records of versions, proposals and use. */
  db: Database.Database;
  /** The project (project-key.ts). */
  projectKey: string;
  review: () => MemoryReview;
  changed?: () => void;
}

export async function openMemoryBook(options: MemoryBookOptions): Promise<MemoryBook> {
  const records = new MemoryRecords(options.db);
  const global = options.store.namespace === MEMORIES_NAMESPACE ? options.store : options.store.inNamespace(MEMORIES_NAMESPACE);
  const scope = projectScope(options.projectKey);
  if (records.meta(MIGRATED) === undefined) await migrate(global, records);
  return new MemoryBook({
    records,
    projectScope: scope,
    project: global.inNamespace(`${MEMORIES_NAMESPACE}@${scope}`),
    global,
    review: options.review,
    ...(options.changed ? { changed: options.changed } : {}),
  });
}

/** What the panel says once after the move; undefined after. */
export function takeScopesNotice(records: MemoryRecords): string | undefined {
  const notice = records.meta(NOTICE);
  if (notice === undefined || notice === '') return undefined;
  records.setMeta(NOTICE, '');
  return notice;
}

async function migrate(global: MemoryStore, records: MemoryRecords): Promise<void> {
  let first;
  try {
    first = await global.listPage('', 1);
  } catch {
    return; // A shared store that cannot be reached now: tried again on the next open.
  }
  if (first.files.length > 0) {
    const nested = await global.glob('**', '/global');
    for (const m of nested.matches ?? []) {
      if (m.isDir) continue;
      const to = m.path.slice('/global'.length);
      if ((await global.stat(to)).info !== undefined) continue; // both names taken: the nested one stays, nothing lost
      const raw = await global.readRaw(m.path);
      if (raw.data === undefined) continue;
      const [written] = await global.uploadFiles([{ path: to, content: raw.data }]);
      if (written?.error === undefined) await global.delete(m.path);
    }
    records.setMeta(NOTICE, 'Memories kept before each project had its own are now global: they are under /memories/global/ and every project still uses them.');
  }
  records.setMeta(MIGRATED, new Date().toISOString());
}
