// Where the agent host keeps its socket, token, start lock and log: a folder of the data
// folder that only the person can open (SPEC §16), so that the folder's mode, not the
// socket's, is what keeps others out. On Windows the socket is a named pipe (its default
// security lets only its creator, administrators and the system open it for writing) and the
// token, in the person's own profile, is what keeps others out.
//
// A data folder whose path is too long for a socket keeps it in a short folder: first
// `/tmp/deepdesk-<uid>`, a name anyone can take first. When that one is not a folder of this
// user's that only they can open (another user made it, it is a link, it is open to others),
// the socket goes to a folder no one else can take — a new `mkdtemp` folder in /tmp,
// `deepdesk-<uid>-XXXXXX`, which the sandbox hides as it hides the predictable one (policy.ts
// TMP_SOCKET_DIRS) — recorded in the host folder (`socket-dir`) where every client of the data
// folder finds it.

import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { createPrivateFile, writePrivateFile } from './private-file';
import { privateFolderProblem } from '../../core/fs/private-folder';
import { realOrResolved } from '../../core/fs/real-path';

export interface HostPaths {
  dir: string;
  /** A Unix socket's path, or on Windows a named pipe's name (`\\.\pipe\…`). */
  socket: string;
  /** Whether `socket` is a named pipe (not a file: nothing to link, chmod or remove). */
  pipe: boolean;
  /**
   * The person's own short folder holding the socket when the data folder's path is too long
   * for one (`/tmp/deepdesk-<uid>`, or the one recorded in `socketDirRecord`); undefined when
   * the socket sits in `dir`.
   */
  socketDir?: string;
  /** Where the short folder is recorded when it is not `/tmp/deepdesk-<uid>` (in `dir`, which only the person can open). */
  socketDirRecord: string;
  token: string;
  lock: string;
  log: string;
}

/** sun_path holds 108 bytes with its NUL on Linux, 104 on macOS: keep well under both. */
export const MAX_SOCKET_PATH_BYTES = 100;

/** Where the short socket folders live (not $TMPDIR: macOS's is itself long). */
const SHORT_ROOT = '/tmp';

export interface HostPathOptions {
  platform?: NodeJS.Platform;
  /** Tests only: the folder that holds the short socket folders (default /tmp). */
  shortRoot?: string;
}

/** The file of the host folder naming the short socket folder when it is not the predictable one. */
const SOCKET_DIR_RECORD = 'socket-dir';

export function hostPaths(dataDir: string, options: HostPathOptions = {}): HostPaths {
  const platform = options.platform ?? process.platform;
  const dir = join(dataDir, 'host');
  const files = { dir, token: join(dir, 'token'), lock: join(dir, 'start.lock'), log: join(dir, 'host.log'), socketDirRecord: join(dir, SOCKET_DIR_RECORD) };
  if (platform === 'win32') {
    // One pipe per data folder, named for it (pipe names are global on the machine).
    return { ...files, socket: `\\\\.\\pipe\\deepdesk-host-${dataDirId(resolve(dataDir).toLowerCase())}`, pipe: true };
  }
  const socket = join(dir, 'host.sock');
  if (Buffer.byteLength(socket) <= MAX_SOCKET_PATH_BYTES) return { ...files, socket, pipe: false };
  // Too long to bind: the socket moves to a short folder of the person's own, named for the
  // data folder's real path (every spelling of the folder finds the same host). Which folder:
  // the recorded one, else the predictable one (ensureHostDir checks it, and records another
  // when it is not safe).
  return inSocketDir(files, dataDir, recordedSocketDir(files.socketDirRecord) ?? predictableSocketDir(options));
}

function inSocketDir(files: Omit<HostPaths, 'socket' | 'pipe' | 'socketDir'>, dataDir: string, socketDir: string): HostPaths {
  return { ...files, socket: join(socketDir, `${dataDirId(realOrResolved(dataDir))}.sock`), socketDir, pipe: false };
}

function predictableSocketDir(options: HostPathOptions): string {
  return join(options.shortRoot ?? SHORT_ROOT, `deepdesk-${process.getuid?.() ?? 'user'}`);
}

