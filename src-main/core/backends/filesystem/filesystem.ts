// FilesystemBackend (SPEC §1, §2): the project folder on disk. In virtual mode (the
// default) every path is virtual with the folder at `/`, resolved through symlinks and
// refused when it lands outside; errors never reveal real paths. Writes are atomic.

import fsp from 'node:fs/promises';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type {
  Backend, DeleteResult, EditResult, FileDownloadResponse, FileInfo, FileOperationError, FileUpload,
  FileUploadResponse, GlobResult, GrepResult, LinkTarget, LsResult, ReadRawResult, ReadResult, StatResult, WriteResult,
} from '../protocol';
import { DEFAULT_GREP_MAX_COUNT, DEFAULT_READ_LIMIT, MAX_BINARY_READ_BYTES } from '../protocol';
import { messages } from '../messages';
import { joinVirtual, normalizeVirtualPath, sortByPath } from '../paths';
import { compileGlob, globPatternError } from './glob-match';
import { applyEdit, decodeUtf8, keepFileConventions, looksBinary } from '../text';
import { SNIFF_BYTES, classifyContent } from '../../media/sniff';
import { recordMessages } from '../store/store-records';
import { NotADirectoryError, OutsideRootError, atomicWriteFile, makeDirsInside } from './fs-atomic-write';
import { LineIndexCache, readLineWindow } from './fs-line-index';
import { READ_FLAGS, accessError, linkTargetOf, resolveInside, virtualOf } from './fs-resolve';
import { isPathInside } from '../../fs/path-inside';
import { errnoOf } from '../../fs/errno';
import { currentTargetGuard, type GuardedOperation } from '../target-guard';
import { forEachLimit } from './fs-pool';
import { gitSurfaceReason } from '../../git/surface';
import { entryFilesReason } from '../../sandbox/protected-entry-files';
import { findRipgrep } from './ripgrep-binary';
import type { SearchEnv, SearchTarget } from './fs-search';
import { globTree, grepFile, grepTree } from './fs-search';
import { linksInto } from '../../fs/links-into';

export interface FilesystemBackendOptions {
  rootDir: string;
  /** Paths are virtual with rootDir at `/` and confined to it (default true). */
  virtualMode?: boolean;
  /** grep skips larger files (default 10). */
  maxFileSizeMb?: number;
  /** grep and glob stop after this long and return what they found, truncated (default 30000). */
  searchTimeBudgetMs?: number;
  /** ripgrep executable; default: the bundled one (ripgrep-binary.ts); null forces the Node search. */
  ripgrepPath?: string | null;
}

export interface SearchOptions {
  signal?: AbortSignal;
}

/** Edits read the whole file into memory; beyond this they are refused. */
const MAX_EDIT_BYTES = 256 * 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;

export type SafePath = { real: string; exists: boolean; virtual: string } | { error: string };

export class FilesystemBackend implements Backend {
  /** The real, resolved root folder. */
  readonly rootDir: string;
  readonly virtualMode: boolean;
  protected readonly maxFileBytes: number;
  protected readonly searchTimeBudgetMs: number;
  private readonly ripgrep: Promise<string | null>;
  private ripgrepFailed = false;
  private readonly lineIndexes = new LineIndexCache(8);

  constructor(options: FilesystemBackendOptions) {
    const resolved = path.resolve(options.rootDir);
    let real = resolved;
    try {
      real = fs.realpathSync.native(resolved);
    } catch {
      // A root that does not exist yet is used as given.
    }
    this.rootDir = real;
    this.virtualMode = options.virtualMode ?? true;
    this.maxFileBytes = Math.floor((options.maxFileSizeMb ?? 10) * 1024 * 1024);
    this.searchTimeBudgetMs = options.searchTimeBudgetMs ?? 30_000;
    const rg = options.ripgrepPath;
    this.ripgrep = rg === null ? Promise.resolve(null) : rg !== undefined ? Promise.resolve(rg) : findRipgrep();
  }

