// StateBackend: files held in memory with the thread (SPEC §2). Folders are implicit,
// derived from file paths. The whole state serialises to a plain snapshot so the thread
// store can persist it; onChange tells it when to.

import type { Backend, FileInfo, GlobResult, GrepMatch, GrepResult, StatResult } from '../protocol';
import { DEFAULT_GREP_MAX_COUNT } from '../protocol';
import { messages } from '../messages';
import { compileGlob, globPatternError } from '../filesystem/glob-match';
import { baseName, compareCodePoints, normalizeVirtualPath, passesThroughGit, relativeVirtual, sortByPath } from '../paths';
import { grepLines, isGreppable, recordSize, type FileRecord } from './store-records';
import { RecordBackend, type NewContent } from './record-backend';

export interface StateFile extends FileRecord {
  /** Monotonic across the whole backend, so a deleted and re-created file never repeats one. */
  version: number;
}

export interface StateSnapshot {
  files: Record<string, StateFile>;
}

export interface StateChange {
  kind: 'write' | 'delete';
  path: string;
}

export type StateChangeListener = (change: StateChange) => void;

export class StateBackend extends RecordBackend<StateFile> implements Backend {
  private readonly files = new Map<string, StateFile>();
  private readonly listeners = new Set<StateChangeListener>();
  private clock = 0;

  constructor(initial?: StateSnapshot) {
    super();
    if (initial) this.load(initial);
  }

  static fromJSON(snapshot: StateSnapshot): StateBackend {
    return new StateBackend(snapshot);
  }

  toJSON(): StateSnapshot {
    const files: Record<string, StateFile> = {};
    for (const path of [...this.files.keys()].sort(compareCodePoints)) files[path] = { ...this.files.get(path)! };
    return { files };
  }

  isEmpty(): boolean {
    return this.files.size === 0;
  }

  /** Called after every mutation. Listeners must not throw. Returns an unsubscribe function. */
  onChange(listener: StateChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async grep(pattern: string, path = '/', glob?: string, maxCount = DEFAULT_GREP_MAX_COUNT): Promise<GrepResult> {
    const p = normalizeVirtualPath(path);
    if (!p.ok) return { error: p.error };
    const single = this.files.get(p.path);
    if (!single && !this.exists(p.path)) return { error: messages.pathNotFound(p.path) };
    const badGlob = glob ? globPatternError(glob) : null;
    if (badGlob !== null) return { error: badGlob };
    const filter = glob ? compileGlob(glob) : null;
    const candidates = single ? [p.path] : this.pathsUnder(p.path);
    const matches: GrepMatch[] = [];
    for (const filePath of candidates) {
      const record = this.files.get(filePath)!;
      if (!single && passesThroughGit(relativeVirtual(p.path, filePath)!)) continue;
      if (filter && !filter.matches(single ? baseName(filePath) : relativeVirtual(p.path, filePath)!)) continue;
      if (!isGreppable(record, recordSize(record.content, record.encoding))) continue;
      if (grepLines(filePath, record.content, pattern, matches, maxCount)) return { matches, truncated: true };
    }
    return { matches, truncated: false };
  }

  async glob(pattern: string, path = '/'): Promise<GlobResult> {
    const p = normalizeVirtualPath(path);
    if (!p.ok) return { error: p.error };
    if (this.files.has(p.path)) return { error: messages.notADirectory(p.path) };
    if (!this.exists(p.path)) return { error: messages.pathNotFound(p.path) };
    const badPattern = globPatternError(pattern);
    if (badPattern !== null) return { error: badPattern };
    const matcher = compileGlob(pattern);
    const matches = this.pathsUnder(p.path)
      .filter((filePath) => {
        const rel = relativeVirtual(p.path, filePath)!;
        return !passesThroughGit(rel) && matcher.matches(rel);
      })
      .map((filePath) => this.info(filePath, this.files.get(filePath)!));
    return { matches, truncated: false };
  }

  async stat(path: string): Promise<StatResult> {
    const p = normalizeVirtualPath(path);
    if (!p.ok) return { error: p.error };
    const file = this.files.get(p.path);
    if (file) return { info: this.info(p.path, file), version: String(file.version) };
    if (this.exists(p.path)) return { info: { path: p.path === '/' ? '/' : p.path + '/', isDir: true } };
    return { error: messages.pathNotFound(p.path) };
  }

  private load(snapshot: StateSnapshot): void {
    for (const [rawPath, file] of Object.entries(snapshot.files ?? {})) {
      const p = normalizeVirtualPath(rawPath);
      if (!p.ok || p.path === '/') continue;
      const version = Number.isSafeInteger(file.version) ? file.version : ++this.clock;
      this.clock = Math.max(this.clock, version);
      this.files.set(p.path, { ...file, version });
    }
  }

  protected file(path: string): StateFile | undefined {
    return this.files.get(path);
  }

  protected hasBelow(dir: string): boolean {
    const prefix = dir + '/';
    for (const filePath of this.files.keys()) if (filePath.startsWith(prefix)) return true;
    return false;
  }

  protected children(dir: string): FileInfo[] {
    const entries = new Map<string, FileInfo>();
    for (const [filePath, record] of this.files) {
      const rel = relativeVirtual(dir, filePath);
      if (rel === null || rel === '') continue;
      const slash = rel.indexOf('/');
      if (slash < 0) entries.set(filePath, this.info(filePath, record));
      else {
        const sub = (dir === '/' ? '/' : dir + '/') + rel.slice(0, slash + 1);
        entries.set(sub, { path: sub, isDir: true });
      }
    }
    return sortByPath([...entries.values()]);
  }

  protected record(file: StateFile): StateFile {
    return file;
  }

  protected put(path: string, data: NewContent, previous: StateFile | undefined): void {
    const now = new Date().toISOString();
    const file: StateFile = {
      content: data.content,
      encoding: data.encoding,
      createdAt: previous?.createdAt ?? now,
      modifiedAt: now,
      version: ++this.clock,
    };
    if (data.mimeType !== undefined) file.mimeType = data.mimeType;
    this.files.set(path, file);
    this.emit({ kind: 'write', path });
  }

  protected remove(path: string): void {
    this.files.delete(path);
    this.emit({ kind: 'delete', path });
  }

  private emit(change: StateChange): void {
    for (const listener of [...this.listeners]) listener(change);
  }

  /** Files below a folder, sorted by code point. */
  private pathsUnder(dir: string): string[] {
    const prefix = dir === '/' ? '/' : dir + '/';
    return [...this.files.keys()].filter((filePath) => filePath.startsWith(prefix)).sort(compareCodePoints);
  }

  protected info(path: string, file: StateFile): FileInfo {
    return { path, size: recordSize(file.content, file.encoding), modifiedAt: file.modifiedAt };
  }
}
