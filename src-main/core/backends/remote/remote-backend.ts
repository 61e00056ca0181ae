// RemoteBackend (SPEC §13): a folder on another machine, reached over one SshConnection.
// Every file operation is one program run on the remote, as Deep Agents' BaseSandbox builds
// file operations on execute: reads, writes, edits, deletes, listings and grep's and glob's
// walks go from the root's descriptor and use what they checked (remote-file-ops.ts); the
// probe and linkTarget are shell scripts (remote-scripts.ts). The results are the
// FilesystemBackend's, message for message: virtual paths with the folder at `/`, resolved
// on the remote through symlinks and refused when they land outside, atomic writes (temp
// file + rename), line endings and BOM kept, the same text/media rules.
//
// A lost connection is an `{ error }` naming the host; the next call connects again.

import { randomBytes } from 'node:crypto';
import type {
  Backend, DeleteResult, EditResult, FileDownloadResponse, FileOperationError, FileUpload, FileUploadResponse,
  GlobResult, GrepMatch, GrepResult, LinkTarget, LsResult, ReadRawResult, ReadResult, StatResult, WriteResult,
} from '../protocol';
import { DEFAULT_GREP_MAX_COUNT, DEFAULT_READ_LIMIT, MAX_BINARY_READ_BYTES } from '../protocol';
import { messages } from '../messages';
import { normalizeVirtualPath } from '../paths';
import { compileGlob, globPatternError } from '../filesystem/glob-match';
import { applyEdit, decodeUtf8, keepFileConventions, looksBinary, splitLines } from '../text';
import { SNIFF_BYTES, classifyContent } from '../../media/sniff';
import { recordMessages } from '../store/store-records';
import { MAX_WINDOW_BYTES } from '../filesystem/fs-line-index';
import { MatchCollector } from '../filesystem/fs-search';
import { isoTime } from '../filesystem/fs-file-infos';
import { currentTargetGuard, type GuardedOperation } from '../target-guard';
import { type SshConnection, SshConnectionError } from './ssh-connection';
import { shQuote } from '../../text/shell-quote';
import { FieldReader, LINK, PRELUDE, PROBE, REPLY_MARK, afterMark, parseReply, parseStat, type Reply } from './remote-scripts';
import { fileOp } from './remote-file-ops';
import { globInfos, grepTargets, listingEntries, parseGrepLines, parseTree } from './remote-search';

export interface RemoteBackendOptions {
  connection: SshConnection;
  /** grep skips larger files (default 10). */
  maxFileSizeMb?: number;
  /** grep and glob give up after this long (default 30000). */
  searchTimeBudgetMs?: number;
}

/**
 * Text files up to this size are fetched whole in the call that classifies them and
 * windowed here (one round trip, and text.ts's line rules); larger ones are classified on
 * their first 8 KiB and read with a remote `sed` window plus a line count, so a paged
 * read of a large file never copies the file.
 */
export const WHOLE_READ_BYTES = 512 * 1024;
/** Edits read the whole file; beyond this they are refused (as on disk). */
const MAX_EDIT_BYTES = 256 * 1024 * 1024;

interface Probe {
  /** The folder's real path on the remote, or null when it does not exist. */
  root: string | null;
  /** Set when the remote lacks the tools the scripts need. */
  unsupported?: string;
  /** The remote's python3 (remote-file-ops.ts). */
  python: string;
}

type Resolved = { virtual: string } | { error: string };

export class RemoteBackend implements Backend {
  readonly connection: SshConnection;
  private readonly maxFileBytes: number;
  private readonly searchTimeBudgetMs: number;
  private probed: Promise<Probe> | null = null;

  constructor(options: RemoteBackendOptions) {
    this.connection = options.connection;
    this.maxFileBytes = Math.floor((options.maxFileSizeMb ?? 10) * 1024 * 1024);
    this.searchTimeBudgetMs = options.searchTimeBudgetMs ?? 30_000;
  }