  /**
   * Normalises and resolves a path argument to a real path (symlinks followed). In virtual
   * mode the result is inside rootDir or an error naming only the virtual path.
   */
  async resolveSafe(inputPath: string, operation?: GuardedOperation): Promise<SafePath> {
    const checked = normalizeVirtualPath(inputPath);
    if (!checked.ok) return { error: checked.error };
    const virtual = checked.path;
    if (!this.virtualMode) {
      try {
        return { real: await fsp.realpath(virtual), exists: true, virtual };
      } catch {
        return { real: virtual, exists: false, virtual };
      }
    }
    const resolved = await resolveInside(this.rootDir, virtual);
    if ('error' in resolved) return resolved;
    const refused = operation ? this.guardTarget(operation, virtual, resolved.real) : null;
    return refused !== null ? { error: refused } : { ...resolved, virtual };
  }

  async linkTarget(inputPath: string): Promise<LinkTarget | null> {
    const checked = normalizeVirtualPath(inputPath);
    if (!checked.ok || !this.virtualMode) return null;
    return linkTargetOf(this.rootDir, checked.path);
  }

  async linkedNames(inputPath: string): Promise<string[]> {
    const checked = normalizeVirtualPath(inputPath);
    if (!checked.ok || !this.virtualMode) return [];
    const rel = checked.path.slice(1);
    return (linksInto(this.rootDir, [rel]).get(rel) ?? []).map((name) => `/${name}`);
  }

  async alwaysAskReason(inputPath: string): Promise<string | null> {
    const checked = normalizeVirtualPath(inputPath);
    if (!checked.ok || !this.virtualMode) return null;
    const target = path.join(this.rootDir, ...checked.path.split('/').filter(Boolean));
    // What the folder's configuration runs (a hook's script, SPEC §9) asks like the configuration itself.
    return (await gitSurfaceReason(this.rootDir, target, os.homedir())) ?? entryFilesReason(this.rootDir, target);
  }

  /** Asks the current call's guard (if any) when a path reaches another file than it names. */
  private guardTarget(operation: GuardedOperation, virtual: string, real: string): string | null {
    const guard = currentTargetGuard();
    if (guard === undefined || !isPathInside(this.rootDir, real)) return null;
    const resolved = virtualOf(this.rootDir, real);
    return resolved === virtual ? null : guard.check(operation, virtual, resolved);
  }

  /**
   * Opens a resolved file and proves that the opened file lies inside the root: a symlink
   * or folder swapped between the check and the open cannot hand over a file from outside.
   * On Linux the kernel names the opened file (/proc/self/fd); elsewhere its device and
   * inode must equal those of the file the path resolves to inside the root now.
   */
  private async openVerified(target: { real: string; virtual: string }): Promise<Opened> {
    const opened = await openFile(target.real, target.virtual);
    if ('error' in opened || !this.virtualMode) return opened;
    const kernelPath = await openedPath(opened.handle);
    if (kernelPath !== null) {
      if (isPathInside(this.rootDir, kernelPath)) return opened;
    } else {
      const again = await resolveInside(this.rootDir, target.virtual);
      const same = 'error' in again ? null : await fsp.stat(again.real, { bigint: true }).catch(() => null);
      if (same !== null && same.dev === opened.st.dev && same.ino === opened.st.ino) return opened;
    }
    await opened.handle.close().catch(() => {});
    return { error: messages.changedWhileOpening(target.virtual) };
  }

  async ls(inputPath: string): Promise<LsResult> {
    const target = await this.resolveSafe(inputPath, 'read');
    if ('error' in target) return target;
    const { real, virtual } = target;
    let st: fs.Stats;
    try {
      st = await fsp.stat(real);
    } catch (err) {
      return { error: missing(err) ? messages.pathNotFound(virtual) : accessError(errnoOf(err), virtual) };
    }
    if (!st.isDirectory()) return { entries: [fileInfo(virtual, st)] };
    let names: fs.Dirent[];
    try {
      names = await fsp.readdir(real, { withFileTypes: true });
    } catch (err) {
      return { error: missing(err) ? messages.pathNotFound(virtual) : accessError(errnoOf(err), virtual) };
    }
    const entries: FileInfo[] = [];
    await forEachLimit(names, 32, async (dirent) => {
      const child = joinVirtual(virtual, dirent.name);
      const info = await this.entryInfo(path.join(real, dirent.name), child, dirent);
      if (info) entries.push(info);
    });
    return { entries: sortByPath(entries) };
  }

