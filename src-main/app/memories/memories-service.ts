// /memories/ for the window and the CLI (SPEC §25): a page of the list (of a scope, a status,
// or a search), view, edit, delete as the person; history and restore; proposals answered;
// moves between scopes; the memories each turn used. Over the folder's MemoryBook, on the
// memories store (SQLite, or PostgreSQL shared by a team).

import type { StoreListing, StorePage } from '../../core/backends/store/store-query';
import type { MemoryBook} from '../../core/memories/memory-book';
import { MemoryBookError } from '../../core/memories/memory-book';
import { takeScopesNotice } from '../../core/memories/open-memory-book';
import { GLOBAL_SCOPE, writerLabel, type MemoryScope, type MemoryVersion } from '../../core/memories/memory-types';
import { ContractError, type MemoryEntry, type MemoryPage, type MemoryVersionInfo, type Params } from '../contract';

/** Memories per page when the caller does not say. */
export const MEMORY_PAGE_SIZE = 100;

const MAX_SNIPPET_CHARS = 200;
const GLOBAL_SHOWN = '/memories/global/';
/** The cursor after the project's last memory when the page ended there: the global ones come next. */
const GLOBAL_CURSOR = '/memories/global';

/** The memories a thread's model calls carried, turn by turn (the usage ledger keeps them). */
export type MemoriesUsedOf = (threadId: string) => Array<{ turn: number; memories: Array<{ path: string; version: number }> }>;

export class MemoriesService {
  constructor(
    readonly book: MemoryBook,
    private readonly onChange: () => void,
    /** What only the window has: the shared store's URL without its password (the panel says so), what each turn used, and the notice said once. */
    private readonly window?: { sharedStore?: string; usedOf: MemoriesUsedOf },
  ) {}

  /** One page in path order (the project's, then global): every memory, or those of a scope or status, or whose name or text contains the query. */
  async list({ query, after, limit = MEMORY_PAGE_SIZE, scope, status }: Params<'memories.list'> = {}): Promise<MemoryPage> {
    const extra = { ...optional('sharedStore', this.window?.sharedStore), ...optional('notice', this.window && takeScopesNotice(this.book.records)) };
    if (status === 'proposed') return { entries: this.proposed(scope), next: null, ...extra };
    if (status === 'stale') return { entries: await this.stale(scope), next: null, ...extra };
    const scopes = scope === 'project' ? [this.book.projectScope] : scope === 'global' ? [GLOBAL_SCOPE] : [this.book.projectScope, GLOBAL_SCOPE];
    const q = query?.trim() ?? '';
    const entries: MemoryEntry[] = [];
    let from = after;
    for (const s of scopes) {
      const inGlobal = s === GLOBAL_SCOPE;
      if (from !== undefined && (from === GLOBAL_CURSOR || from.startsWith(GLOBAL_SHOWN)) && !inGlobal) continue;
      const start = from === undefined || from === GLOBAL_CURSOR || (inGlobal && !from.startsWith(GLOBAL_SHOWN)) ? '' : this.book.placeOf(from).path;
      const page = await this.page(s, q, start, limit - entries.length);
      entries.push(...page.files.map((f) => this.entry(s, f)));
      if (page.next !== null) return { entries, next: this.book.shown(s, page.next), ...extra };
      from = undefined;
      if (entries.length >= limit && s !== scopes[scopes.length - 1]) return { entries, next: inGlobal ? null : GLOBAL_CURSOR, ...extra };
    }
    return { entries, next: null, ...extra };
  }

  async read(path: string): Promise<{ path: string; text: string }> {
    const place = this.guard(() => this.book.placeOf(path));
    const raw = await place.store.readRaw(place.path);
    if (raw.error !== undefined) throw new ContractError(raw.error.replace(place.path, this.book.shown(place.scope, place.path)), 'not_found');
    return { path: this.book.shown(place.scope, place.path), text: Buffer.from(raw.data ?? new Uint8Array()).toString('utf8') };
  }

  async write(path: string, text: string): Promise<void> {
    await this.guard(() => this.book.write(path, text));
    this.onChange();
  }

  async delete(path: string): Promise<void> {
    await this.guard(() => this.book.delete(path));
    this.onChange();
  }

  history(path: string): { path: string; versions: MemoryVersionInfo[] } {
    const place = this.guard(() => this.book.placeOf(path));
    return { path: this.book.shown(place.scope, place.path), versions: this.guard(() => this.book.history(path)).map(versionInfo) };
  }

