// /memories/ for the window: list and search, view, edit, delete (SQLite StoreBackend).

import { MEMORIES_PREFIX } from '../../core/backends/mounts';
import { compareCodePoints, normalizeVirtualPath } from '../../core/backends/paths';
import type { StoreBackend } from '../../core/backends/store';
import { ContractError, type MemoryEntry } from '../contract';

/** The writer recorded for memories the person writes (the window, `deepdesk memories write`). */
export const MEMORY_AUTHOR_USER = 'user';

export class MemoriesService {
  constructor(
    private readonly store: StoreBackend,
    private readonly onChange: () => void,
  ) {}

  async list(query?: string): Promise<MemoryEntry[]> {
    const [plain, dotted] = await Promise.all([this.store.glob('*', '/'), this.store.glob('.*', '/')]);
    const files = [...(plain.matches ?? []), ...(dotted.matches ?? [])];
    const q = query?.trim() ?? '';
    let snippets = new Map<string, string>();
    let keep: Set<string> | null = null;
    if (q !== '') {
      // People search without minding case: `vat` finds `VAT`.
      snippets = new Map(this.store.search(q).map((hit) => [hit.path, hit.line.trim().slice(0, 200)]));
      keep = new Set([...snippets.keys(), ...files.filter((f) => f.path.toLowerCase().includes(q.toLowerCase())).map((f) => f.path)]);
    }
    const authors = this.store.authors();
    return files
      .filter((f) => keep === null || keep.has(f.path))
      .sort((a, b) => compareCodePoints(a.path, b.path))
      .map((f) => ({
        path: toShown(f.path),
        size: f.size ?? 0,
        ...(f.modifiedAt ? { modifiedAt: f.modifiedAt } : {}),
        ...(authors.has(f.path) ? { modifiedBy: authors.get(f.path)! } : {}),
        ...(snippets.has(f.path) ? { snippet: snippets.get(f.path)! } : {}),
      }));
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