  async read(inputPath: string, offset = 0, limit = DEFAULT_READ_LIMIT): Promise<ReadResult> {
    const target = await this.resolveSafe(inputPath, 'read');
    if ('error' in target) return target;
    const { real, virtual } = target;
    const opened = await this.openVerified(target);
    if ('error' in opened) return opened;
    const { handle, st } = opened;
    try {
      const times = timesOf(st);
      const size = Number(st.size);
      const head = Buffer.allocUnsafe(Math.min(SNIFF_BYTES, size));
      const kind = classifyContent(virtual, head.subarray(0, await readAt(handle, head, 0)));
      if (!kind.text) {
        // Decided on the size alone, and only that many bytes read: a 1 GB file is never read into memory.
        if (size > MAX_BINARY_READ_BYTES) return { error: messages.binaryTooLarge(virtual, size) };
        const bytes = Buffer.allocUnsafe(size);
        const n = await readAt(handle, bytes, 0);
        return { fileData: { content: bytes.toString('base64', 0, n), encoding: 'base64', mimeType: kind.mimeType, ...times } };
      }
      const start = Math.max(0, Math.floor(offset));
      const count = Math.max(0, Math.floor(limit));
      const key = `${real}\0${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}`;
      const window = await readLineWindow(handle, size, start, count, { store: this.lineIndexes, key });
      const total = window.totalLines;
      if (total === 0) return { fileData: { content: '', encoding: 'utf-8', ...times }, totalLines: 0 };
      if (start >= total) return { error: messages.offsetPastEnd(start, total) };
      const end = start + window.lines.length;
      return {
        fileData: { content: window.lines.join('\n'), encoding: 'utf-8', ...times },
        startLine: start + 1,
        endLine: end,
        totalLines: total,
        ...(end < total ? { nextOffset: end } : {}),
      };
    } catch (err) {
      return { error: accessError(errnoOf(err), virtual) };
    } finally {
      await handle.close().catch(() => {});
    }
  }

  async readRaw(inputPath: string): Promise<ReadRawResult> {
    const target = await this.resolveSafe(inputPath, 'read');
    if ('error' in target) return target;
    const opened = await this.openVerified(target);
    if ('error' in opened) return opened;
    try {
      return { data: new Uint8Array(await opened.handle.readFile()) };
    } catch (err) {
      return { error: accessError(errnoOf(err), target.virtual) };
    } finally {
      await opened.handle.close().catch(() => {});
    }
  }

  async write(inputPath: string, content: string): Promise<WriteResult> {
    const target = await this.resolveSafe(inputPath, 'write');
    if ('error' in target) return target;
    const { real, virtual } = target;
    let previous: string | null = null;
    let mode: number | undefined;
    if (target.exists) {
      const opened = await this.openVerified(target);
      if ('error' in opened) return opened;
      try {
        mode = Number(opened.st.mode);
        previous = await conventionsOf(opened.handle, Number(opened.st.size));
      } catch (err) {
        return { error: accessError(errnoOf(err), virtual) };
      } finally {
        await opened.handle.close().catch(() => {});
      }
    }
    const error = await this.replaceFile(real, virtual, Buffer.from(keepFileConventions(previous, content), 'utf8'), mode);
    return error ? { error } : { path: virtual };
  }

  async edit(inputPath: string, oldString: string, newString: string, replaceAll = false): Promise<EditResult> {
    const target = await this.resolveSafe(inputPath, 'edit');
    if ('error' in target) return target;
    const { real, virtual } = target;
    const opened = await this.openVerified(target);
    if ('error' in opened) return opened;
    let bytes: Buffer;
    const mode = Number(opened.st.mode);
    try {
      if (Number(opened.st.size) > MAX_EDIT_BYTES) return { error: `'${virtual}' is too large to edit (over 256 MB); use write_file or the shell` };
      bytes = await opened.handle.readFile();
    } catch (err) {
      return { error: accessError(errnoOf(err), virtual) };
    } finally {
      await opened.handle.close().catch(() => {});
    }
    if (looksBinary(bytes)) return { error: messages.binaryEdit(virtual) };
    const text = decodeUtf8(bytes);
    if (text === null) return { error: messages.notUtf8(virtual) };
    const outcome = applyEdit(text, oldString, newString, replaceAll);
    if (!outcome.ok) return { error: outcome.error };
    const error = await this.replaceFile(real, virtual, Buffer.from(outcome.content, 'utf8'), mode);
    return error ? { error } : { path: virtual, occurrences: outcome.occurrences };
  }

