// /memories/ as a thread sees it (SPEC §25): the project's memories at `/`, every project's
// at `/global/`, and the host's gate on the write path. A model's write made while its
// request held untrusted text is proposed: recorded, shown to the thread that wrote it (its
// `ls` marks it, `read_file` returns it), used nowhere else until the person approves it.
// Every change is a version, written in the same transaction as the text.

import type {
  Backend, DeleteResult, EditResult, FileDownloadResponse, FileInfo, FileUpload, FileUploadResponse, GlobResult, GrepResult, LsResult,
  ReadRawResult, ReadResult, StatResult, WriteResult,
} from '../backends/protocol';
import { DEFAULT_READ_LIMIT } from '../backends/protocol';
import { createComposite } from '../backends/mounts/composite';
import { normalizeVirtualPath, parentOf, sortByPath } from '../backends/paths';
import { applyEdit, readTextWindow } from '../backends/text';
import type { MemoryStore, StoreChangeHook } from '../backends/store/memory-store-api';
import { GLOBAL_SCOPE, type MemoryAction, type MemoryScope, type MemoryVersion, type MemoryWriter } from './memory-types';
import type { MemoryRecords } from './memory-records';
import { isPersonsWords, memoryWriteContext, type MemoryWriteContext } from './write-context';

export const GLOBAL_FOLDER = '/global/';

/** `person` (default): a model's write beside untrusted text is proposed; `off`: every write is active at once. */
export type MemoryReview = 'person' | 'off';

export interface MemoriesBackendOptions {
  records: MemoryRecords;
  projectScope: MemoryScope;
  /** The project's memories and every project's (paths inside each, like `/x.md`). */
  project: MemoryStore;
  global: MemoryStore;
  /** The thread whose own proposals this view shows; absent: the person's view (none shown). */
  thread?: string;
  review: () => MemoryReview;
  /** Told after a change. */
  changed?: () => void;
}

/** A memory's place: its scope, the store holding it and its path there. */
export interface MemoryPlace {
  scope: MemoryScope;
  store: MemoryStore;
  path: string;
}

/** A write with no context comes from a model nothing is known of: it is proposed. */
const UNKNOWN_CONTEXT = (thread: string | undefined): MemoryWriteContext => ({
  writer: thread !== undefined ? { kind: 'agent', thread } : { kind: 'protocol-client' },
  sources: () => ['an unknown context'],
  personText: () => '',
});

export class MemoriesBackend implements Backend {
  private readonly view: Backend;

  constructor(private readonly options: MemoriesBackendOptions) {
    this.view = createComposite(options.project, [{ prefix: GLOBAL_FOLDER, backend: options.global, listInRoot: 'always' }]);
  }

  /** Where a path inside /memories/ lives, or an error for a path that is no memory's. */
  place(path: string): MemoryPlace | { error: string } {
    const p = normalizeVirtualPath(path);
    if (!p.ok) return { error: p.error };
    if (p.path === '/global' || p.path.startsWith(GLOBAL_FOLDER)) {
      return { scope: GLOBAL_SCOPE, store: this.options.global, path: p.path === '/global' ? '/' : p.path.slice(GLOBAL_FOLDER.length - 1) };
    }
    return { scope: this.options.projectScope, store: this.options.project, path: p.path };
  }

  /** The path inside /memories/ of a memory's place. */
  shownPath(scope: MemoryScope, path: string): string {
    return scope === GLOBAL_SCOPE ? GLOBAL_FOLDER.slice(0, -1) + path : path;
  }

  async ls(path: string): Promise<LsResult> {
    const place = this.place(path);
    if ('error' in place) return place;
    const res = await this.view.ls(path);
    const own = this.ownProposals(place).filter((v) => parentOf(v.path) === place.path.replace(/\/$/, '') || (place.path === '/' && parentOf(v.path) === '/'));
    if (res.error !== undefined && own.length === 0) return res;
    const entries = res.entries ?? [];
    const listed = new Set(entries.map((e) => e.path));
    for (const v of own) {
      const shown = this.shownPath(place.scope, v.path);
      if (!listed.has(shown)) entries.push({ path: shown, size: Buffer.byteLength(v.content ?? ''), modifiedAt: v.at });
    }
    const proposed = new Set(own.map((v) => this.shownPath(place.scope, v.path)));
    const stale = this.options.records.staleIn(place.scope);
    return { entries: sortByPath(entries.map((e) => this.marked(e, place.scope, proposed, stale))) };
  }

