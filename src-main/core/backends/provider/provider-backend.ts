// ProviderBackend (SPEC §18): the file tools and `execute` over one sandbox of a provider
// (Daytona, Modal, E2B, Deno), as Deep Agents' BaseSandbox builds them: each operation is a
// POSIX script run through `sandbox.execute` (provider-scripts.ts) that resolves the path in
// the sandbox (symlinks followed, refused when they land outside the workdir) and looks,
// lists or moves; file contents only travel through `sandbox.upload`/`sandbox.download`.
// The results are the FilesystemBackend's, message for message, with the workdir at `/`.
//
// Round trips: ls, stat, delete, glob: one execute. read, readRaw: one execute + one
// download (a text file over 10 MB: the window is cut in the sandbox, + one execute to
// remove it). write: one upload + one execute (a BOM or CRLF file: twice). edit: one
// download + one upload + one execute (+ one execute to name a failure). grep: two executes.
// uploadFiles, downloadFiles: one transfer + one execute for the whole batch.
//
// A provider's failure (SandboxProviderError) is the result's `error`, in its plain words.

import { randomBytes } from 'node:crypto';
import type {
  DeleteResult, EditResult, ExecuteOptions, ExecuteResult, FileDownloadResponse, FileOperationError, FileUpload, FileUploadResponse,
  GlobResult, GrepMatch, GrepResult, LinkTarget, LsResult, ReadRawResult, ReadResult, ShellBackend, StatResult, WriteResult,
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
import { DEFAULT_EXECUTE_TIMEOUT_S } from '../filesystem/local-shell';
import { FieldReader, LINK, REPLY_MARK, parseReply, parseStat, type Reply } from '../remote/remote-scripts';
import { globInfos, grepTargets, listingEntries, parseGrepLines, parseTree } from '../remote/remote-search';
import { conventionsStandIn, relOf, replyError, textWindow, transferError, virtualOfReal, windowLines } from '../remote/remote-backend';
import { exportLines } from '../remote/remote-exec';
import { SandboxProviderError, type ProviderSandbox } from '../../sandbox-providers/provider';
import { shQuote } from '../../text/shell-quote';
import { terminalToText } from '../../text/ansi';
import { DEFAULT_MAX_OUTPUT_BYTES, capText } from '../../process/output-cap';
import { CANCELLED_BEFORE_START, CANCELLED_NOTE, composeOutput, TIMEOUT_EXIT_CODE, timeoutNote } from '../../process/pty-exec';
import { NON_INTERACTIVE_ENV } from '../../process/shell-env';
import { COMMIT, DELETE, GREP, LS, PRELUDE, READ, REMOVE_DIR, RESOLVE_FILES, STAT, TREE } from './provider-scripts';

export interface ProviderBackendOptions {
  /** grep skips larger files (default 10). */
  maxFileSizeMb?: number;
  /** A file operation's script gives up after this long (default 60000); grep and glob after searchTimeBudgetMs. */
  opTimeoutMs?: number;
  /** grep and glob give up after this long (default 30000). */
  searchTimeBudgetMs?: number;
  /** Seconds, when execute() is given none. Default 120. */
  defaultTimeoutS?: number;
  maxOutputBytes?: number;
}

/** Text files up to this size are downloaded whole and windowed here; larger ones are windowed in the sandbox. */
export const WHOLE_DOWNLOAD_BYTES = MAX_BINARY_READ_BYTES;
/** Edits read the whole file; beyond this they are refused (as on disk). */
const MAX_EDIT_BYTES = 256 * 1024 * 1024;
/** Most bytes of paths one grep script takes on its command line (a command is one argument: 128 KiB on Linux). */
const GREP_ARGS_BYTES = 64 * 1024;

const lossy = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

export class ProviderBackend implements ShellBackend {
  readonly id: string;
  private readonly maxFileBytes: number;
  private readonly opTimeoutMs: number;
  private readonly searchTimeBudgetMs: number;
  private readonly defaultTimeoutS: number;
  private readonly maxOutputBytes: number;

  constructor(
    readonly sandbox: ProviderSandbox,
    options: ProviderBackendOptions = {},
  ) {
    this.id = `${sandbox.provider}:${sandbox.id}`;
    this.maxFileBytes = Math.floor((options.maxFileSizeMb ?? 10) * 1024 * 1024);
    this.opTimeoutMs = options.opTimeoutMs ?? 60_000;
    this.searchTimeBudgetMs = options.searchTimeBudgetMs ?? 30_000;
    this.defaultTimeoutS = options.defaultTimeoutS ?? DEFAULT_EXECUTE_TIMEOUT_S;
    this.maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  }

  /**
   * Runs a script body after PRELUDE with the workdir and `args`: what follows the mark.
   * Throws SandboxProviderError or ScriptFailure.
   */
  private async run(body: string, args: string[], timeoutMs = this.opTimeoutMs): Promise<Buffer> {
    const script = `set -- ${[this.sandbox.workdir, ...args].map(shQuote).join(' ')}\n${PRELUDE}\n${body}`;
    const r = await this.sandbox.execute(script, { cwd: '/', timeoutMs });
    if (r.timedOut) throw new ScriptFailure(`timed out after ${Math.round(timeoutMs / 1000)} s`);
    const output = Buffer.from(r.output, 'utf8');
    const mark = output.indexOf(MARK_BYTES);
    if (mark < 0) throw new ScriptFailure(`the sandbox gave no answer${r.exitCode ? ` (exit ${r.exitCode})` : ''}`);
    // PRELUDE prints the workdir's real path before the mark.
    const root = output.subarray(0, mark).toString('utf8').replace(/\0$/, '');
    if (root !== '') this.realRoot = root;
    return output.subarray(mark + MARK_BYTES.length);
  }

  private async call(body: string, args: string[], timeoutMs?: number): Promise<Reply> {
    const reply = parseReply(Buffer.concat([MARK_BYTES, await this.run(body, args, timeoutMs)]));
    if (reply.status === '') throw new ScriptFailure('the sandbox gave no answer');
    return reply;
  }

  /** The `status\0payload\0` records of a batch script. */
  private async batch(body: string, args: string[]): Promise<Array<{ status: string; payload: string }>> {
    const reader = new FieldReader(await this.run(body, args));
    const records: Array<{ status: string; payload: string }> = [];
    for (;;) {
      const status = reader.next();
      const payload = reader.next();
      if (status === null || payload === null) break;
      records.push({ status, payload });
    }
    return records;
  }

  private failed(err: unknown, virtual: string): string {
    if (err instanceof SandboxProviderError) return err.message;
    return `Cannot access '${virtual}' in the sandbox: ${err instanceof Error ? err.message : String(err)}`;
  }

  /** Where a path leads through symlinks (see Backend.linkTarget). */
  async linkTarget(inputPath: string): Promise<LinkTarget | null> {
    const checked = normalizeVirtualPath(inputPath);
    if (!checked.ok) return null;
    try {
      const reply = await this.call(LINK, [relOf(checked.path)]);
      if (reply.status !== 'ok' || this.realRoot === null) return null;
      const real = reply.payload.toString('utf8');
      const resolved = virtualOfReal(this.realRoot, real);
      if (resolved === null) return { outside: real };
      return resolved === checked.path ? null : { virtual: resolved };
    } catch {
      return null;
    }
  }

  async ls(inputPath: string): Promise<LsResult> {
    const checked = normalizeVirtualPath(inputPath);
    if (!checked.ok) return { error: checked.error };
    const virtual = checked.path;
    try {
      const reply = await this.call(LS, [relOf(virtual)]);
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
    const checked = normalizeVirtualPath(inputPath);
    if (!checked.ok) return { error: checked.error };
    const virtual = checked.path;
    const start = Math.max(0, Math.floor(offset));
    const count = Math.max(0, Math.floor(limit));
    try {
      const reply = await this.call(READ, [relOf(virtual), String(WHOLE_DOWNLOAD_BYTES), String(start + 1), String(start + count), String(MAX_WINDOW_BYTES)]);
      if (reply.status !== 'ok' && reply.status !== 'window') return { error: replyError(reply, virtual, 'file') };
      const st = parseStat(reply.args)!;
      const times = { ...(st.createdAt !== undefined ? { createdAt: st.createdAt } : {}), modifiedAt: st.modifiedAt };
      if (reply.status === 'window') return await this.readWindow(reply.payload, virtual, st.size, count, start, times);
      const bytes = await this.downloadOne(reply.payload.toString('utf8'), virtual);
      if ('error' in bytes) return bytes;
      const kind = classifyContent(virtual, bytes.data.subarray(0, SNIFF_BYTES));
      if (!kind.text) return { fileData: { content: Buffer.from(bytes.data).toString('base64'), encoding: 'base64', mimeType: kind.mimeType, ...times } };
      const all = splitLines(lossy.decode(bytes.data));
      return textWindow(all.slice(start, start + count), start, all.length, times);
    } catch (err) {
      return { error: this.failed(err, virtual) };
    }
  }

  /** A file over WHOLE_DOWNLOAD_BYTES: its first 8 KiB and the window, cut in the sandbox, then that folder removed. */
  private async readWindow(payload: Buffer, virtual: string, size: number, count: number, start: number, times: object): Promise<ReadResult> {
    const [dir = '', newlines = '0', lastByteHex = ''] = payload.toString('utf8').split('\0');
    try {
      const [head, window] = await this.sandbox.download([`${dir}/head`, `${dir}/window`]);
      if (!head?.content || !window?.content) return { error: messages.permissionDenied(virtual) };
      const kind = classifyContent(virtual, head.content.subarray(0, SNIFF_BYTES));
      if (!kind.text) return { error: messages.binaryTooLarge(virtual, size) };
      const { lines, total } = windowLines(Buffer.from(window.content), count, { newlines: Number(newlines), lastByteHex, size });
      return textWindow(lines, start, total, times);
    } finally {
      await this.call(REMOVE_DIR, [dir]).catch(() => undefined);
    }
  }

  private async downloadOne(real: string, virtual: string): Promise<{ data: Uint8Array } | { error: string }> {
    const [got] = await this.sandbox.download([real]);
    if (got?.content) return { data: got.content };
    return { error: downloadError(got?.error, virtual) };
  }

  async readRaw(inputPath: string): Promise<ReadRawResult> {
    const checked = normalizeVirtualPath(inputPath);
    if (!checked.ok) return { error: checked.error };
    const virtual = checked.path;
    try {
      const [item] = await this.batch(RESOLVE_FILES, [relOf(virtual)]);
      if (!item || item.status !== 'ok') return { error: replyError({ status: item?.status ?? 'failed', args: [], payload: Buffer.alloc(0) }, virtual, 'file') };
      const got = await this.downloadOne(item.payload, virtual);
      return 'error' in got ? got : { data: got.data };
    } catch (err) {
      return { error: this.failed(err, virtual) };
    }
  }

  async write(inputPath: string, content: string): Promise<WriteResult> {
    const checked = normalizeVirtualPath(inputPath);
    if (!checked.ok) return { error: checked.error };
    const virtual = checked.path;
    try {
      // One upload and one commit in the usual case; an old file with a BOM or CRLF line breaks
      // answers with its conventions instead, and the converted text goes up again.
      let [result] = await this.put([{ virtual, content: Buffer.from(content, 'utf8'), kind: 'text' }]);
      if (result?.status === 'conventions') {
        const previous = conventionsStandIn(result.payload);
        [result] = await this.put([{ virtual, content: Buffer.from(keepFileConventions(previous, content), 'utf8'), kind: 'bytes' }]);
      }
      const error = this.putError(result, virtual);
      return error ? { error } : { path: virtual };
    } catch (err) {
      return { error: this.failed(err, virtual) };
    }
  }

  async edit(inputPath: string, oldString: string, newString: string, replaceAll = false): Promise<EditResult> {
    const checked = normalizeVirtualPath(inputPath);
    if (!checked.ok) return { error: checked.error };
    const virtual = checked.path;
    try {
      // The file is downloaded by its path in the workdir (the provider follows links); the
      // commit resolves it in the sandbox and refuses a path that leads outside. A failure
      // before that is named by the same resolution (one more call).
      const [got] = await this.sandbox.download([this.sandboxPath(virtual)]);
      const bytes = got?.content;
      const problem = bytes === undefined ? 'unread' : bytes.length > MAX_EDIT_BYTES ? 'toolarge' : looksBinary(bytes) ? 'binary' : null;
      const text = bytes === undefined || problem ? null : decodeUtf8(bytes);
      const outcome = text === null ? null : applyEdit(text, oldString, newString, replaceAll);
      if (outcome === null || !outcome.ok) {
        const [item] = await this.batch(RESOLVE_FILES, [relOf(virtual)]);
        if (!item || item.status !== 'ok') return { error: replyError({ status: item?.status ?? 'failed', args: [], payload: Buffer.alloc(0) }, virtual, 'file') };
        if (problem === 'unread') return { error: downloadError(got?.error, virtual) };
        if (problem === 'toolarge') return { error: `'${virtual}' is too large to edit (over 256 MB); use write_file or the shell` };
        if (problem === 'binary') return { error: messages.binaryEdit(virtual) };
        if (outcome === null) return { error: messages.notUtf8(virtual) };
        return { error: outcome.error };
      }
      const [result] = await this.put([{ virtual, content: Buffer.from(outcome.content, 'utf8'), kind: 'bytes' }]);
      const error = this.putError(result, virtual);
      return error ? { error } : { path: virtual, occurrences: outcome.occurrences };
    } catch (err) {
      return { error: this.failed(err, virtual) };
    }
  }

  /** The workdir path of a virtual path, for the provider's file API. */
  private sandboxPath(virtual: string): string {
    return virtual === '/' ? this.sandbox.workdir : `${this.sandbox.workdir.replace(/\/+$/, '')}${virtual}`;
  }

  /**
   * Uploads each content to a temp file in the workdir (one call), then COMMIT checks every
   * target and renames its temp over it (one call). An item the upload refused is that error.
   */
  private async put(items: Array<{ virtual: string; content: Uint8Array; kind: 'text' | 'bytes' }>): Promise<Array<{ status: string; payload: string }>> {
    const temps = items.map(() => `.deepdesk-tmp-${randomBytes(6).toString('hex')}`);
    const uploaded = await this.sandbox.upload(items.map((item, i) => ({ path: `${this.sandbox.workdir.replace(/\/+$/, '')}/${temps[i]}`, content: item.content })));
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

  /** A commit's failure as write()'s error text, or null. */
  private putError(result: { status: string; payload: string } | undefined, virtual: string): string | null {
    if (result?.status === 'ok') return null;
    if (result?.status === 'notdir') return messages.notADirectory(this.virtualOf(result.payload) ?? virtual);
    if (result?.status.startsWith('upload:')) return downloadError(result.status.slice('upload:'.length) as FileOperationError, virtual);
    return replyError({ status: result?.status ?? 'failed', args: [], payload: Buffer.alloc(0) }, virtual, 'file');
  }

  /** The virtual path of a real path the scripts name (they answer with the workdir's real path first). */
  private virtualOf(real: string): string | null {
    return this.realRoot === null ? null : virtualOfReal(this.realRoot, real);
  }

  /** The workdir's real path, as the last script that resolved it said. */
  private realRoot: string | null = null;

  async delete(inputPath: string): Promise<DeleteResult> {
    const checked = normalizeVirtualPath(inputPath);
    if (!checked.ok) return { error: checked.error };
    const virtual = checked.path;
    if (virtual === '/') return { error: recordMessages.deleteRoot };
    try {
      const slash = virtual.lastIndexOf('/');
      const parent = virtual.slice(0, slash) || '/';
      const reply = await this.call(DELETE, [relOf(parent), virtual.slice(slash + 1)]);
      if (reply.status === 'ok') return { path: virtual };
      return { error: replyError(reply, virtual, 'path') };
    } catch (err) {
      return { error: this.failed(err, virtual) };
    }
  }

  async stat(inputPath: string): Promise<StatResult> {
    const checked = normalizeVirtualPath(inputPath);
    if (!checked.ok) return { error: checked.error };
    const virtual = checked.path;
    try {
      const reply = await this.call(STAT, [relOf(virtual)]);
      if (reply.status !== 'ok') return { error: replyError(reply, virtual, 'path') };
      const st = parseStat(reply.args)!;
      if (st.isDir) return { info: { path: virtual === '/' ? '/' : virtual + '/', isDir: true, modifiedAt: st.modifiedAt }, version: st.version };
      return { info: { path: virtual, size: st.size, modifiedAt: st.modifiedAt }, version: st.version };
    } catch (err) {
      return { error: this.failed(err, virtual) };
    }
  }

  async grep(pattern: string, inputPath = '/', glob?: string, maxCount = DEFAULT_GREP_MAX_COUNT): Promise<GrepResult> {
    const badGlob = glob ? globPatternError(glob) : null;
    if (badGlob !== null) return { error: badGlob };
    const checked = normalizeVirtualPath(inputPath);
    if (!checked.ok) return { error: checked.error };
    const virtual = checked.path;
    try {
      const limit = Number.isFinite(maxCount) ? Math.max(0, Math.floor(maxCount)) : DEFAULT_GREP_MAX_COUNT;
      const filter = glob ? compileGlob(glob) : null;
      const tree = await this.call(TREE, [relOf(virtual)], this.searchTimeBudgetMs);
      if (tree.status === 'special') return { matches: [], truncated: false };
      if (tree.status !== 'ok' && tree.status !== 'file') return { error: replyError(tree, virtual, 'path') };
      const collector = new MatchCollector(limit);
      // A line never holds '\n', so such a pattern cannot match; a NUL cannot be passed to grep
      // and only matches past a text file's first 8 KiB: such a search finds nothing here.
      if (pattern.includes('\n') || pattern.includes('\0')) return collector.finish(false);
      const files = grepTargets(tree, virtual, filter, this.maxFileBytes);
      for (const chunk of chunksOf([...files.keys()], GREP_ARGS_BYTES)) {
        const found = await this.call(GREP, [pattern, String(limit + 1), String(this.maxFileBytes), ...chunk], this.searchTimeBudgetMs);
        if (found.status !== 'ok') return { error: replyError(found, virtual, 'path') };
        const reader = new FieldReader(found.payload);
        while (!reader.done) {
          const real = reader.next();
          const lines = reader.nextBytes();
          const path = real === null ? undefined : files.get(real);
          if (path === undefined || lines === null) continue;
          for (const hit of parseGrepLines(lines)) collector.add({ path, ...hit } satisfies GrepMatch);
        }
      }
      return collector.finish(false);
    } catch (err) {
      return { error: this.failed(err, virtual) };
    }
  }

  async glob(pattern: string, inputPath = '/'): Promise<GlobResult> {
    const badPattern = globPatternError(pattern);
    if (badPattern !== null) return { error: badPattern };
    const checked = normalizeVirtualPath(inputPath);
    if (!checked.ok) return { error: checked.error };
    const virtual = checked.path;
    try {
      const tree = await this.call(TREE, [relOf(virtual)], this.searchTimeBudgetMs);
      if (tree.status === 'file' || tree.status === 'special') return { error: messages.notADirectory(virtual) };
      if (tree.status !== 'ok') return { error: replyError(tree, virtual, 'path') };
      return { matches: globInfos(parseTree(tree.payload), virtual, compileGlob(pattern)), truncated: false };
    } catch (err) {
      return { error: this.failed(err, virtual) };
    }
  }

  /**
   * One upload and one commit for the batch. A path that is malformed or leads outside the
   * workdir is `invalid_path` (named as given); a provider's failure is `permission_denied`
   * for every item (the protocol has no code for it), and nothing was written.
   */
  async uploadFiles(files: FileUpload[]): Promise<FileUploadResponse[]> {
    const out: FileUploadResponse[] = files.map((f) => ({ path: f.path }));
    const valid: Array<{ index: number; virtual: string }> = [];
    files.forEach((f, index) => {
      const checked = normalizeVirtualPath(f.path);
      if (checked.ok) valid.push({ index, virtual: checked.path });
      else out[index] = { path: f.path, error: 'invalid_path' };
    });
    if (valid.length === 0) return out;
    try {
      const results = await this.put(valid.map(({ index, virtual }) => ({ virtual, content: files[index]!.content, kind: 'bytes' as const })));
      valid.forEach(({ index, virtual }, i) => {
        const status = results[i]?.status ?? 'failed';
        if (status === 'ok') out[index] = { path: virtual };
        else if (status === 'outside' || status === 'noroot') out[index] = { path: files[index]!.path, error: 'invalid_path' };
        else out[index] = { path: virtual, error: status.startsWith('upload:') ? (status.slice('upload:'.length) as FileOperationError) : transferError(status) };
      });
    } catch {
      for (const { index, virtual } of valid) out[index] = { path: virtual, error: 'permission_denied' };
    }
    return out;
  }

  /** One resolution and one download for the batch (errors as uploadFiles gives them). */
  async downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
    const out: FileDownloadResponse[] = paths.map((path) => ({ path }));
    const valid: Array<{ index: number; virtual: string }> = [];
    paths.forEach((path, index) => {
      const checked = normalizeVirtualPath(path);
      if (checked.ok) valid.push({ index, virtual: checked.path });
      else out[index] = { path, error: 'invalid_path' };
    });
    if (valid.length === 0) return out;
    try {
      const resolved = await this.batch(RESOLVE_FILES, valid.map((v) => relOf(v.virtual)));
      const wanted: Array<{ index: number; virtual: string; real: string }> = [];
      valid.forEach(({ index, virtual }, i) => {
        const item = resolved[i];
        const status = item?.status ?? 'failed';
        if (status === 'ok') wanted.push({ index, virtual, real: item!.payload });
        else if (status === 'outside' || status === 'noroot') out[index] = { path: paths[index]!, error: 'invalid_path' };
        else out[index] = { path: virtual, error: transferError(status) };
      });
      if (wanted.length === 0) return out;
      const got = await this.sandbox.download(wanted.map((w) => w.real));
      wanted.forEach(({ index, virtual }, i) => {
        const item = got[i];
        out[index] = item?.content ? { path: virtual, content: item.content } : { path: virtual, error: item?.error ?? 'permission_denied' };
      });
    } catch {
      for (const { index, virtual } of valid) if (out[index]!.error === undefined && out[index]!.content === undefined) out[index] = { path: virtual, error: 'permission_denied' };
    }
    return out;
  }

  /** Runs a command in the workdir, with LocalShellBackend's result conventions (SPEC §3 execute). */
  async execute(command: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    if (options.signal?.aborted) return CANCELLED_BEFORE_START;
    const timeoutS = options.timeoutS ?? this.defaultTimeoutS;
    const script = [...exportLines({ ...NON_INTERACTIVE_ENV }), command].join('\n');
    try {
      const r = await this.sandbox.execute(script, {
        cwd: this.sandbox.workdir,
        timeoutMs: timeoutS * 1000,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onData ? { onOutput: options.onData } : {}),
      });
      const capped = capText(terminalToText(r.output), this.maxOutputBytes);
      if (r.timedOut) return { output: composeOutput(capped.text, timeoutNote(timeoutS)), exitCode: TIMEOUT_EXIT_CODE, truncated: capped.truncated, timedOut: true };
      if (r.exitCode === null) return { output: composeOutput(capped.text, CANCELLED_NOTE), exitCode: null, truncated: capped.truncated };
      return { output: composeOutput(capped.text, undefined), exitCode: r.exitCode, truncated: capped.truncated };
    } catch (err) {
      if (!(err instanceof SandboxProviderError)) throw err;
      return { output: `Error: ${err.message}`, exitCode: 1, truncated: false };
    }
  }
}

/** A script that does not answer (a timeout, a sandbox without the tools). */
class ScriptFailure extends Error {}

const MARK_BYTES = Buffer.from(REPLY_MARK);

function downloadError(code: FileOperationError | undefined, virtual: string): string {
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

/** `items` in runs whose total length stays under `bytes`. */
function chunksOf(items: string[], bytes: number): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  let size = 0;
  for (const item of items) {
    if (current.length > 0 && size + item.length + 3 > bytes) {
      out.push(current);
      current = [];
      size = 0;
    }
    current.push(item);
    size += item.length + 3;
  }
  if (current.length > 0) out.push(current);
  return out;
}