  async delete(inputPath: string): Promise<DeleteResult> {
    const checked = normalizeVirtualPath(inputPath);
    if (!checked.ok) return { error: checked.error };
    const virtual = checked.path;
    if (virtual === '/') return { error: recordMessages.deleteRoot };
    // The last component is not followed: deleting a symlink removes the link itself.
    const parentVirtual = virtual.slice(0, virtual.lastIndexOf('/')) || '/';
    const parent = await this.resolveSafe(parentVirtual);
    if ('error' in parent) return { error: parent.error === messages.outsideRoot(parentVirtual) ? messages.outsideRoot(virtual) : parent.error };
    if (!parent.exists) return { error: messages.pathNotFound(virtual) };
    const real = path.join(parent.real, virtual.slice(virtual.lastIndexOf('/') + 1));
    const refused = this.guardTarget('delete', virtual, real);
    if (refused !== null) return { error: refused };
    try {
      const st = await fsp.lstat(real);
      if (st.isDirectory()) await fsp.rmdir(real);
      else await fsp.unlink(real);
      return { path: virtual };
    } catch (err) {
      const code = errnoOf(err);
      if (code === 'ENOTEMPTY' || code === 'EEXIST') return { error: recordMessages.folderNotEmpty(virtual) };
      if (missing(err)) return { error: messages.pathNotFound(virtual) };
      return { error: accessError(code, virtual) };
    }
  }

  async grep(pattern: string, inputPath = '/', glob?: string, maxCount = DEFAULT_GREP_MAX_COUNT, options: SearchOptions = {}): Promise<GrepResult> {
    const badGlob = glob ? globPatternError(glob) : null;
    if (badGlob !== null) return { error: badGlob };
    const target = await this.resolveSafe(inputPath, 'read');
    if ('error' in target) return target;
    const kind = await kindOf(target.real);
    if (kind === null) return { error: messages.pathNotFound(target.virtual) };
    const limit = Number.isFinite(maxCount) ? Math.max(0, Math.floor(maxCount)) : DEFAULT_GREP_MAX_COUNT;
    const env = await this.searchEnv(options);
    const searchTarget: SearchTarget = { real: target.real, virtual: target.virtual };
    const filter = glob ? compileGlob(glob) : null;
    if (kind === 'file') {
      const name = target.virtual.slice(target.virtual.lastIndexOf('/') + 1);
      if (filter && !filter.matches(name)) return { matches: [], truncated: false };
      return grepFile(env, searchTarget, pattern, limit);
    }
    return grepTree(env, searchTarget, pattern, filter, limit);
  }

  async glob(pattern: string, inputPath = '/', options: SearchOptions = {}): Promise<GlobResult> {
    const badPattern = globPatternError(pattern);
    if (badPattern !== null) return { error: badPattern };
    const target = await this.resolveSafe(inputPath, 'read');
    if ('error' in target) return target;
    const kind = await kindOf(target.real);
    if (kind === null) return { error: messages.pathNotFound(target.virtual) };
    if (kind === 'file') return { error: messages.notADirectory(target.virtual) };
    const env = await this.searchEnv(options);
    return globTree(env, { real: target.real, virtual: target.virtual }, compileGlob(pattern));
  }

  async stat(inputPath: string): Promise<StatResult> {
    const target = await this.resolveSafe(inputPath);
    if ('error' in target) return target;
    const { real, virtual } = target;
    try {
      const st = await fsp.stat(real, { bigint: true });
      const version = `${st.ino}:${st.size}:${st.mtimeNs}`;
      if (st.isDirectory()) return { info: { path: virtual === '/' ? '/' : virtual + '/', isDir: true, modifiedAt: st.mtime.toISOString() }, version };
      return { info: { path: virtual, size: Number(st.size), modifiedAt: st.mtime.toISOString() }, version };
    } catch (err) {
      return { error: missing(err) ? messages.pathNotFound(virtual) : accessError(errnoOf(err), virtual) };
    }
  }

