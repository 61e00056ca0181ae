// /memories/ for the window: a page of the list or of a search, view, edit, delete (SQLite StoreBackend).

import { MEMORIES_PREFIX } from '../../core/backends/mounts';
import { normalizeVirtualPath } from '../../core/backends/paths';
import type { StoreBackend, StoreListing } from '../../core/backends/store';
import { ContractError, type MemoryEntry, type MemoryPage, type Params } from '../contract';

/** The writer recorded for memories the person writes (the window, `deepdesk memories write`). */
export const MEMORY_AUTHOR_USER = 'user';

/** Memories per page when the caller does not say. */
export const MEMORY_PAGE_SIZE = 100;

const MAX_SNIPPET_CHARS = 200;

export class MemoriesService {
  constructor(
    private readonly store: StoreBackend,
    private readonly onChange: () => void,
  ) {}

  /** One page in path order: every memory, or (with a query) those whose name or text contains it, ignoring case. */
  async list({ query, after, limit = MEMORY_PAGE_SIZE }: Params<'memories.list'> = {}): Promise<MemoryPage> {
    const q = query?.trim() ?? '';
    const from = after === undefined ? '' : toStore(after);
    const page = q === '' ? this.store.listPage(from, limit) : this.store.searchPage(q, from, limit);
    return { entries: page.files.map(toEntry), next: page.next === null ? null : toShown(page.next) };
  }

  async read(path: string): Promise<{ path: string; text: string }> {
    const p = toStore(path);
    const raw = await this.store.readRaw(p);
    if (raw.error !== undefined) throw new ContractError(raw.error.replace(p, toShown(p)), 'not_found');
    return { path: toShown(p), text: Buffer.from(raw.data ?? new Uint8Array()).toString('utf8') };
  }

  async write(path: string, text: string): Promise<void> {
    const p = toStore(path);
    const result = await this.store.write(p, text);
    if (result.error !== undefined) throw new ContractError(result.error.replace(p, toShown(p)), 'failed');
    this.onChange();
  }

  async delete(path: string): Promise<void> {
    const p = toStore(path);
    const result = await this.store.delete(p);
    if (result.error !== undefined) throw new ContractError(result.error.replace(p, toShown(p)), 'not_found');
    this.onChange();
  }
}

function toEntry(file: StoreListing): MemoryEntry {
  return {
    path: toShown(file.path),
    size: file.size,
    modifiedAt: file.modifiedAt,
    ...(file.modifiedBy !== null ? { modifiedBy: file.modifiedBy } : {}),
    ...(file.line !== undefined ? { snippet: file.line.trim().slice(0, MAX_SNIPPET_CHARS) } : {}),
  };
}

/** `/memories/a.md`, `/a.md` or `a.md` → the store's `/a.md`. */
function toStore(path: string): string {
  const checked = normalizeVirtualPath(path);
  if (!checked.ok) throw new ContractError(checked.error);
  const p = checked.path.startsWith(MEMORIES_PREFIX) ? checked.path.slice(MEMORIES_PREFIX.length - 1) : checked.path === '/memories' ? '/' : checked.path;
  if (p === '/') throw new ContractError('a memory path names a file, e.g. /memories/notes.md');
  return p;
}

function toShown(storePath: string): string {
  return MEMORIES_PREFIX.slice(0, -1) + storePath;
}