  async restore(path: string, version: number): Promise<void> {
    await this.guard(() => this.book.restore(path, version));
    this.onChange();
  }

  async approve(path: string, options: { version?: number; text?: string }): Promise<void> {
    await this.guard(() => this.book.approve(path, options));
    this.onChange();
  }

  reject(path: string, version?: number): void {
    this.guard(() => this.book.reject(path, version));
    this.onChange();
  }

  async move(path: string, to: 'project' | 'global'): Promise<{ path: string }> {
    const moved = await this.guard(() => this.book.move(path, to));
    this.onChange();
    return { path: moved };
  }

  used(threadId: string): { turns: Array<{ turn: number; memories: Array<{ path: string; version: number }> }> } {
    return { turns: this.window?.usedOf(threadId) ?? [] };
  }

  private async page(scope: MemoryScope, query: string, after: string, limit: number): Promise<StorePage> {
    const store = this.book.storeOf(scope);
    try {
      return query === '' ? await store.listPage(after, limit) : await store.searchPage(query, after, limit);
    } catch (err) {
      // A shared store that cannot be reached: the panel shows why.
      throw new ContractError(err instanceof Error ? err.message : String(err), 'failed');
    }
  }

  private entry(scope: MemoryScope, file: StoreListing): MemoryEntry {
    const marks = this.book.records.marks(scope, file.path);
    const last = this.book.records.latest(scope, file.path);
    return {
      path: this.book.shown(scope, file.path),
      size: file.size,
      modifiedAt: file.modifiedAt,
      scope: scope === GLOBAL_SCOPE ? 'global' : 'project',
      status: 'active',
      ...(file.modifiedBy !== null ? { modifiedBy: file.modifiedBy } : {}),
      ...(file.line !== undefined ? { snippet: file.line.trim().slice(0, MAX_SNIPPET_CHARS) } : {}),
      ...(last !== undefined ? { writer: writerLabel(last.writer), version: this.book.records.activeVersion(scope, file.path) ?? last.version, ...optional('thread', last.thread ?? undefined) } : {}),
      ...optional('stale', marks.stale ?? undefined),
      ...optional('lastUsedAt', marks.lastUsedAt ?? undefined),
      ...(marks.usedTurns > 0 ? { usedTurns: marks.usedTurns } : {}),
    };
  }

  private proposed(scope: 'project' | 'global' | undefined): MemoryEntry[] {
    return this.book.pending()
      .filter((v) => scope === undefined || (v.scope === GLOBAL_SCOPE) === (scope === 'global'))
      .map((v) => ({
        path: v.shownPath,
        size: Buffer.byteLength(v.content ?? ''),
        modifiedAt: v.at,
        scope: v.scope === GLOBAL_SCOPE ? ('global' as const) : ('project' as const),
        status: 'proposed' as const,
        writer: writerLabel(v.writer),
        version: v.version,
        sources: v.sources,
        snippet: (v.content ?? '').trim().split('\n')[0]!.slice(0, MAX_SNIPPET_CHARS),
        ...optional('thread', v.thread ?? undefined),
      }));
  }

  private async stale(scope: 'project' | 'global' | undefined): Promise<MemoryEntry[]> {
    const scopes = scope === 'project' ? [this.book.projectScope] : scope === 'global' ? [GLOBAL_SCOPE] : [this.book.projectScope, GLOBAL_SCOPE];
    const out: MemoryEntry[] = [];
    for (const s of scopes) {
      for (const [path] of this.book.records.staleIn(s)) {
        const stat = await this.book.storeOf(s).stat(path);
        if (stat.info === undefined) continue;
        out.push(this.entry(s, { path, size: stat.info.size ?? 0, modifiedAt: stat.info.modifiedAt ?? '', modifiedBy: null }));
      }
    }
    return out;
  }

  /** `body`'s MemoryBookError (thrown, or its promise's) as the ContractError it means. */
  private guard<T>(body: () => T): T {
    try {
      const out = body();
      return out instanceof Promise ? (out.catch((err: unknown) => Promise.reject(asContractError(err))) as T) : out;
    } catch (err) {
      throw asContractError(err);
    }
  }
}

function asContractError(err: unknown): unknown {
  return err instanceof MemoryBookError ? new ContractError(err.message, err.code) : err;
}

function versionInfo(v: MemoryVersion): MemoryVersionInfo {
  return { version: v.version, action: v.action, status: v.status, at: v.at, writer: writerLabel(v.writer), ...optional('thread', v.thread ?? undefined), sources: v.sources, text: v.content };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