  async uploadFiles(files: FileUpload[]): Promise<FileUploadResponse[]> {
    const out: FileUploadResponse[] = [];
    for (const { path: inputPath, content } of files) {
      const target = await this.resolveSafe(inputPath, 'write');
      if ('error' in target) {
        out.push({ path: inputPath, error: 'invalid_path' });
        continue;
      }
      const { real, virtual } = target;
      let mode: number | undefined;
      if (target.exists) {
        try {
          const st = await fsp.stat(real);
          if (st.isDirectory()) {
            out.push({ path: virtual, error: 'is_directory' });
            continue;
          }
          mode = st.mode;
        } catch (err) {
          out.push({ path: virtual, error: transferError(err) });
          continue;
        }
      }
      const failure = await this.replaceFileCode(real, content, mode);
      out.push(failure ? { path: virtual, error: failure } : { path: virtual });
    }
    return out;
  }

  async downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
    const out: FileDownloadResponse[] = [];
    for (const inputPath of paths) {
      const target = await this.resolveSafe(inputPath);
      if ('error' in target) {
        out.push({ path: inputPath, error: 'invalid_path' });
        continue;
      }
      const { virtual } = target;
      const opened = await this.openVerified(target);
      if ('error' in opened) {
        out.push({ path: virtual, error: opened.error === messages.isDirectory(virtual) ? 'is_directory' : opened.error === messages.fileNotFound(virtual) ? 'file_not_found' : 'permission_denied' });
        continue;
      }
      try {
        out.push({ path: virtual, content: new Uint8Array(await opened.handle.readFile()) });
      } catch (err) {
        out.push({ path: virtual, error: transferError(err) });
      } finally {
        await opened.handle.close().catch(() => {});
      }
    }
    return out;
  }

  /** Writes `data` over the real path atomically, creating parents; an error message or null. */
  protected async replaceFile(real: string, virtual: string, data: Uint8Array, mode?: number): Promise<string | null> {
    try {
      await this.writeAtomically(real, data, mode);
      return null;
    } catch (err) {
      if (err instanceof NotADirectoryError) return messages.notADirectory(this.safeVirtual(err.real, virtual));
      if (err instanceof OutsideRootError) return messages.outsideRoot(virtual);
      const code = errnoOf(err);
      if (code === 'EISDIR') return messages.isDirectory(virtual);
      if (code === 'ENOTDIR') return messages.notADirectory(virtual);
      return accessError(code, virtual);
    }
  }

  private async replaceFileCode(real: string, data: Uint8Array, mode?: number): Promise<FileOperationError | null> {
    try {
      await this.writeAtomically(real, data, mode);
      return null;
    } catch (err) {
      if (err instanceof NotADirectoryError || err instanceof OutsideRootError) return 'invalid_path';
      if (errnoOf(err) === 'ENOTDIR') return 'invalid_path';
      return transferError(err);
    }
  }

  private async writeAtomically(real: string, data: Uint8Array, mode?: number): Promise<void> {
    const st = await fsp.stat(real).catch(() => null);
    if (st?.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    const root = this.virtualMode ? this.rootDir : null;
    await makeDirsInside(root, path.dirname(real));
    await atomicWriteFile(real, data, mode, root);
  }

  /** A real path's virtual form when it is inside the root, else `fallback`. */
  private safeVirtual(real: string, fallback: string): string {
    if (!this.virtualMode) return real;
    return isPathInside(this.rootDir, real) ? virtualOf(this.rootDir, real) : fallback;
  }

  private async entryInfo(real: string, virtual: string, dirent: fs.Dirent): Promise<FileInfo | null> {
    try {
      if (dirent.isDirectory()) return { path: virtual + '/', isDir: true };
      if (dirent.isSymbolicLink()) {
        // Follow links that stay inside the root; show others as the link itself.
        const target = await fsp.realpath(real).catch(() => null);
        if (target !== null && (!this.virtualMode || isPathInside(this.rootDir, target))) {
          const st = await fsp.stat(target);
          return st.isDirectory() ? { path: virtual + '/', isDir: true } : fileInfo(virtual, st);
        }
      }
      return fileInfo(virtual, await fsp.lstat(real));
    } catch {
      return null;
    }
  }

  private async searchEnv(options: SearchOptions): Promise<SearchEnv> {
    const rg = this.ripgrepFailed ? null : await this.ripgrep;
    return {
      root: this.rootDir,
      contained: this.virtualMode,
      rg,
      maxFileBytes: this.maxFileBytes,
      budgetMs: this.searchTimeBudgetMs,
      ...(options.signal ? { signal: options.signal } : {}),
      onRipgrepFailed: () => {
        this.ripgrepFailed = true;
      },
    };
  }
}

