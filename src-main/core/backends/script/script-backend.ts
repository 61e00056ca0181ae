// ScriptBackend (SPEC §2, §13, §18): a folder's file tools at a Place (place.ts), written once as
// Deep Agents' BaseSandbox writes them over a sandbox's execute/upload/download: every operation
// is a script run at the place that resolves the path there (links followed, refused when they
// land outside the folder) and looks, lists or moves. The results are the FilesystemBackend's,
// message for message, with the folder at `/`: virtual paths, atomic writes (temp file +
// rename), line endings and BOM kept, the same text/media rules.
//
// How file contents travel is the place's (Place.transfer):
// - `bytes` (another machine over SSH): with the script itself, on its stdin and stdout. The
//   operations are descriptor-ops.ts's python3 program, which walks every path from the
//   folder's descriptor and uses what it checked, however the place's processes swap links
//   meanwhile; a place without python3 has its file tools refused (never served by racy code).
// - `files` (a provider's sandbox, whose execute gives text back only): by the place's upload
//   and download; posix-scripts.ts resolve, check and rename into place (a write goes up to a
//   temp file in the folder first).
//
// Round trips (`files`): ls, stat, delete, glob: one script. read: one script for a file up to
// INLINE_READ_BYTES (its bytes come with the answer; + one download when they did not come
// through the text output unchanged), else one script + one download (a text file over 10 MB: the
// window is cut at the place, + one script to remove it); a read of a larger path read before
// downloads while its script checks, so it waits for one of them. readRaw: one script + one download.
// write: one upload + one script (a BOM or CRLF file: twice). edit: one download + one upload +
// one script (+ one script to name a failure). grep: two scripts. uploadFiles, downloadFiles:
// one transfer + one script for the whole batch. (`bytes`: one script each, a read of a large or
// binary file two; uploadFiles and downloadFiles one per file.)
//
// When the current tool call has a target guard (target-guard.ts), a path is resolved at the
// place first and the guard asked when it reaches another file than it names. A place's failure
// (PlaceError) is the result's `error`, in its plain words; a lost SSH connection is one, and the
// next call connects again.

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
import { byteGroups } from '../../text/byte-groups';
import { shQuote } from '../../text/shell-quote';
import { PlaceError, type Place, type PlaceFileError } from './place';
import { FieldReader, LINK, PRELUDE as BYTES_PRELUDE, PROBE, REPLY_MARK, afterMark, lastLine, parseReply, parseStat, type Reply } from './script-replies';
import { fileOp } from './descriptor-ops';
import { COMMIT, DELETE, GREP, LS, PRELUDE as FILES_PRELUDE, READ, REMOVE_DIR, RESOLVE, RESOLVE_FILES, STAT, TREE } from './posix-scripts';
import { globInfos, grepTargets, listingEntries, parseGrepLines, parseTree } from './script-search';

export interface ScriptBackendOptions {
  /** grep skips larger files (default 10). */
  maxFileSizeMb?: number;
  /** A file operation's script gives up after this long (default: the place's own; a `files` place 60000). */
  opTimeoutMs?: number;
  /** grep and glob give up after this long (default 30000). */
  searchTimeBudgetMs?: number;
}

/**
 * `bytes`: text files up to this size come whole with the script that classifies them and are
 * windowed here; larger ones are classified on their first 8 KiB and read with a window cut at
 * the place plus a line count, so a paged read of a large file never copies the file.
 */
export const WHOLE_READ_BYTES = 512 * 1024;
/** `files`: text files up to this size are downloaded whole and windowed here; larger ones are windowed at the place. */
export const WHOLE_DOWNLOAD_BYTES = MAX_BINARY_READ_BYTES;
/**
 * `files`: files up to this size come with the answer of the script that checked them, in its
 * text output (one round trip); kept only when they came through unchanged (inlineBytes), else
 * downloaded as larger files are.
 */
export const INLINE_READ_BYTES = 256 * 1024;
/** `files`: how many paths' last reads readByDownload remembers. */
const LAST_READS = 64;
/** Edits read the whole file; beyond this they are refused (as on disk). */
const MAX_EDIT_BYTES = 256 * 1024 * 1024;
/** Most bytes of paths one grep script takes on its command line (a command is one argument: 128 KiB on Linux). */
const GREP_ARGS_BYTES = 64 * 1024;

interface Probe {
  /** The folder's real path at the place, or null when it does not exist. */
  root: string | null;
  /** Set when the place lacks the tools the scripts need. */
  unsupported?: string;
  /** The place's python3 (descriptor-ops.ts). */
  python: string;
}

type Resolved = { virtual: string } | { error: string };
type PutResult = { status: string; payload: string };

