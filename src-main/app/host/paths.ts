// Where the agent host keeps its socket, token, start lock and log: a folder of the data
// folder that only the person can open (SPEC §16), so that the folder's mode, not the
// socket's, is what keeps others out.

import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export interface HostPaths {
  dir: string;
  socket: string;
  token: string;
  lock: string;
  log: string;
}

/** sun_path holds 108 bytes with its NUL on Linux, 104 on macOS: keep well under both. */
export const MAX_SOCKET_PATH_BYTES = 100;

export function hostPaths(dataDir: string): HostPaths {
  const dir = join(dataDir, 'host');
  return { dir, socket: join(dir, 'host.sock'), token: join(dir, 'token'), lock: join(dir, 'start.lock'), log: join(dir, 'host.log') };
}

/** Throws when the socket's path cannot be bound (too long for a Unix socket). */
export function checkSocketPath(paths: HostPaths): void {
  const bytes = Buffer.byteLength(paths.socket);
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    throw new Error(
      `the data folder's path is too long for the agent host's socket: ${paths.socket} is ${bytes} bytes, at most ${MAX_SOCKET_PATH_BYTES} fit; use a shorter --data-dir or DEEPDESK_HOME`,
    );
  }
}

/**
 * Creates the host folder (0700) or checks the one there: refused when it is a symlink, not
 * a folder, someone else's, or still open to others after tightening.
 */
export function ensureHostDir(dataDir: string): HostPaths {
  const paths = hostPaths(dataDir);
  checkSocketPath(paths);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    mkdirSync(paths.dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const refuse = (why: string): never => {
    throw new Error(`refusing the agent host's folder ${paths.dir}: ${why}`);
  };
  let st = lstatSync(paths.dir);
  if (st.isSymbolicLink()) refuse('it is a symbolic link');
  if (!st.isDirectory()) refuse('it is not a folder');
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) refuse(`it belongs to another user (uid ${st.uid})`);
  if ((st.mode & 0o077) !== 0) {
    try {
      chmodSync(paths.dir, 0o700);
    } catch {
      // Checked below.
    }
    st = lstatSync(paths.dir);
    if ((st.mode & 0o077) !== 0) refuse(`others can open it (mode ${(st.mode & 0o777).toString(8)}) and it could not be made private`);
  }
  return paths;
}