function missing(err: unknown): boolean {
  const code = errnoOf(err);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function transferError(err: unknown): FileOperationError {
  switch (errnoOf(err)) {
    case 'ENOENT':
    case 'ENOTDIR':
      return 'file_not_found';
    case 'EISDIR':
      return 'is_directory';
    default:
      return 'permission_denied';
  }
}

function fileInfo(virtual: string, st: fs.Stats): FileInfo {
  return { path: virtual, size: st.size, modifiedAt: st.mtime.toISOString() };
}

function timesOf(st: fs.BigIntStats): { createdAt?: string; modifiedAt: string } {
  const modifiedAt = st.mtime.toISOString();
  return st.birthtimeMs > 0n ? { createdAt: st.birthtime.toISOString(), modifiedAt } : { modifiedAt };
}

async function kindOf(real: string): Promise<'file' | 'dir' | null> {
  try {
    const st = await fsp.stat(real);
    return st.isDirectory() ? 'dir' : 'file';
  } catch {
    return null;
  }
}

type Opened = { handle: fsp.FileHandle; st: fs.BigIntStats } | { error: string };

/** Opens a resolved regular file without following a symlink swapped in since resolution. */
async function openFile(real: string, virtual: string): Promise<Opened> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(real, READ_FLAGS);
  } catch (err) {
    if (missing(err)) return { error: messages.fileNotFound(virtual) };
    return { error: accessError(errnoOf(err), virtual) };
  }
  try {
    const st = await handle.stat({ bigint: true });
    if (st.isDirectory()) {
      await handle.close();
      return { error: messages.isDirectory(virtual) };
    }
    if (!st.isFile()) {
      await handle.close();
      return { error: `'${virtual}' is not a regular file` };
    }
    return { handle, st };
  } catch (err) {
    await handle.close().catch(() => {});
    return { error: accessError(errnoOf(err), virtual) };
  }
}

/** The real path of an open file as the kernel knows it (Linux), else null. */
async function openedPath(handle: fsp.FileHandle): Promise<string | null> {
  if (process.platform !== 'linux') return null;
  try {
    return (await fsp.readlink(`/proc/self/fd/${handle.fd}`)).replace(/ \(deleted\)$/, '');
  } catch {
    return null;
  }
}

async function readAt(handle: fsp.FileHandle, buf: Buffer, position: number): Promise<number> {
  let got = 0;
  while (got < buf.length) {
    const { bytesRead } = await handle.read(buf, got, buf.length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return got;
}

/**
 * A stand-in for the previous content that carries only what keepFileConventions looks
 * at (a UTF-8 BOM; CRLF when every line break is CRLF), found by streaming the file.
 */
async function conventionsOf(handle: fsp.FileHandle, size: number): Promise<string> {
  const buf = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(size, 1)));
  let bom = false;
  let lf = 0;
  let crlf = 0;
  let prev = -1;
  for (let pos = 0; pos < size; ) {
    const n = await readAt(handle, buf.length > size - pos ? buf.subarray(0, size - pos) : buf, pos);
    if (n === 0) break;
    if (pos === 0) bom = n >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf;
    for (let i = buf.indexOf(0x0a); i >= 0 && i < n; i = buf.indexOf(0x0a, i + 1)) {
      lf++;
      if ((i === 0 ? prev : buf[i - 1]) === 0x0d) crlf++;
    }
    prev = buf[n - 1]!;
    pos += n;
    // One bare LF settles it: the file is not all-CRLF.
    if (crlf < lf) break;
  }
  return (bom ? '\uFEFF' : '') + (lf > 0 && crlf === lf ? '\r\n' : lf > 0 ? '\n' : '');
}