/** The file operations' scripts, by how contents travel. */
const OPS = {
  bytes: { ls: fileOp('ls'), stat: fileOp('stat'), delete: fileOp('delete'), tree: fileOp('tree'), resolve: fileOp('resolve') },
  files: { ls: LS, stat: STAT, delete: DELETE, tree: TREE, resolve: RESOLVE },
} as const;

export class ScriptBackend implements Backend {
  private readonly maxFileBytes: number;
  private readonly opTimeoutMs: number | undefined;
  private readonly searchTimeBudgetMs: number;
  private readonly ops: (typeof OPS)['bytes' | 'files'];
  private probed: Promise<Probe> | null = null;
  /** `files`: the folder's real path, as the last script that resolved it said. */
  private realRoot: string | null = null;
  /**
   * `files`: where the last reads of a path led, when the script found a regular file inside the
   * folder no larger than WHOLE_DOWNLOAD_BYTES (most recent last, at most LAST_READS): a read of
   * the same path downloads it while its script checks it again (readByDownload).
   */
  private readonly lastRead = new Map<string, { real: string }>();

  constructor(
    readonly place: Place,
    options: ScriptBackendOptions = {},
  ) {
    this.maxFileBytes = Math.floor((options.maxFileSizeMb ?? 10) * 1024 * 1024);
    this.opTimeoutMs = options.opTimeoutMs ?? (place.transfer === 'files' ? 60_000 : undefined);
    this.searchTimeBudgetMs = options.searchTimeBudgetMs ?? 30_000;
    this.ops = OPS[place.transfer];
  }

  private get bytes(): boolean {
    return this.place.transfer === 'bytes';
  }

  /** `bytes`: checks the place's tools and resolves the root, once per backend (again after a failed try). */
  private probe(): Promise<Probe> {
    if (this.probed === null) {
      this.probed = this.place.run(`set -- ${shQuote(this.place.root)}\n${PRINT_MARK}\n${PROBE}`).then(
        (r) => parseProbe(afterMark(r.output)),
        (err: unknown) => {
          this.probed = null;
          throw err;
        },
      );
    }
    return this.probed;
  }

  /** The folder's real path at the place (null when unknown or gone). */
  private async root(): Promise<string | null> {
    return this.bytes ? (await this.probe()).root : this.realRoot;
  }

