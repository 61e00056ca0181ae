// A place where a folder's commands and file tools run (SPEC §2, §13, §18): another machine over
// SSH, a provider's sandbox. What the script backend (script-backend.ts) needs of it, as Deep
// Agents' BaseSandbox needs of a sandbox: run a script, put files, get files. Every call may
// throw PlaceError (a lost connection, a provider's failure), in words the person can read.

export type PlaceFileError = 'file_not_found' | 'permission_denied' | 'is_directory' | 'invalid_path';

export interface PlaceRunOptions {
  /** Bytes on the script's stdin (a place whose execute carries bytes only: `bytes`). */
  stdin?: Uint8Array;
  /** The script gives up after this long (a place's own default when absent). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface PlaceRun {
  /** stdout as bytes (a `text` place: its output, stderr dropped by the scripts). */
  output: Buffer;
  /** stderr, where the place keeps it apart (said when a script gives no answer). */
  stderr?: string;
  /** null when it gave no status (cancelled). */
  exitCode: number | null;
  timedOut: boolean;
}

export interface Place {
  /** `daytona:abc123`, `ssh:dev@box:2222`. */
  readonly id: string;
  /** How messages name it: `dev@box:2222`, `the sandbox`. */
  readonly label: string;
  /** Where, in a sentence: `on dev@box:2222`, `in the sandbox`. */
  readonly where: string;
  /** The folder's path at the place, as given (the scripts resolve its real path). */
  readonly root: string;
  /**
   * `bytes`: execute's stdin and stdout carry any bytes, in one call (an SSH channel), so file
   * contents go with the script that checked the path (script/descriptor-ops.ts, race-free).
   * `files`: execute gives text back only (a provider's API); file contents travel by upload and
   * download, checked and moved into place by POSIX scripts (script/posix-scripts.ts).
   */
  readonly transfer: 'bytes' | 'files';
  /** Runs a POSIX sh script. Throws PlaceError when the place could not be reached. */
  run(script: string, options?: PlaceRunOptions): Promise<PlaceRun>;
  /** Writes files at absolute paths of the place; per-file errors are returned. */
  upload(files: ReadonlyArray<{ path: string; content: Uint8Array }>, signal?: AbortSignal): Promise<Array<{ path: string; error?: PlaceFileError }>>;
  download(paths: readonly string[], signal?: AbortSignal): Promise<Array<{ path: string; content?: Uint8Array; error?: PlaceFileError }>>;
}

/** The place could not be reached or refused the call; `message` is the result's error as is. */
export class PlaceError extends Error {
  override readonly name = 'PlaceError';
}