  /** The host as messages name it (`dev@box:2222`). */
  get label(): string {
    return this.connection.label;
  }

  /** Checks the remote's tools and resolves the root, once per backend (again after a failed try). */
  private probe(): Promise<Probe> {
    if (this.probed === null) {
      this.probed = this.connection.run(`set -- ${shQuote(this.connection.target.path)}\n${PRINT_MARK}\n${PROBE}`).then(
        (r) => parseProbe(afterMark(r.stdout)),
        (err: unknown) => {
          this.probed = null;
          throw err;
        },
      );
    }
    return this.probed;
  }

  /** Runs a script body with PRELUDE, the root and `args`; throws SshConnectionError or a text for the person. */
  private async call(body: string, args: string[], input?: Uint8Array | string, timeoutMs?: number): Promise<Reply> {
    const probe = await this.probe();
    if (probe.unsupported) throw new RemoteToolsError(probe.unsupported);
    if (probe.root === null) throw new RemoteRootMissing();
    const script = `set -- ${[probe.root, ...args].map(shQuote).join(' ')}\nPY=${shQuote(probe.python)}\n${PRINT_MARK}\n${PRELUDE}\n${body}`;
    const r = await this.connection.run(script, { input: input ?? '', ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
    const reply = parseReply(r.stdout);
    // Our scripts always answer; silence with ssh's own status means the connection went.
    if (reply.status === '' && r.code === 255) throw new SshConnectionError(`lost the connection (${this.label}): ${lastLine(r.stderr) || 'no answer'}`, 'lost');
    if (reply.status === '' && r.code !== 0) reply.status = 'failed';
    if (reply.status === 'failed') reply.args = [lastLine(r.stderr) || `exit ${r.code}`];
    return reply;
  }

  /** A failure of any kind as the `error` text of a result. */
  private failed(err: unknown, virtual: string): string {
    if (err instanceof SshConnectionError) return err.message;
    if (err instanceof RemoteToolsError) return `${err.message} (${this.label})`;
    if (err instanceof RemoteRootMissing) return messages.pathNotFound(virtual);
    return `Cannot access '${virtual}' on ${this.label}: ${err instanceof Error ? err.message : String(err)}`;
  }

  /**
   * Normalises a path; when the current tool call has a target guard, resolves it on the
   * remote first and asks the guard when it reaches another file than it names.
   */
  private async prepare(inputPath: string, operation?: GuardedOperation): Promise<Resolved> {
    const checked = normalizeVirtualPath(inputPath);
    if (!checked.ok) return { error: checked.error };
    const virtual = checked.path;
    const guard = operation ? currentTargetGuard() : undefined;
    if (guard === undefined) return { virtual };
    const reply = await this.call(fileOp('resolve'), [relOf(virtual)]);
    // A write into folders that do not exist yet makes them (upload): no link on the way leads elsewhere.
    if (reply.status === 'missing' && operation === 'write') return { virtual };
    if (reply.status !== 'ok' && reply.status !== 'new') return { error: replyError(reply, virtual, 'path') };
    const root = (await this.probe()).root!;
    const resolved = virtualOfReal(root, reply.payload.toString('utf8'));
    const refused = resolved === null || resolved === virtual ? null : guard.check(operation!, virtual, resolved);
    return refused === null ? { virtual } : { error: refused };
  }

  /** Where a path leads through symlinks, followed on the remote (see Backend.linkTarget). */
  async linkTarget(inputPath: string): Promise<LinkTarget | null> {
    const checked = normalizeVirtualPath(inputPath);
    if (!checked.ok) return null;
    try {
      const reply = await this.call(LINK, [relOf(checked.path)]);
      if (reply.status !== 'ok') return null;
      const real = reply.payload.toString('utf8');
      const resolved = virtualOfReal((await this.probe()).root!, real);
      if (resolved === null) return { outside: real };
      return resolved === checked.path ? null : { virtual: resolved };
    } catch {
      return null;
    }
  }

  /**
   * A lexical subset of the disk backend's git surface check (git/surface.ts reads the
   * local disk): anything named `.git` or inside a `.git` folder always asks.
   */
  async alwaysAskReason(inputPath: string): Promise<string | null> {
    const checked = normalizeVirtualPath(inputPath);
    if (!checked.ok) return null;
    const parts = checked.path.split('/');
    if (parts.slice(0, -1).includes('.git')) return 'it is inside a git folder';
    if (parts.at(-1) === '.git') return 'it is where git looks for a repository';
    return null;
  }

  async ls(inputPath: string): Promise<LsResult> {
    let virtual = inputPath;
    try {
      const target = await this.prepare(inputPath, 'read');
      if ('error' in target) return target;
      virtual = target.virtual;
      const reply = await this.call(fileOp('ls'), [relOf(virtual)]);
      if (reply.status === 'file') {
        const st = parseStat(reply.args);
        return { entries: st ? [{ path: virtual, size: st.size, modifiedAt: isoTime(st.mtimeMs) }] : [] };
      }
      if (reply.status !== 'ok') return { error: replyError(reply, virtual, 'path') };
      return { entries: listingEntries(reply.payload, virtual) };
    } catch (err) {
      return { error: this.failed(err, virtual) };
    }
  }

  async read(inputPath: string, offset = 0, limit = DEFAULT_READ_LIMIT): Promise<ReadResult> {
    let virtual = inputPath;
    try {
      const target = await this.prepare(inputPath, 'read');
      if ('error' in target) return target;
      virtual = target.virtual;
      const rel = relOf(virtual);
      const reply = await this.call(fileOp('read'), [rel, String(WHOLE_READ_BYTES), '-']);
      if (reply.status !== 'ok') return { error: replyError(reply, virtual, 'file') };
      const st = parseStat(reply.args)!;
      const whole = st.size <= WHOLE_READ_BYTES;
      const times = { ...(st.createdAt !== undefined ? { createdAt: st.createdAt } : {}), modifiedAt: st.modifiedAt };
      const kind = classifyContent(virtual, reply.payload.subarray(0, SNIFF_BYTES));
      if (!kind.text) {
        if (st.size > MAX_BINARY_READ_BYTES) return { error: messages.binaryTooLarge(virtual, st.size) };
        let bytes = reply.payload;
        if (!whole) {
          const all = await this.call(fileOp('read'), [rel, String(MAX_BINARY_READ_BYTES), String(MAX_BINARY_READ_BYTES)]);
          if (all.status === 'toolarge') return { error: messages.binaryTooLarge(virtual, parseStat(all.args)?.size ?? st.size) };
          if (all.status !== 'ok') return { error: replyError(all, virtual, 'file') };
          bytes = all.payload;
        }
        return { fileData: { content: bytes.toString('base64'), encoding: 'base64', mimeType: kind.mimeType, ...times } };
      }
      const start = Math.max(0, Math.floor(offset));
      const count = Math.max(0, Math.floor(limit));
      let lines: string[];
      let total: number;
      if (whole) {
        const all = splitLines(lossy.decode(reply.payload));
        total = all.length;
        lines = all.slice(start, start + count);
      } else {
        const window = await this.window(rel, virtual, start, count);
        if ('error' in window) return window;
        ({ lines, total } = window);
      }
      return textWindow(lines, start, total, times);
    } catch (err) {
      return { error: this.failed(err, virtual) };
    }
  }

  /** Lines start..start+count-1 (0-based) of a large text file and its line count, read on the remote. */
  private async window(rel: string, virtual: string, start: number, count: number): Promise<{ lines: string[]; total: number } | { error: string }> {
    const reply = await this.call(fileOp('window'), [rel, String(start + 1), String(start + count), String(MAX_WINDOW_BYTES)]);
    if (reply.status !== 'ok') return { error: replyError(reply, virtual, 'file') };
    const nl = reply.payload.indexOf(0x0a);
    const [newlines = '0', last = ''] = reply.payload.subarray(0, nl).toString('utf8').trim().split(/\s+/);
    return windowLines(reply.payload.subarray(nl + 1), count, { newlines: Number(newlines), lastByteHex: last, size: parseStat(reply.args)!.size });
  }

  async readRaw(inputPath: string): Promise<ReadRawResult> {
    let virtual = inputPath;
    try {
      const target = await this.prepare(inputPath, 'read');
      if ('error' in target) return target;
      virtual = target.virtual;
      const reply = await this.call(fileOp('read'), [relOf(virtual), String(Number.MAX_SAFE_INTEGER), '-']);
      if (reply.status !== 'ok') return { error: replyError(reply, virtual, 'file') };
      return { data: new Uint8Array(reply.payload) };
    } catch (err) {
      return { error: this.failed(err, virtual) };
    }
  }

  async write(inputPath: string, content: string): Promise<WriteResult> {
    let virtual = inputPath;
    try {
      const target = await this.prepare(inputPath, 'write');
      if ('error' in target) return target;
      virtual = target.virtual;
      const rel = relOf(virtual);
      // One call in the usual case; an old file with a BOM or CRLF line breaks answers with
      // its conventions instead, and the converted text goes in a second call.
      let reply = await this.upload(rel, Buffer.from(content, 'utf8'), 'text');
      if (reply.status === 'conventions') {
        const previous = conventionsStandIn(reply.payload.toString('utf8'));
        reply = await this.upload(rel, Buffer.from(keepFileConventions(previous, content), 'utf8'));
      }
      const error = await this.uploadError(reply, virtual);
      return error ? { error } : { path: virtual };
    } catch (err) {
      return { error: this.failed(err, virtual) };
    }
  }

  async edit(inputPath: string, oldString: string, newString: string, replaceAll = false): Promise<EditResult> {
    let virtual = inputPath;
    try {
      const target = await this.prepare(inputPath, 'edit');
      if ('error' in target) return target;
      virtual = target.virtual;
      const rel = relOf(virtual);
      const reply = await this.call(fileOp('read'), [rel, String(MAX_EDIT_BYTES), String(MAX_EDIT_BYTES)]);
      if (reply.status === 'toolarge') return { error: `'${virtual}' is too large to edit (over 256 MB); use write_file or the shell` };
      if (reply.status !== 'ok') return { error: replyError(reply, virtual, 'file') };
      const bytes = reply.payload;
      if (looksBinary(bytes)) return { error: messages.binaryEdit(virtual) };
      const text = decodeUtf8(bytes);
      if (text === null) return { error: messages.notUtf8(virtual) };
      const outcome = applyEdit(text, oldString, newString, replaceAll);
      if (!outcome.ok) return { error: outcome.error };
      const error = await this.uploadError(await this.upload(rel, Buffer.from(outcome.content, 'utf8')), virtual);
      return error ? { error } : { path: virtual, occurrences: outcome.occurrences };
    } catch (err) {
      return { error: this.failed(err, virtual) };
    }
  }

  /**
   * Writes `data` over the file atomically on the remote (temp file + mv, the old file's
   * mode kept), creating parents. `text`: hand back the old file's conventions instead
   * when they would change what is stored (see UPLOAD).
   */
  private upload(rel: string, data: Uint8Array, kind: 'text' | 'bytes' = 'bytes'): Promise<Reply> {
    return this.call(fileOp('upload'), [rel, String(data.length), kind === 'text' ? 'text' : '', randomBytes(6).toString('hex')], data);
  }

  /** An upload's failure as write()'s error text, or null. */
  private async uploadError(reply: Reply, virtual: string): Promise<string | null> {
    if (reply.status === 'ok') return null;
    if (reply.status === 'notdir') {
      const root = (await this.probe()).root!;
      return messages.notADirectory(virtualOfReal(root, reply.payload.toString('utf8')) ?? virtual);
    }
    if (reply.status === 'short') return `lost the connection (${this.label}) while writing '${virtual}'; the file was not changed`;
    return replyError(reply, virtual, 'file');
  }

  async delete(inputPath: string): Promise<DeleteResult> {
    let virtual = inputPath;
    try {
      const target = await this.prepare(inputPath, 'delete');
      if ('error' in target) return target;
      virtual = target.virtual;
      if (virtual === '/') return { error: recordMessages.deleteRoot };
      const slash = virtual.lastIndexOf('/');
      const parent = virtual.slice(0, slash) || '/';
      const reply = await this.call(fileOp('delete'), [relOf(parent), virtual.slice(slash + 1)]);
      if (reply.status === 'ok') return { path: virtual };
      return { error: replyError(reply, virtual, 'path') };
    } catch (err) {
      return { error: this.failed(err, virtual) };
    }
  }

  async stat(inputPath: string): Promise<StatResult> {
    let virtual = inputPath;
    try {
      const target = await this.prepare(inputPath);
      if ('error' in target) return target;
      virtual = target.virtual;
      const reply = await this.call(fileOp('stat'), [relOf(virtual)]);
      if (reply.status !== 'ok') return { error: replyError(reply, virtual, 'path') };
      const st = parseStat(reply.args)!;
      if (st.isDir) return { info: { path: virtual === '/' ? '/' : virtual + '/', isDir: true, modifiedAt: st.modifiedAt }, version: st.version };
      return { info: { path: virtual, size: st.size, modifiedAt: st.modifiedAt }, version: st.version };
    } catch (err) {
      return { error: this.failed(err, virtual) };
    }
  }

  async grep(pattern: string, inputPath = '/', glob?: string, maxCount = DEFAULT_GREP_MAX_COUNT): Promise<GrepResult> {
    let virtual = inputPath;
    try {
      const badGlob = glob ? globPatternError(glob) : null;
      if (badGlob !== null) return { error: badGlob };
      const target = await this.prepare(inputPath, 'read');
      if ('error' in target) return target;
      virtual = target.virtual;
      const limit = Number.isFinite(maxCount) ? Math.max(0, Math.floor(maxCount)) : DEFAULT_GREP_MAX_COUNT;
      const filter = glob ? compileGlob(glob) : null;
      const tree = await this.call(fileOp('tree'), [relOf(virtual)], undefined, this.searchTimeBudgetMs);
      if (tree.status === 'special') return { matches: [], truncated: false };
      if (tree.status !== 'ok' && tree.status !== 'file') return { error: replyError(tree, virtual, 'path') };
      const collector = new MatchCollector(limit);
      // A line never holds '\n', so such a pattern cannot match; a NUL cannot be passed to the remote grep and only
      // matches past a text file's first 8 KiB (earlier it makes the file binary): such a search finds nothing here.
      if (pattern.includes('\n') || pattern.includes('\0')) return collector.finish(false);
      const files = grepTargets(tree, virtual, filter, this.maxFileBytes);
      if (files.size === 0) return collector.finish(false);
      const list = Buffer.concat([...files.keys()].map((real) => Buffer.from(`${real}\0`, 'utf8')));
      const found = await this.call(fileOp('grep'), [pattern, String(limit + 1), String(this.maxFileBytes)], list, this.searchTimeBudgetMs);
      if (found.status !== 'ok') return { error: replyError(found, virtual, 'path') };
      const reader = new FieldReader(found.payload);
      while (!reader.done) {
        const real = reader.next();
        const lines = reader.framed();
        const path = real === null ? undefined : files.get(real);
        if (path === undefined || lines === null) continue;
        for (const hit of parseGrepLines(lines)) collector.add({ path, ...hit } satisfies GrepMatch);
      }
      return collector.finish(false);
    } catch (err) {
      return { error: this.failed(err, virtual) };
    }
  }

  async glob(pattern: string, inputPath = '/'): Promise<GlobResult> {
    let virtual = inputPath;
    try {
      const badPattern = globPatternError(pattern);
      if (badPattern !== null) return { error: badPattern };
      const target = await this.prepare(inputPath, 'read');
      if ('error' in target) return target;
      virtual = target.virtual;
      const tree = await this.call(fileOp('tree'), [relOf(virtual)], undefined, this.searchTimeBudgetMs);
      if (tree.status === 'file' || tree.status === 'special') return { error: messages.notADirectory(virtual) };
      if (tree.status !== 'ok') return { error: replyError(tree, virtual, 'path') };
      return { matches: globInfos(parseTree(tree.payload), virtual, compileGlob(pattern)), truncated: false };
    } catch (err) {
      return { error: this.failed(err, virtual) };
    }
  }

  uploadFiles(files: FileUpload[]): Promise<FileUploadResponse[]> {
    return this.transferEach(
      files.map((f) => f.path),
      'write',
      async (virtual, i) => this.upload(relOf(virtual), files[i]!.content),
      (virtual) => ({ path: virtual }),
    );
  }

  downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
    return this.transferEach(
      paths,
      'read',
      (virtual) => this.call(fileOp('read'), [relOf(virtual), String(Number.MAX_SAFE_INTEGER), '-']),
      (virtual, reply) => ({ path: virtual, content: new Uint8Array(reply.payload) }),
    );
  }

  /**
   * One script per path, in order: a path that is malformed, refused or outside the folder is
   * `invalid_path` (named as given); a failed call (a lost connection, for which the protocol
   * has no code) is `permission_denied`, and nothing was transferred.
   */
  private async transferEach<R>(
    paths: string[],
    operation: GuardedOperation,
    run: (virtual: string, index: number) => Promise<Reply>,
    done: (virtual: string, reply: Reply) => R,
  ): Promise<Array<R | { path: string; error: FileOperationError }>> {
    const out: Array<R | { path: string; error: FileOperationError }> = [];
    for (const [index, inputPath] of paths.entries()) {
      const checked = normalizeVirtualPath(inputPath);
      if (!checked.ok) {
        out.push({ path: inputPath, error: 'invalid_path' });
        continue;
      }
      const virtual = checked.path;
      try {
        const target = await this.prepare(virtual, operation);
        const reply = 'error' in target ? null : await run(virtual, index);
        if (reply === null || reply.status === 'outside' || reply.status === 'noroot') out.push({ path: inputPath, error: 'invalid_path' });
        else out.push(reply.status === 'ok' ? done(virtual, reply) : { path: virtual, error: transferError(reply.status) });
      } catch {
        out.push({ path: virtual, error: 'permission_denied' });
      }
    }
    return out;
  }
}

/** read()'s result for `lines` of a text file from 0-based line `start`, of `total` lines. */
export function textWindow(lines: string[], start: number, total: number, times: { createdAt?: string; modifiedAt?: string }): ReadResult {
  if (total === 0) return { fileData: { content: '', encoding: 'utf-8', ...times }, totalLines: 0 };
  if (start >= total) return { error: messages.offsetPastEnd(start, total) };
  const end = start + lines.length;
  return {
    fileData: { content: lines.join('\n'), encoding: 'utf-8', ...times },
    startLine: start + 1,
    endLine: end,
    totalLines: total,
    ...(end < total ? { nextOffset: end } : {}),
  };
}

/**
 * The first `count` lines of a window cut out of a large file on the other side (`sed -n`,
 * at most MAX_WINDOW_BYTES) and the file's line count, from `wc -l`, its last byte and size.
 */
export function windowLines(window: Buffer, count: number, file: { newlines: number; lastByteHex: string; size: number }): { lines: string[]; total: number } {
  const total = file.newlines + (file.size > 0 && file.lastByteHex !== '0a' ? 1 : 0);
  let body = window;
  if (body.length >= MAX_WINDOW_BYTES) {
    // As on disk: a window over the byte cap keeps its whole lines, or cuts a single huge line.
    const lastNl = body.lastIndexOf(0x0a);
    if (lastNl >= 0) body = body.subarray(0, lastNl + 1);
  }
  const lines = count === 0 ? [] : splitLines(lossy.decode(body)).slice(0, count);
  return { lines, total };
}

/** A script's failure status as the disk backend's error text (`missing`: which not-found message). */
export function replyError(reply: Reply, virtual: string, missing: 'file' | 'path'): string {
  switch (reply.status) {
    case 'outside':
      return messages.outsideRoot(virtual);
    case 'noroot':
      return messages.pathNotFound(virtual);
    case 'missing':
      return missing === 'file' ? messages.fileNotFound(virtual) : messages.pathNotFound(virtual);
    case 'isdir':
      return messages.isDirectory(virtual);
    case 'notfile':
      return `'${virtual}' is not a regular file`;
    case 'denied':
      return messages.permissionDenied(virtual);
    case 'notempty':
      return recordMessages.folderNotEmpty(virtual);
    default:
      return `Cannot access '${virtual}' (${[reply.status, ...reply.args].join(' ')})`;
  }
}

class RemoteToolsError extends Error {}
class RemoteRootMissing extends Error {}

const PRINT_MARK = `printf '%s' ${shQuote(REPLY_MARK)}`;

const lossy = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

export function relOf(virtual: string): string {
  return virtual === '/' ? '' : virtual.slice(1);
}

/** The virtual path of a remote real path inside `root`, or null when outside. */
export function virtualOfReal(root: string, real: string): string | null {
  if (real === root) return '/';
  const prefix = root === '/' ? '/' : `${root}/`;
  return real.startsWith(prefix) ? `/${real.slice(prefix.length)}` : null;
}

function parseProbe(stdout: Buffer): Probe {
  const reader = new FieldReader(stdout);
  const stat = reader.next();
  const find = reader.next();
  const root = reader.next();
  const python = reader.next();
  const missing = [stat !== 'gnu' ? 'GNU stat' : '', find !== 'gnu' ? 'GNU find and realpath' : ''].filter(Boolean);
  const needs = [
    ...(missing.length > 0 ? [`${missing.join(' and ')} (GNU coreutils and findutils, as on Linux)`] : []),
    ...(!python ? ['python3 (its file tools open each path relative to the folder checked)'] : []),
  ];
  return {
    root: root ? root : null,
    python: python ?? '',
    ...(needs.length > 0 ? { unsupported: `the remote folder needs ${needs.join(' and ')}` } : {}),
  };
}

/**
 * What keepFileConventions looks at in the old file (a BOM; CRLF when every line break
 * is CRLF), from UPLOAD's counts: `x<first 3 bytes> <newlines> <line breaks without CR> x<last byte>`.
 */
export function conventionsStandIn(facts: string): string {
  const [head = 'x', lfText = '0', bareText = '0'] = facts.trim().split(/\s+/);
  const lf = Number(lfText);
  const bom = head === 'xefbbbf';
  return (bom ? '\uFEFF' : '') + (lf > 0 && Number(bareText) === 0 ? '\r\n' : lf > 0 ? '\n' : '');
}

export function transferError(status: string): FileOperationError {
  switch (status) {
    case 'missing':
      return 'file_not_found';
    case 'isdir':
      return 'is_directory';
    case 'outside':
    case 'noroot':
    case 'notdir':
      return 'invalid_path';
    default:
      return 'permission_denied';
  }
}

function lastLine(text: string): string {
  return text.trim().split('\n').pop()?.trim() ?? '';
}