  /** Runs a script body with its prelude, the root and `args`. Throws PlaceError, ScriptFailure or a missing-tools/root error. */
  private async call(body: string, args: string[], options: { stdin?: Uint8Array; timeoutMs?: number } = {}): Promise<Reply> {
    if (!this.bytes) {
      const reply = parseReply(Buffer.concat([MARK_BYTES, await this.runFiles(body, args, options.timeoutMs)]));
      if (reply.status === '') throw new ScriptFailure(`${this.place.label} gave no answer`);
      return reply;
    }
    const probe = await this.probe();
    if (probe.unsupported) throw new ToolsMissing(probe.unsupported);
    if (probe.root === null) throw new RootMissing();
    const script = `set -- ${[probe.root, ...args].map(shQuote).join(' ')}\nPY=${shQuote(probe.python)}\n${PRINT_MARK}\n${BYTES_PRELUDE}\n${body}`;
    const timeoutMs = options.timeoutMs ?? this.opTimeoutMs;
    const r = await this.place.run(script, { stdin: options.stdin ?? new Uint8Array(), ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
    const reply = parseReply(r.output);
    if (reply.status === '' && r.exitCode !== 0) reply.status = 'failed';
    if (reply.status === 'failed') reply.args = [lastLine(r.stderr ?? '') || `exit ${r.exitCode}`];
    return reply;
  }

  /** `files`: runs a script body after its prelude with the root and `args`: what follows the mark. */
  private async runFiles(body: string, args: string[], timeoutMs = this.opTimeoutMs ?? 60_000): Promise<Buffer> {
    const script = `set -- ${[this.place.root, ...args].map(shQuote).join(' ')}\n${FILES_PRELUDE}\n${body}`;
    const r = await this.place.run(script, { timeoutMs });
    if (r.timedOut) throw new ScriptFailure(`timed out after ${Math.round(timeoutMs / 1000)} s`);
    const mark = r.output.indexOf(MARK_BYTES);
    if (mark < 0) throw new ScriptFailure(`${this.place.label} gave no answer${r.exitCode ? ` (exit ${r.exitCode})` : ''}`);
    // The prelude prints the root's real path before the mark.
    const root = r.output.subarray(0, mark).toString('utf8').replace(/\0$/, '');
    if (root !== '') this.realRoot = root;
    return r.output.subarray(mark + MARK_BYTES.length);
  }

  /** `files`: the `status\0payload\0` records of a batch script. */
  private async batch(body: string, args: string[]): Promise<PutResult[]> {
    const reader = new FieldReader(await this.runFiles(body, args));
    const records: PutResult[] = [];
    for (;;) {
      const status = reader.next();
      const payload = reader.next();
      if (status === null || payload === null) break;
      records.push({ status, payload });
    }
    return records;
  }

  /** A failure of any kind as the `error` text of a result. */
  private failed(err: unknown, virtual: string): string {
    if (err instanceof PlaceError) return err.message;
    if (err instanceof ToolsMissing) return `${err.message} (${this.place.label})`;
    if (err instanceof RootMissing) return messages.pathNotFound(virtual);
    return `Cannot access '${virtual}' ${this.place.where}: ${err instanceof Error ? err.message : String(err)}`;
  }

  /** `body` on the normalised (and, under a target guard, checked) path; a refusal or a failure as the tool's error. */
  private async prepared<R>(inputPath: string, operation: GuardedOperation | undefined, body: (virtual: string) => Promise<R>): Promise<R | { error: string }> {
    let virtual = inputPath;
    try {
      const target = await this.prepare(inputPath, operation);
      if ('error' in target) return target;
      virtual = target.virtual;
      return await body(virtual);
    } catch (err) {
      return { error: this.failed(err, virtual) };
    }
  }

  /**
   * Normalises a path; when the current tool call has a target guard, resolves it at the
   * place first and asks the guard when it reaches another file than it names.
   */
  private async prepare(inputPath: string, operation?: GuardedOperation): Promise<Resolved> {
    const checked = normalizeVirtualPath(inputPath);
    if (!checked.ok) return { error: checked.error };
    const virtual = checked.path;
    const guard = operation ? currentTargetGuard() : undefined;
    if (guard === undefined) return { virtual };
    const reply = await this.call(this.ops.resolve, [relOf(virtual)]);
    // A write into folders that do not exist yet makes them (upload): no link on the way leads elsewhere.
    if (reply.status === 'missing' && operation === 'write') return { virtual };
    if (reply.status !== 'ok' && reply.status !== 'new') return { error: replyError(reply, virtual, 'path') };
    const root = await this.root();
    const resolved = root === null ? null : virtualOfReal(root, reply.payload.toString('utf8'));
    const refused = resolved === null || resolved === virtual ? null : guard.check(operation!, virtual, resolved);
    return refused === null ? { virtual } : { error: refused };
  }

  /** Where a path leads through symlinks, followed at the place (see Backend.linkTarget). */
  async linkTarget(inputPath: string): Promise<LinkTarget | null> {
    const checked = normalizeVirtualPath(inputPath);
    if (!checked.ok) return null;
    try {
      const reply = await this.call(LINK, [relOf(checked.path)]);
      const root = await this.root();
      if (reply.status !== 'ok' || root === null) return null;
      const real = reply.payload.toString('utf8');
      const resolved = virtualOfReal(root, real);
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
    return this.prepared(inputPath, 'read', async (virtual): Promise<LsResult> => {
      const reply = await this.call(this.ops.ls, [relOf(virtual)]);
      if (reply.status === 'file') {
        const st = parseStat(reply.args);
        return { entries: st ? [{ path: virtual, size: st.size, modifiedAt: isoTime(st.mtimeMs) }] : [] };
      }
      if (reply.status !== 'ok') return { error: replyError(reply, virtual, 'path') };
      return { entries: listingEntries(reply.payload, virtual) };
    });
  }

  async read(inputPath: string, offset = 0, limit = DEFAULT_READ_LIMIT): Promise<ReadResult> {
    return this.prepared(inputPath, 'read', async (virtual): Promise<ReadResult> => {
      const start = Math.max(0, Math.floor(offset));
      const count = Math.max(0, Math.floor(limit));
      return this.bytes ? await this.readWithScript(virtual, start, count) : await this.readByDownload(virtual, start, count);
    });
  }

  /** `bytes`: the file comes with the script that classified it (a large one: its first 8 KiB, then a window). */
  private async readWithScript(virtual: string, start: number, count: number): Promise<ReadResult> {
    const rel = relOf(virtual);
    const reply = await this.call(fileOp('read'), [rel, String(WHOLE_READ_BYTES), '-']);
    if (reply.status !== 'ok') return { error: replyError(reply, virtual, 'file') };
    const st = parseStat(reply.args)!;
    const whole = st.size <= WHOLE_READ_BYTES;
    const times = timesOf(st);
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
    if (whole) {
      const all = splitLines(lossy.decode(reply.payload));
      return textWindow(all.slice(start, start + count), start, all.length, times);
    }
    const window = await this.call(fileOp('window'), [rel, String(start + 1), String(start + count), String(MAX_WINDOW_BYTES)]);
    if (window.status !== 'ok') return { error: replyError(window, virtual, 'file') };
    const nl = window.payload.indexOf(0x0a);
    const [newlines = '0', last = ''] = window.payload.subarray(0, nl).toString('utf8').trim().split(/\s+/);
    const { lines, total } = windowLines(window.payload.subarray(nl + 1), count, { newlines: Number(newlines), lastByteHex: last, size: parseStat(window.args)!.size });
    return textWindow(lines, start, total, times);
  }

  /**
   * `files`: resolved and checked by a script, then downloaded (a large text file: its window cut
   * at the place). When the last read of the same path found a regular file inside the folder
   * small enough to download whole, that real path is downloaded while the script runs, and the
   * bytes are used only when the script says the path leads to that very file, a regular one
   * inside the folder, of exactly their size; else the script's answer decides as always (an
   * error, a window, or the download of the path it resolved).
   */
  private async readByDownload(virtual: string, start: number, count: number): Promise<ReadResult> {
    const hint = this.lastRead.get(virtual);
    const early = hint === undefined ? undefined : this.place.download([hint.real]).then(([got]) => got?.content, () => undefined);
    const args = [relOf(virtual), String(WHOLE_DOWNLOAD_BYTES), String(start + 1), String(start + count), String(MAX_WINDOW_BYTES), String(INLINE_READ_BYTES)];
    const reply = await this.call(READ, args);
    this.lastRead.delete(virtual);
    if (reply.status !== 'ok' && reply.status !== 'window' && reply.status !== 'inline') return { error: replyError(reply, virtual, 'file') };
    const st = parseStat(reply.args);
    if (st === null) return { error: replyError({ ...reply, status: 'failed' }, virtual, 'file') };
    const times = timesOf(st);
    if (reply.status === 'window') return await this.downloadWindow(reply.payload, virtual, st.size, count, start, times);
    let bytes: { data: Uint8Array } | { error: string } | undefined;
    let real: string;
    if (reply.status === 'inline') {
      const inline = inlineBytes(reply.payload, st.size);
      if (inline === null) return { error: replyError({ ...reply, status: 'failed' }, virtual, 'file') };
      real = inline.real;
      if (inline.data !== null) bytes = { data: inline.data };
    } else {
      real = reply.payload.toString('utf8');
      this.rememberRead(virtual, real);
      const ahead = early !== undefined && hint?.real === real ? await early : undefined;
      if (ahead !== undefined && ahead.length === st.size) bytes = { data: ahead };
    }
    bytes ??= await this.downloadOne(real, virtual);
    if ('error' in bytes) return bytes;
    const kind = classifyContent(virtual, bytes.data.subarray(0, SNIFF_BYTES));
    if (!kind.text) return { fileData: { content: Buffer.from(bytes.data).toString('base64'), encoding: 'base64', mimeType: kind.mimeType, ...times } };
    const all = splitLines(lossy.decode(bytes.data));
    return textWindow(all.slice(start, start + count), start, all.length, times);
  }

  /** `files`: a file over WHOLE_DOWNLOAD_BYTES: its first 8 KiB and the window, cut at the place, then that folder removed. */
  private async downloadWindow(payload: Buffer, virtual: string, size: number, count: number, start: number, times: object): Promise<ReadResult> {
    const [dir = '', newlines = '0', lastByteHex = ''] = payload.toString('utf8').split('\0');
    try {
      const [head, window] = await this.place.download([`${dir}/head`, `${dir}/window`]);
      if (!head?.content || !window?.content) return { error: messages.permissionDenied(virtual) };
      const kind = classifyContent(virtual, head.content.subarray(0, SNIFF_BYTES));
      if (!kind.text) return { error: messages.binaryTooLarge(virtual, size) };
      const { lines, total } = windowLines(Buffer.from(window.content), count, { newlines: Number(newlines), lastByteHex, size });
      return textWindow(lines, start, total, times);
    } finally {
      await this.call(REMOVE_DIR, [dir]).catch(() => undefined);
    }
  }

  private rememberRead(virtual: string, real: string): void {
    this.lastRead.set(virtual, { real });
    if (this.lastRead.size > LAST_READS) this.lastRead.delete(this.lastRead.keys().next().value!);
  }

  private async downloadOne(real: string, virtual: string): Promise<{ data: Uint8Array } | { error: string }> {
    const [got] = await this.place.download([real]);
    if (got?.content) return { data: got.content };
    return { error: downloadError(got?.error, virtual) };
  }

  async readRaw(inputPath: string): Promise<ReadRawResult> {
    return this.prepared(inputPath, 'read', async (virtual): Promise<ReadRawResult> => {
      if (this.bytes) {
        const reply = await this.call(fileOp('read'), [relOf(virtual), String(Number.MAX_SAFE_INTEGER), '-']);
        if (reply.status !== 'ok') return { error: replyError(reply, virtual, 'file') };
        return { data: new Uint8Array(reply.payload) };
      }
      const [item] = await this.batch(RESOLVE_FILES, [relOf(virtual)]);
      if (!item || item.status !== 'ok') return { error: replyError(statusReply(item?.status), virtual, 'file') };
      const got = await this.downloadOne(item.payload, virtual);
      return 'error' in got ? got : { data: got.data };
    });
  }

  async write(inputPath: string, content: string): Promise<WriteResult> {
    return this.prepared(inputPath, 'write', async (virtual): Promise<WriteResult> => {
      // One put in the usual case; an old file with a BOM or CRLF line breaks answers with its
      // conventions instead, and the converted text goes again.
      let [result] = await this.put([{ virtual, content: Buffer.from(content, 'utf8'), kind: 'text' }]);
      if (result?.status === 'conventions') {
        const previous = conventionsStandIn(result.payload);
        [result] = await this.put([{ virtual, content: Buffer.from(keepFileConventions(previous, content), 'utf8'), kind: 'bytes' }]);
      }
      const error = await this.putError(result, virtual);
      return error ? { error } : { path: virtual };
    });
  }

  async edit(inputPath: string, oldString: string, newString: string, replaceAll = false): Promise<EditResult> {
    return this.prepared(inputPath, 'edit', async (virtual): Promise<EditResult> => {
      const got = await this.fetchForEdit(virtual);
      if ('error' in got) return got;
      const bytes = got.data;
      // `files`: a failure is named by the path's resolution first (it may lead outside).
      const fail = async (problem: string): Promise<EditResult> => ({ error: got.named ? problem : await this.nameFailure(virtual, problem) });
      if (looksBinary(bytes)) return await fail(messages.binaryEdit(virtual));
      const text = decodeUtf8(bytes);
      if (text === null) return await fail(messages.notUtf8(virtual));
      const outcome = applyEdit(text, oldString, newString, replaceAll);
      if (!outcome.ok) return await fail(outcome.error);
      const [result] = await this.put([{ virtual, content: Buffer.from(outcome.content, 'utf8'), kind: 'bytes' }]);
      const error = await this.putError(result, virtual);
      return error ? { error } : { path: virtual, occurrences: outcome.occurrences };
    });
  }

  /**
   * The whole file for an edit. `bytes`: read by the script that resolved it. `files`: downloaded
   * by its path in the folder (the provider follows links; the commit resolves it at the place
   * and refuses a path that leads outside); a failure is named by the same resolution (one more
   * script). `named`: the path was resolved inside the folder already.
   */
  private async fetchForEdit(virtual: string): Promise<{ data: Uint8Array; named: boolean } | { error: string }> {
    if (this.bytes) {
      const reply = await this.call(fileOp('read'), [relOf(virtual), String(MAX_EDIT_BYTES), String(MAX_EDIT_BYTES)]);
      if (reply.status === 'toolarge') return { error: tooLargeToEdit(virtual) };
      if (reply.status !== 'ok') return { error: replyError(reply, virtual, 'file') };
      return { data: reply.payload, named: true };
    }
    const [got] = await this.place.download([this.placePath(virtual)]);
    const bytes = got?.content;
    if (bytes !== undefined && bytes.length <= MAX_EDIT_BYTES) return { data: bytes, named: false };
    const problem = bytes === undefined ? downloadError(got?.error, virtual) : tooLargeToEdit(virtual);
    return { error: await this.nameFailure(virtual, problem) };
  }

  /** `files`: the resolution's error when the path is not a readable file inside the folder, else `problem`. */
  private async nameFailure(virtual: string, problem: string): Promise<string> {
    if (this.bytes) return problem;
    const [item] = await this.batch(RESOLVE_FILES, [relOf(virtual)]);
    if (!item || item.status !== 'ok') return replyError(statusReply(item?.status), virtual, 'file');
    return problem;
  }

  /** The place's path of a virtual path, for its file API. */
  private placePath(virtual: string): string {
    return virtual === '/' ? this.place.root : `${this.place.root.replace(/\/+$/, '')}${virtual}`;
  }

  /**
   * Writes each content over its file atomically (temp file + rename in the folder checked,
   * the old file's mode kept), creating parents. `text`: hand back the old file's conventions
   * instead when they would change what is stored. `bytes`: one script per item, the content
   * on its stdin. `files`: one upload of temp files into the folder, then COMMIT checks every
   * target and renames its temp over it (one script); an item the upload refused is that error.
   */
  private async put(items: Array<{ virtual: string; content: Uint8Array; kind: 'text' | 'bytes' }>): Promise<PutResult[]> {
    if (this.bytes) {
      const out: PutResult[] = [];
      for (const item of items) {
        const args = [relOf(item.virtual), String(item.content.length), item.kind === 'text' ? 'text' : '', randomBytes(6).toString('hex')];
        const reply = await this.call(fileOp('upload'), args, { stdin: item.content });
        out.push({ status: reply.status, payload: reply.status === 'failed' ? reply.args.join(' ') : reply.payload.toString('utf8') });
      }
      return out;
    }
    const temps = items.map(() => `.deepdesk-tmp-${randomBytes(6).toString('hex')}`);
    const uploaded = await this.place.upload(items.map((item, i) => ({ path: `${this.place.root.replace(/\/+$/, '')}/${temps[i]}`, content: item.content })));
    const args: string[] = [];
    items.forEach((item, i) => {
      if (uploaded[i]?.error === undefined) args.push(relOf(item.virtual), temps[i]!, item.kind, String(item.content.length));
    });
    const committed = args.length > 0 ? await this.batch(COMMIT, args) : [];
    let next = 0;
    return items.map((_, i) => {
      const refused = uploaded[i]?.error;
      if (refused !== undefined) return { status: `upload:${refused}`, payload: '' };
      return committed[next++] ?? { status: 'failed', payload: '' };
    });
  }

  /** A put's failure as write()'s error text, or null. */
  private async putError(result: PutResult | undefined, virtual: string): Promise<string | null> {
    if (result?.status === 'ok') return null;
    if (result?.status === 'notdir') {
      const root = await this.root();
      return messages.notADirectory((root === null ? null : virtualOfReal(root, result.payload)) ?? virtual);
    }
    if (result?.status === 'short' && this.bytes) return `lost the connection (${this.place.label}) while writing '${virtual}'; the file was not changed`;
    if (result?.status.startsWith('upload:')) return downloadError(result.status.slice('upload:'.length) as PlaceFileError, virtual);
    const status = result?.status ?? 'failed';
    return replyError({ status, args: status === 'failed' && result?.payload ? [result.payload] : [], payload: Buffer.alloc(0) }, virtual, 'file');
  }

  async delete(inputPath: string): Promise<DeleteResult> {
    return this.prepared(inputPath, 'delete', async (virtual): Promise<DeleteResult> => {
      if (virtual === '/') return { error: recordMessages.deleteRoot };
      const slash = virtual.lastIndexOf('/');
      const parent = virtual.slice(0, slash) || '/';
      const reply = await this.call(this.ops.delete, [relOf(parent), virtual.slice(slash + 1)]);
      if (reply.status === 'ok') return { path: virtual };
      return { error: replyError(reply, virtual, 'path') };
    });
  }

  async stat(inputPath: string): Promise<StatResult> {
    return this.prepared(inputPath, undefined, async (virtual): Promise<StatResult> => {
      const reply = await this.call(this.ops.stat, [relOf(virtual)]);
      if (reply.status !== 'ok') return { error: replyError(reply, virtual, 'path') };
      const st = parseStat(reply.args)!;
      if (st.isDir) return { info: { path: virtual === '/' ? '/' : virtual + '/', isDir: true, modifiedAt: st.modifiedAt }, version: st.version };
      return { info: { path: virtual, size: st.size, modifiedAt: st.modifiedAt }, version: st.version };
    });
  }

  async grep(pattern: string, inputPath = '/', glob?: string, maxCount = DEFAULT_GREP_MAX_COUNT): Promise<GrepResult> {
    const badGlob = glob ? globPatternError(glob) : null;
    if (badGlob !== null) return { error: badGlob };
    return this.prepared(inputPath, 'read', async (virtual): Promise<GrepResult> => {
      const limit = Number.isFinite(maxCount) ? Math.max(0, Math.floor(maxCount)) : DEFAULT_GREP_MAX_COUNT;
      const filter = glob ? compileGlob(glob) : null;
      const tree = await this.call(this.ops.tree, [relOf(virtual)], { timeoutMs: this.searchTimeBudgetMs });
      if (tree.status === 'special') return { matches: [], truncated: false };
      if (tree.status !== 'ok' && tree.status !== 'file') return { error: replyError(tree, virtual, 'path') };
      const collector = new MatchCollector(limit);
      // A line never holds '\n', so such a pattern cannot match; a NUL cannot be passed to the place's grep and only
      // matches past a text file's first 8 KiB (earlier it makes the file binary): such a search finds nothing here.
      if (pattern.includes('\n') || pattern.includes('\0')) return collector.finish(false);
      const files = grepTargets(tree, virtual, filter, this.maxFileBytes);
      if (files.size === 0) return collector.finish(false);
      const add = (real: string | null, lines: Buffer | null): void => {
        const path = real === null ? undefined : files.get(real);
        if (path === undefined || lines === null) return;
        for (const hit of parseGrepLines(lines)) collector.add({ path, ...hit } satisfies GrepMatch);
      };
      if (this.bytes) {
        // The paths on stdin; each file's lines framed by their size.
        const list = Buffer.concat([...files.keys()].map((real) => Buffer.from(`${real}\0`, 'utf8')));
        const found = await this.call(fileOp('grep'), [pattern, String(limit + 1), String(this.maxFileBytes)], { stdin: list, timeoutMs: this.searchTimeBudgetMs });
        if (found.status !== 'ok') return { error: replyError(found, virtual, 'path') };
        const reader = new FieldReader(found.payload);
        while (!reader.done) add(reader.next(), reader.framed());
      } else {
        // The paths as arguments, in runs a command line takes; each file's lines end at a NUL.
        for (const chunk of byteGroups([...files.keys()], GREP_ARGS_BYTES, (name) => name.length + 3)) {
          const found = await this.call(GREP, [pattern, String(limit + 1), String(this.maxFileBytes), ...chunk], { timeoutMs: this.searchTimeBudgetMs });
          if (found.status !== 'ok') return { error: replyError(found, virtual, 'path') };
          const reader = new FieldReader(found.payload);
          while (!reader.done) add(reader.next(), reader.nextBytes());
        }
      }
      return collector.finish(false);
    });
  }

  async glob(pattern: string, inputPath = '/'): Promise<GlobResult> {
    const badPattern = globPatternError(pattern);
    if (badPattern !== null) return { error: badPattern };
    return this.prepared(inputPath, 'read', async (virtual): Promise<GlobResult> => {
      const tree = await this.call(this.ops.tree, [relOf(virtual)], { timeoutMs: this.searchTimeBudgetMs });
      if (tree.status === 'file' || tree.status === 'special') return { error: messages.notADirectory(virtual) };
      if (tree.status !== 'ok') return { error: replyError(tree, virtual, 'path') };
      return { matches: globInfos(parseTree(tree.payload), virtual, compileGlob(pattern)), truncated: false };
    });
  }

  /**
   * A path that is malformed, refused by the target guard or leads outside the folder is
   * `invalid_path` (named as given); a place's failure is `permission_denied` (the protocol has
   * no code for it), and nothing of that batch was written. `bytes`: one script per file, in
   * order; `files`: one upload and one commit for the batch.
   */
  async uploadFiles(files: FileUpload[]): Promise<FileUploadResponse[]> {
    const valid = await this.transferTargets(files.map((f) => f.path), 'write');
    const out = valid.out as FileUploadResponse[];
    const items = valid.items;
    if (items.length === 0) return out;
    const groups = this.bytes ? items.map((item) => [item]) : [items];
    for (const group of groups) {
      try {
        const results = await this.put(group.map(({ index, virtual }) => ({ virtual, content: files[index]!.content, kind: 'bytes' as const })));
        group.forEach(({ index, virtual }, i) => {
          const status = results[i]?.status ?? 'failed';
          if (status === 'ok') out[index] = { path: virtual };
          else if (status === 'outside' || status === 'noroot') out[index] = { path: files[index]!.path, error: 'invalid_path' };
          else out[index] = { path: virtual, error: status.startsWith('upload:') ? (status.slice('upload:'.length) as FileOperationError) : transferError(status) };
        });
      } catch {
        for (const { index, virtual } of group) out[index] = { path: virtual, error: 'permission_denied' };
      }
    }
    return out;
  }

  /**
   * As uploadFiles. `bytes`: one script per file, the content with it; `files`: one resolution
   * and one download for the batch.
   */
  async downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
    const { out, items } = await this.transferTargets(paths, 'read');
    if (items.length === 0) return out;
    if (this.bytes) {
      for (const { index, virtual } of items) {
        try {
          const reply = await this.call(fileOp('read'), [relOf(virtual), String(Number.MAX_SAFE_INTEGER), '-']);
          if (reply.status === 'outside' || reply.status === 'noroot') out[index] = { path: paths[index]!, error: 'invalid_path' };
          else out[index] = reply.status === 'ok' ? { path: virtual, content: new Uint8Array(reply.payload) } : { path: virtual, error: transferError(reply.status) };
        } catch {
          out[index] = { path: virtual, error: 'permission_denied' };
        }
      }
      return out;
    }
    try {
      const resolved = await this.batch(RESOLVE_FILES, items.map((v) => relOf(v.virtual)));
      const wanted: Array<{ index: number; virtual: string; real: string }> = [];
      items.forEach(({ index, virtual }, i) => {
        const item = resolved[i];
        const status = item?.status ?? 'failed';
        if (status === 'ok') wanted.push({ index, virtual, real: item!.payload });
        else if (status === 'outside' || status === 'noroot') out[index] = { path: paths[index]!, error: 'invalid_path' };
        else out[index] = { path: virtual, error: transferError(status) };
      });
      if (wanted.length === 0) return out;
      const got = await this.place.download(wanted.map((w) => w.real));
      wanted.forEach(({ index, virtual }, i) => {
        const item = got[i];
        out[index] = item?.content ? { path: virtual, content: item.content } : { path: virtual, error: item?.error ?? 'permission_denied' };
      });
    } catch {
      for (const { index, virtual } of items) if (out[index]!.error === undefined && out[index]!.content === undefined) out[index] = { path: virtual, error: 'permission_denied' };
    }
    return out;
  }

  /** The batch's paths that are well formed and pass the target guard; the others already answered `invalid_path`. */
  private async transferTargets(paths: string[], operation: GuardedOperation): Promise<{ out: FileDownloadResponse[]; items: Array<{ index: number; virtual: string }> }> {
    const out: FileDownloadResponse[] = paths.map((path) => ({ path }));
    const items: Array<{ index: number; virtual: string }> = [];
    for (const [index, path] of paths.entries()) {
      const checked = normalizeVirtualPath(path);
      if (!checked.ok) {
        out[index] = { path, error: 'invalid_path' };
        continue;
      }
      try {
        const target = await this.prepare(checked.path, operation);
        if ('error' in target) out[index] = { path, error: 'invalid_path' };
        else items.push({ index, virtual: checked.path });
      } catch {
        out[index] = { path: checked.path, error: 'permission_denied' };
      }
    }
    return { out, items };
  }
}

/** A script that does not answer (a timeout, a place without the tools). */
class ScriptFailure extends Error {}
class ToolsMissing extends Error {}
class RootMissing extends Error {}

const MARK_BYTES = Buffer.from(REPLY_MARK);
const PRINT_MARK = `printf '%s' ${shQuote(REPLY_MARK)}`;
const lossy = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

function timesOf(st: { createdAt?: string; modifiedAt: string }): { createdAt?: string; modifiedAt: string } {
  return { ...(st.createdAt !== undefined ? { createdAt: st.createdAt } : {}), modifiedAt: st.modifiedAt };
}

function tooLargeToEdit(virtual: string): string {
  return `'${virtual}' is too large to edit (over 256 MB); use write_file or the shell`;
}

function statusReply(status: string | undefined): Reply {
  return { status: status ?? 'failed', args: [], payload: Buffer.alloc(0) };
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
 * The first `count` lines of a window cut out of a large file at the place (at most
 * MAX_WINDOW_BYTES) and the file's line count, from its newlines, last byte and size.
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

const REPLACEMENT_CHAR = Buffer.from('\uFFFD', 'utf8');

/**
 * READ's `inline` payload: the real path, a NUL, then the file's bytes as the place's text
 * output carried them. null when it is malformed (no NUL, no absolute path: the place's answer
 * is refused); `data` null when the bytes may not be the file's: fewer or more than the size
 * stat gave (the file changed meanwhile), or a U+FFFD among them (a provider's output is text,
 * where bytes that are not UTF-8 became that character; a file that holds one is downloaded).
 */
export function inlineBytes(payload: Buffer, size: number): { real: string; data: Uint8Array | null } | null {
  const nul = payload.indexOf(0);
  if (nul <= 0) return null;
  const real = payload.subarray(0, nul).toString('utf8');
  if (!real.startsWith('/') || real.includes('\uFFFD')) return null;
  const data = payload.subarray(nul + 1);
  return { real, data: data.length === size && !data.includes(REPLACEMENT_CHAR) ? data : null };
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

export function relOf(virtual: string): string {
  return virtual === '/' ? '' : virtual.slice(1);
}

/** The virtual path of a real path at the place inside `root`, or null when outside. */
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
 * What keepFileConventions looks at in the old file (a BOM; CRLF when every line break is
 * CRLF), from the put's counts: `x<first 3 bytes> <newlines> <line breaks without CR> x<last byte>`.
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

function downloadError(code: PlaceFileError | undefined, virtual: string): string {
  switch (code) {
    case 'file_not_found':
      return messages.fileNotFound(virtual);
    case 'is_directory':
      return messages.isDirectory(virtual);
    case 'invalid_path':
      return messages.outsideRoot(virtual);
    default:
      return messages.permissionDenied(virtual);
  }
}