/** The short socket folder recorded in the host folder, if any (an absolute path on one line). */
function recordedSocketDir(record: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(record, 'utf8').trim();
  } catch {
    return undefined;
  }
  return text !== '' && isAbsolute(text) && !/[\0\n\r]/.test(text) ? text : undefined;
}

function dataDirId(path: string): string {
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(path).digest('hex').slice(0, 32);
}

/** Throws when the socket's path cannot be bound (too long for a Unix socket). */
export function checkSocketPath(paths: HostPaths): void {
  if (paths.pipe) return;
  const bytes = Buffer.byteLength(paths.socket);
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    throw new Error(`the agent host's socket path is too long: ${paths.socket} is ${bytes} bytes, at most ${MAX_SOCKET_PATH_BYTES} fit`);
  }
}

/**
 * Creates the host folder (0700), and the short socket folder when there is one, or checks
 * the ones there: refused when one is a symlink, not a folder, someone else's, or still
 * open to others after tightening.
 */
export function ensureHostDir(dataDir: string, options: HostPathOptions = {}): HostPaths {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const paths = hostPaths(dataDir, options);
  checkSocketPath(paths);
  ensurePrivateFolder(paths.dir, "the agent host's folder", paths.pipe);
  if (paths.socketDir === undefined) return paths;
  // The recorded folder or the predictable one, when it is this user's and private (made so when missing).
  if (privateFolderProblem(paths.socketDir, true) === undefined) return paths;
  const chosen = fallbackSocketDir(dataDir, paths, options);
  checkSocketPath(chosen);
  return chosen;
}

/**
 * A short socket folder no one else can take (made by mkdtemp: a new name, made 0700 by this
 * process), recorded for the data folder's other clients. Of two processes choosing at once,
 * the first record stays and both use it. (Not `$XDG_RUNTIME_DIR`: a client's environment may
 * name one the host's sandbox does not know to hide.)
 */
function fallbackSocketDir(dataDir: string, paths: HostPaths, options: HostPathOptions): HostPaths {
  const made = mkdtempSync(`${predictableSocketDir(options)}-`);
  const problem = privateFolderProblem(made, false);
  if (problem !== undefined) throw new Error(`refusing the agent host's socket folder ${made}: ${problem}`);
  const chosen = made;
  const recorded = recordedSocketDir(paths.socketDirRecord);
  if (recorded === undefined) {
    createPrivateFile(paths.socketDirRecord, `${chosen}\n`);
  } else if (recorded === paths.socketDir) {
    // The recorded folder is no longer safe: replaced by the new one.
    writePrivateFile(paths.socketDirRecord, `${chosen}\n`);
  }
  // Another process may have recorded its choice first: that one is used by every client.
  const now = recordedSocketDir(paths.socketDirRecord);
  if (now !== chosen) {
    rmSync(made, { recursive: true, force: true });
    if (now === undefined || privateFolderProblem(now, true) !== undefined) throw new Error(`the agent host's socket folder recorded in ${paths.socketDirRecord} cannot be used`);
    return inSocketDir(paths, dataDir, now);
  }
  return inSocketDir(paths, dataDir, chosen);
}

/** `path` as a folder of the person's own that only they can open (made 0700 when missing). */
function ensurePrivateFolder(path: string, what: string, noModes: boolean): void {
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const refuse = (why: string): never => {
    throw new Error(`refusing ${what} ${path}: ${why}`);
  };
  let st = lstatSync(path);
  if (st.isSymbolicLink()) refuse('it is a symbolic link');
  if (!st.isDirectory()) refuse('it is not a folder');
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) refuse(`it belongs to another user (uid ${st.uid})`);
  // Windows has no modes (the profile's ACL covers the data folder): nothing to tighten there.
  if (!noModes && (st.mode & 0o077) !== 0) {
    try {
      chmodSync(path, 0o700);
    } catch {
      // Checked below.
    }
    st = lstatSync(path);
    if ((st.mode & 0o077) !== 0) refuse(`others can open it (mode ${(st.mode & 0o777).toString(8)}) and it could not be made private`);
  }
}
