// The backend protocol (SPEC §2). Every method is async and never throws for an
// expected failure: it returns a result carrying an `error` string instead.
// Paths are virtual: the backend's own root is `/`.

import type { StepAttribution } from '../process/attribution';
import type { ReviewLayer } from '../sandbox/types';

export interface FileInfo {
  path: string;
  isDir?: boolean;
  size?: number;
  /** ISO 8601 timestamp. */
  modifiedAt?: string;
  /** What `ls` shows after the path: a memory's ` (proposed)` or `[stale: …]` (SPEC §25). */
  mark?: string;
}

export type FileEncoding = 'utf-8' | 'base64';

export interface FileData {
  content: string;
  encoding: FileEncoding;
  mimeType?: string;
  createdAt?: string;
  modifiedAt?: string;
}

export interface LsResult {
  error?: string;
  entries?: FileInfo[];
}

export interface ReadResult {
  error?: string;
  fileData?: FileData;
  /** 1-based first line of the window (text files only). */
  startLine?: number;
  /** 1-based last line of the window, inclusive. */
  endLine?: number;
  totalLines?: number;
  /** Offset to pass to read() for the next window; absent when the window reached the end. */
  nextOffset?: number;
  /** A memory's version (SPEC §25), for what a request carried. */
  memoryVersion?: number;
}

export interface ReadRawResult {
  error?: string;
  data?: Uint8Array;
}

export interface WriteResult {
  error?: string;
  path?: string;
  /** A memory written beside untrusted content: kept for the person to review, not in use (SPEC §25). */
  proposed?: true;
}

export interface EditResult {
  error?: string;
  path?: string;
  occurrences?: number;
  proposed?: true;
}

export interface DeleteResult {
  error?: string;
  path?: string;
}

export interface GrepMatch {
  path: string;
  /** 1-based. */
  line: number;
  /** The whole line, without its line ending. */
  text: string;
}

export interface GrepResult {
  error?: string;
  matches?: GrepMatch[];
  truncated?: boolean;
}

export interface GlobResult {
  error?: string;
  matches?: FileInfo[];
  truncated?: boolean;
}

export type FileOperationError = 'file_not_found' | 'permission_denied' | 'is_directory' | 'invalid_path';

export interface FileUpload {
  path: string;
  content: Uint8Array;
}

export interface FileUploadResponse {
  path: string;
  error?: FileOperationError;
}

export interface FileDownloadResponse {
  path: string;
  content?: Uint8Array;
  error?: FileOperationError;
}

/** A cheap identity of a file's current content, used by the read-before-write guard. */
export interface StatResult {
  error?: string;
  info?: FileInfo;
  /** Changes whenever the content changes (mtime+size+inode on disk, a counter in memory). */
  version?: string;
  /** A memory's version (SPEC §25), for what a request carried. */
  memoryVersion?: number;
}

export interface ExecuteOptions {
  /** Seconds; the caller validates the range. */
  timeoutS?: number;
  signal?: AbortSignal;
  /** Raw bytes as the terminal shows them, for a live view. */
  onData?: (chunk: string) => void;
  /** Variables for this command's process, over the backend's (never written into the command line). */
  env?: Record<string, string>;
  /** false runs the command outside the backend's sandbox (the caller has asked the person). Default true. */
  sandbox?: boolean;
  /**
   * Given: the command reads its stdin from its own pty (so a person can answer a prompt),
   * and this receives the pty's controls when it starts. Without it stdin is empty.
   */
  attach?: (live: LiveCommand) => void;
  /** The size of the pty the command starts in (the view that shows it). Default 120×30. */
  cols?: number;
  rows?: number;
  /**
   * The W3C traceparent of the tool call that runs it (SPEC §17): the command gets it as
   * TRACEPARENT, after the environment was scrubbed; a malformed value is not passed.
   */
  traceparent?: string;
  /**
   * The checkpoint step this command belongs to (checkpoints/recorder.ts): a command that runs
   * on a checked write layer applies it through this; one whose writes cannot be observed says
   * so before it starts. Absent: no step is recorded.
   */
  attribution?: StepAttribution;
  /** Reviews a sandboxed command's write layer before it is applied (SPEC §23 (5)). */
  reviewLayer?: ReviewLayer;
}

/** A running command's pty, for a view that shows it. Calls after it ended do nothing. */
export interface LiveCommand {
  /** Types into the command's terminal. */
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Flow control: stop reading the command's output until resume(). */
  pause(): void;
  resume(): void;
}

export interface ExecuteResult {
  output: string;
  /** null when the command was cancelled (AbortSignal); death by signal N reports 128+N, as a shell does; 124 on timeout. */
  exitCode: number | null;
  truncated: boolean;
  timedOut?: boolean;
  /** Whether the command ran inside an OS sandbox. */
  sandboxed?: boolean;
  /** The `[Sandbox blocked …]` line (also the output's last line) when the sandbox blocked something. */
  sandboxBlocked?: string;
}

export const DEFAULT_READ_LIMIT = 2000;
export const DEFAULT_GREP_MAX_COUNT = 1000;
export const MAX_BINARY_READ_BYTES = 10 * 1024 * 1024;

export interface Backend {
  ls(path: string): Promise<LsResult>;
  read(path: string, offset?: number, limit?: number): Promise<ReadResult>;
  readRaw(path: string): Promise<ReadRawResult>;
  write(path: string, content: string): Promise<WriteResult>;
  edit(path: string, oldString: string, newString: string, replaceAll?: boolean): Promise<EditResult>;
  delete(path: string): Promise<DeleteResult>;
  grep(pattern: string, path?: string, glob?: string, maxCount?: number): Promise<GrepResult>;
  glob(pattern: string, path?: string): Promise<GlobResult>;
  stat(path: string): Promise<StatResult>;
  uploadFiles(files: FileUpload[]): Promise<FileUploadResponse[]>;
  downloadFiles(paths: string[]): Promise<FileDownloadResponse[]>;
  /**
   * Where `path` leads through symlinks, when that differs from the path itself: a virtual
   * path, or for a target outside the backend's root its real path (for the person, never
   * the model). Absent on backends without links.
   */
  linkTarget?(path: string): Promise<LinkTarget | null>;
  /** The other names `path` has: the paths in the backend that lead to it through symlinks. Absent on backends without links. */
  linkedNames?(path: string): Promise<string[]>;
  /**
   * Why a change at `path` must always ask, whatever the mode and the rules (it would
   * change what other programs run later, such as git's hooks and config), or null.
   * Absent on backends where nothing runs what they hold.
   */
  alwaysAskReason?(path: string): Promise<string | null>;
  /**
   * Why a write, edit, delete or upload at `path` would be refused whatever it holds (a
   * read-only mount, a git mount's `.git`), in the exact words the change itself would
   * return; undefined when nothing is known against it. Cheap and without effects: it
   * touches nothing (no clone, no fetch, no file read), so the tools can refuse such a call
   * before anyone is asked to approve it. Absent on backends that refuse no path this way.
   */
  changeRefusal?(path: string): string | undefined | Promise<string | undefined>;
}

export type LinkTarget = { virtual: string } | { outside: string };

export interface ShellBackend extends Backend {
  readonly id: string;
  execute(command: string, options?: ExecuteOptions): Promise<ExecuteResult>;
}

export function isShellBackend(backend: Backend): backend is ShellBackend {
  return typeof (backend as Partial<ShellBackend>).execute === 'function';
}