  async read(path: string, offset = 0, limit = DEFAULT_READ_LIMIT): Promise<ReadResult> {
    const place = this.place(path);
    if ('error' in place) return place;
    const own = this.ownProposal(place);
    if (own !== undefined) return { ...readTextWindow(own.content ?? '', offset, limit), memoryVersion: own.version };
    const res = await this.view.read(path, offset, limit);
    return res.error === undefined ? { ...res, ...this.versionOf(place) } : res;
  }

  async readRaw(path: string): Promise<ReadRawResult> {
    const place = this.place(path);
    if ('error' in place) return place;
    const own = this.ownProposal(place);
    return own !== undefined ? { data: new TextEncoder().encode(own.content ?? '') } : this.view.readRaw(path);
  }

  async stat(path: string): Promise<StatResult> {
    const place = this.place(path);
    if ('error' in place) return place;
    const own = this.ownProposal(place);
    if (own !== undefined) {
      return { info: { path, isDir: false, size: Buffer.byteLength(own.content ?? ''), modifiedAt: own.at }, version: `proposed-${own.version}`, memoryVersion: own.version };
    }
    const res = await this.view.stat(path);
    if (res.error !== undefined || res.info === undefined || res.info.isDir === true) return res;
    const stale = this.options.records.marks(place.scope, place.path).stale;
    return { ...res, info: { ...res.info, ...(stale !== null ? { mark: `[stale: ${stale}]` } : {}) }, ...this.versionOf(place) };
  }

  grep(pattern: string, path?: string, glob?: string, maxCount?: number): Promise<GrepResult> {
    return this.view.grep(pattern, path, glob, maxCount);
  }

  glob(pattern: string, path?: string): Promise<GlobResult> {
    return this.view.glob(pattern, path);
  }

  write(path: string, content: string): Promise<WriteResult> {
    return this.writeAs(path, content, memoryWriteContext() ?? UNKNOWN_CONTEXT(this.options.thread));
  }

  /** A write by `context`'s writer: active, or proposed when the gate says so. */
  async writeAs(path: string, content: string, context: MemoryWriteContext, action: MemoryAction = 'write'): Promise<WriteResult> {
    const place = this.place(path);
    if ('error' in place) return place;
    if (place.path === '/') return { error: `${path} is a folder` };
    if (this.proposes(context, content)) return this.propose(place, path, content, context, action);
    const res = await this.storeFor(place, context, action).write(place.path, content);
    return this.afterChange(res, path);
  }

  async edit(path: string, oldString: string, newString: string, replaceAll = false): Promise<EditResult> {
    const context = memoryWriteContext() ?? UNKNOWN_CONTEXT(this.options.thread);
    const place = this.place(path);
    if ('error' in place) return place;
    const own = this.ownProposal(place);
    const before = own !== undefined ? own.content ?? '' : await this.activeText(place);
    if (before === null) return this.view.edit(path, oldString, newString, replaceAll);
    const outcome = applyEdit(before, oldString, newString, replaceAll);
    if (!outcome.ok) return { error: outcome.error };
    if (own !== undefined || this.proposes(context, outcome.content)) {
      const res = own !== undefined && !this.proposes(context, outcome.content)
        ? await this.writeAs(path, outcome.content, context, 'edit')
        : await this.propose(place, path, outcome.content, context, 'edit');
      return { ...res, occurrences: outcome.occurrences };
    }
    const res = await this.storeFor(place, context, 'edit').edit(place.path, oldString, newString, replaceAll);
    return this.afterChange(res, path);
  }

  async delete(path: string): Promise<DeleteResult> {
    const context = memoryWriteContext() ?? UNKNOWN_CONTEXT(this.options.thread);
    const place = this.place(path);
    if ('error' in place) return place;
    const own = this.ownProposal(place);
    if (own !== undefined) {
      // Taking back its own proposal: nothing active changes.
      this.options.records.setStatus(place.scope, place.path, own.version, 'superseded');
      if ((await this.activeText(place)) === null) return { path };
    }
    const res = await this.storeFor(place, context, 'delete').delete(place.path);
    return this.afterChange(res, path);
  }

  async uploadFiles(files: FileUpload[]): Promise<FileUploadResponse[]> {
    const out: FileUploadResponse[] = [];
    for (const f of files) {
      const res = await this.write(f.path, new TextDecoder().decode(f.content));
      out.push(res.error !== undefined ? { path: f.path, error: 'permission_denied' } : { path: f.path });
    }
    return out;
  }

  downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
    return this.view.downloadFiles(paths);
  }

  /** Whether the host holds this write for the person (SPEC §25). */
  private proposes(context: MemoryWriteContext, content: string): boolean {
    if (this.options.review() === 'off') return false;
    if (context.writer.kind === 'person' || context.writer.kind === 'import') return false;
    if (context.sources().length === 0) return false;
    return !isPersonsWords(content, context.personText());
  }

  private async propose(place: MemoryPlace, path: string, content: string, context: MemoryWriteContext, action: MemoryAction): Promise<WriteResult> {
    const baseline = await this.baseline(place);
    this.options.records.add(
      { scope: place.scope, path: place.path, action, status: 'proposed', content, writer: context.writer, sources: context.sources(), thread: threadOf(context.writer) ?? this.options.thread ?? null },
      baseline,
    );
    this.options.changed?.();
    return { path, proposed: true };
  }

  /** The store of a place, recording each change it makes as a version in the same transaction. */
  private storeFor(place: MemoryPlace, context: MemoryWriteContext, action: MemoryAction): MemoryStore {
    const records = this.options.records;
    const hook: StoreChangeHook = (path, content, previous) => {
      records.add(
        { scope: place.scope, path, action: content === null ? 'delete' : action, status: content === null ? 'deleted' : 'active', content, writer: context.writer, sources: context.writer.kind === 'person' || context.writer.kind === 'import' ? [] : context.sources(), thread: threadOf(context.writer) ?? null },
        previous !== null ? { content: previous.content, writer: writerOfAuthor(previous.modifiedBy), at: previous.modifiedAt } : undefined,
      );
    };
    return place.store.withAuthor(authorOf(context.writer), hook);
  }

  private afterChange<T extends { error?: string; path?: string }>(res: T, path: string): T {
    if (res.error !== undefined) return res;
    this.options.changed?.();
    return { ...res, path };
  }

  private async activeText(place: MemoryPlace): Promise<string | null> {
    const raw = await place.store.readRaw(place.path);
    return raw.data !== undefined ? new TextDecoder().decode(raw.data) : null;
  }

  /** A memory kept before versions: its text now, as version 1. */
  private async baseline(place: MemoryPlace): Promise<{ content: string; writer: MemoryWriter; at: string } | undefined> {
    if (this.options.records.latest(place.scope, place.path) !== undefined) return undefined;
    const stat = await place.store.stat(place.path);
    const text = await this.activeText(place);
    return text === null ? undefined : { content: text, writer: { kind: 'person' }, at: stat.info?.modifiedAt ?? new Date().toISOString() };
  }

  private ownProposal(place: MemoryPlace): MemoryVersion | undefined {
    return this.options.thread !== undefined ? this.options.records.proposalOf(place.scope, place.path, this.options.thread) : undefined;
  }

  private ownProposals(place: MemoryPlace): MemoryVersion[] {
    return this.options.thread !== undefined ? this.options.records.proposalsOf(place.scope, this.options.thread) : [];
  }

  private versionOf(place: MemoryPlace): { memoryVersion?: number } {
    const v = this.options.records.activeVersion(place.scope, place.path);
    return v !== null ? { memoryVersion: v } : {};
  }

  private marked(entry: FileInfo, scope: MemoryScope, proposed: ReadonlySet<string>, stale: ReadonlyMap<string, string>): FileInfo {
    if (entry.isDir) return entry;
    if (proposed.has(entry.path)) return { ...entry, mark: '(proposed)' };
    const inner = scope === GLOBAL_SCOPE ? entry.path.slice(GLOBAL_FOLDER.length - 1) : entry.path;
    const why = stale.get(inner);
    return why !== undefined ? { ...entry, mark: `[stale: ${why}]` } : entry;
  }
}

function threadOf(writer: MemoryWriter): string | undefined {
  return 'thread' in writer ? writer.thread : undefined;
}

/** What the store records as a file's last writer (the window's list shows it): a thread id, `user` or `import:<tool>`. */
export function authorOf(writer: MemoryWriter): string {
  if (writer.kind === 'person') return 'user';
  if (writer.kind === 'import') return `import:${writer.tool}`;
  return threadOf(writer) ?? writer.kind;
}

function writerOfAuthor(author: string | null): MemoryWriter {
  if (author === null || author === 'user') return { kind: 'person' };
  if (author === 'import:claude-code' || author === 'import:codex') return { kind: 'import', tool: author.slice('import:'.length) as 'claude-code' | 'codex' };
  return { kind: 'agent', thread: author };
}
