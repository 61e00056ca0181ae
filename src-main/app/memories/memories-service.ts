// /memories/ for the window: a page of the list or of a search, view, edit, delete, on the
// memories store (SQLite, or PostgreSQL shared by a team).

import { MEMORIES_PREFIX } from '../../core/backends/mounts/mounts';
import { normalizeVirtualPath } from '../../core/backends/paths';
import type { MemoryStore } from '../../core/backends/store/memory-store-api';
import type { StoreListing, StorePage } from '../../core/backends/store/store-query';
import { ContractError, type MemoryEntry, type MemoryPage, type Params } from '../contract';

/** The writer recorded for memories the person writes (the window, `deepdesk memories write`). */
export const MEMORY_AUTHOR_USER = 'user';

/** Memories per page when the caller does not say. */
export const MEMORY_PAGE_SIZE = 100;

const MAX_SNIPPET_CHARS = 200;

export class MemoriesService {
  constructor(
    private readonly store: MemoryStore,
    private readonly onChange: () => void,
    /** The shared store's URL without its password, when the memories live in one (the panel says so). */
    private readonly sharedStore?: string,
  ) {}

  /** One page in path order: every memory, or (with a query) those whose name or text contains it, ignoring case. */
  async list({ query, after, limit = MEMORY_PAGE_SIZE }: Params<'memories.list'> = {}): Promise<MemoryPage> {
    const q = query?.trim() ?? '';
    const from = after === undefined ? '' : toStore(after);
    let page: StorePage;
    try {
      page = q === '' ? await this.store.listPage(from, limit) : await this.store.searchPage(q, from, limit);
    } catch (err) {
      // A shared store that cannot be reached: the panel shows why.
      throw new ContractError(err instanceof Error ? err.message : String(err), 'failed');
    }
    return { entries: page.files.map(toEntry), next: page.next === null ? null : toShown(page.next), ...(this.sharedStore !== undefined ? { sharedStore: this.sharedStore } : {}) };
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
