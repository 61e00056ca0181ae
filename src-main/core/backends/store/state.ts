// StateBackend: files held in memory with the thread (SPEC §2). Folders are implicit,
// derived from file paths. The whole state serialises to a plain snapshot so the thread
// store can persist it; onChange tells it when to.

import type {
  Backend, DeleteResult, EditResult, FileDownloadResponse, FileInfo, FileUpload, FileUploadResponse,
  GlobResult, GrepMatch, GrepResult, LsResult, ReadRawResult, ReadResult, StatResult, WriteResult,
} from '../protocol';
import { DEFAULT_GREP_MAX_COUNT, DEFAULT_READ_LIMIT } from '../protocol';
import { messages } from '../messages';
import { compileGlob, globPatternError } from '../filesystem/glob-match';
import { baseName, compareCodePoints, normalizeVirtualPath, passesThroughGit, relativeVirtual, sortByPath } from '../paths';
import { keepFileConventions } from '../text';
import type { FileRecord } from './store-records';
import {
  ancestorsOf, editRecord, grepLines, isGreppable, previousText, readRecord, recordBytes, recordFromBytes,
  recordMessages, recordSize,
} from './store-records';

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

export class StateBackend implements Backend {
  private readonly files = new Map<string, StateFile>();
  private readonly listeners = new Set<StateChangeListener>();
  private clock = 0;

  constructor(initial?: StateSnapshot) {
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

  async ls(path: string): Promise<LsResult> {
    const p = normalizeVirtualPath(path);
    if (!p.ok) return { error: p.error };
    const file = this.files.get(p.path);
    if (file) return { entries: [this.info(p.path, file)] };
    const entries = new Map<string, FileInfo>();
    for (const [filePath, record] of this.files) {
      const rel = relativeVirtual(p.path, filePath);
      if (rel === null || rel === '') continue;
      const slash = rel.indexOf('/');
      if (slash < 0) entries.set(filePath, this.info(filePath, record));
      else {
        const dir = (p.path === '/' ? '/' : p.path + '/') + rel.slice(0, slash + 1);
        entries.set(dir, { path: dir, isDir: true });
      }
    }
    if (entries.size === 0 && p.path !== '/') return { error: messages.pathNotFound(p.path) };
    return { entries: sortByPath([...entries.values()]) };
  }

  async read(path: string, offset = 0, limit = DEFAULT_READ_LIMIT): Promise<ReadResult> {
    const p = normalizeVirtualPath(path);
    if (!p.ok) return { error: p.error };
    const file = this.files.get(p.path);
    if (!file) return { error: this.isFolder(p.path) ? messages.isDirectory(p.path) : messages.fileNotFound(p.path) };
    return readRecord(p.path, file, offset, limit);
  }

  async readRaw(path: string): Promise<ReadRawResult> {
    const p = normalizeVirtualPath(path);
    if (!p.ok) return { error: p.error };
    const file = this.files.get(p.path);
    if (!file) return { error: this.isFolder(p.path) ? messages.isDirectory(p.path) : messages.fileNotFound(p.path) };
    return { data: recordBytes(file) };
  }

  async write(path: string, content: string): Promise<WriteResult> {
    const p = normalizeVirtualPath(path);
    if (!p.ok) return { error: p.error };
    const blocked = this.writeBlocker(p.path);
    if (blocked) return { error: blocked };
    const previous = this.files.get(p.path);
    this.put(p.path, { content: keepFileConventions(previousText(previous), content), encoding: 'utf-8' }, previous);
    return { path: p.path };
  }

  async edit(path: string, oldString: string, newString: string, replaceAll = false): Promise<EditResult> {
    const p = normalizeVirtualPath(path);
    if (!p.ok) return { error: p.error };
    const file = this.files.get(p.path);
    if (!file) return { error: this.isFolder(p.path) ? messages.isDirectory(p.path) : messages.fileNotFound(p.path) };
    const outcome = editRecord(p.path, file, oldString, newString, replaceAll);
    if (!outcome.ok) return { error: outcome.error };
    this.put(p.path, { content: outcome.content, encoding: 'utf-8' }, file);
    return { path: p.path, occurrences: outcome.occurrences };
  }

  async delete(path: string): Promise<DeleteResult> {
    const p = normalizeVirtualPath(path);
    if (!p.ok) return { error: p.error };
    if (p.path === '/') return { error: recordMessages.deleteRoot };
    if (!this.files.has(p.path)) {
      // Folders are implicit, so an existing one always holds files.
      return { error: this.isFolder(p.path) ? recordMessages.folderNotEmpty(p.path) : messages.pathNotFound(p.path) };
    }
    this.files.delete(p.path);
    this.emit({ kind: 'delete', path: p.path });
    return { path: p.path };
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

  async uploadFiles(files: FileUpload[]): Promise<FileUploadResponse[]> {
    return files.map(({ path, content }) => {
      const p = normalizeVirtualPath(path);
      if (!p.ok) return { path, error: 'invalid_path' };
      if (this.writeBlocker(p.path)) return { path: p.path, error: p.path === '/' || this.isFolder(p.path) ? 'is_directory' : 'invalid_path' };
      this.put(p.path, recordFromBytes(p.path, content), this.files.get(p.path));
      return { path: p.path };
    });
  }

  async downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
    return paths.map((path) => {
      const p = normalizeVirtualPath(path);
      if (!p.ok) return { path, error: 'invalid_path' };
      const file = this.files.get(p.path);
      if (!file) return { path: p.path, error: this.exists(p.path) ? 'is_directory' : 'file_not_found' };
      return { path: p.path, content: recordBytes(file) };
    });
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

  private put(path: string, data: Pick<FileRecord, 'content' | 'encoding' | 'mimeType'>, previous: StateFile | undefined): void {
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

  private emit(change: StateChange): void {
    for (const listener of [...this.listeners]) listener(change);
  }

  /** Why a file cannot be written at `path`, or null. */
  private writeBlocker(path: string): string | null {
    if (path === '/' || this.isFolder(path)) return messages.isDirectory(path);
    for (const dir of ancestorsOf(path)) if (this.files.has(dir)) return messages.notADirectory(dir);
    return null;
  }

  private isFolder(path: string): boolean {
    if (path === '/') return true;
    const prefix = path + '/';
    for (const filePath of this.files.keys()) if (filePath.startsWith(prefix)) return true;
    return false;
  }

  private exists(path: string): boolean {
    return this.files.has(path) || this.isFolder(path);
  }

  /** Files below a folder, sorted by code point. */
  private pathsUnder(dir: string): string[] {
    const prefix = dir === '/' ? '/' : dir + '/';
    return [...this.files.keys()].filter((filePath) => filePath.startsWith(prefix)).sort(compareCodePoints);
  }

  private info(path: string, file: StateFile): FileInfo {
    return { path, size: recordSize(file.content, file.encoding), modifiedAt: file.modifiedAt };
  }
}
