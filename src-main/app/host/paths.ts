// Where the agent host keeps its socket, token, start lock and log: a folder of the data
// folder that only the person can open (SPEC §16), so that the folder's mode, not the
// socket's, is what keeps others out. On Windows the socket is a named pipe (its default
// security lets only its creator, administrators and the system open it for writing) and the
// token, in the person's own profile, is what keeps others out.

import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface HostPaths {
  dir: string;
  /** A Unix socket's path, or on Windows a named pipe's name (`\\.\pipe\…`). */
  socket: string;
  /** Whether `socket` is a named pipe (not a file: nothing to link, chmod or remove). */
  pipe: boolean;
  /**
   * The person's own short folder holding the socket when the data folder's path is too long
   * for one (`/tmp/deepdesk-<uid>`); undefined when the socket sits in `dir`.
   */
  socketDir?: string;
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

export function hostPaths(dataDir: string, options: HostPathOptions = {}): HostPaths {
  const platform = options.platform ?? process.platform;
  const dir = join(dataDir, 'host');
  const files = { dir, token: join(dir, 'token'), lock: join(dir, 'start.lock'), log: join(dir, 'host.log') };
  if (platform === 'win32') {
    // One pipe per data folder, named for it (pipe names are global on the machine).
    return { ...files, socket: `\\\\.\\pipe\\deepdesk-host-${dataDirId(resolve(dataDir).toLowerCase())}`, pipe: true };
  }
  const socket = join(dir, 'host.sock');
  if (Buffer.byteLength(socket) <= MAX_SOCKET_PATH_BYTES) return { ...files, socket, pipe: false };
  // Too long to bind: the socket moves to a short folder of the person's own, named for the
  // data folder's real path (every spelling of the folder finds the same host).
  const socketDir = join(options.shortRoot ?? SHORT_ROOT, `deepdesk-${process.getuid?.() ?? 'user'}`);
  return { ...files, socket: join(socketDir, `${dataDirId(realPath(dataDir))}.sock`), socketDir, pipe: false };
}

function dataDirId(path: string): string {
  return createHash('sha256').update(path).digest('hex').slice(0, 32);
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
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
  if (paths.socketDir !== undefined) ensurePrivateFolder(paths.socketDir, "the agent host's socket folder", false);
  return paths;
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
