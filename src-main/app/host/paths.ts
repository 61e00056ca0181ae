// Where the agent host keeps its socket, token, start lock and log: a folder of the data
// folder that only the person can open (SPEC §16), so that the folder's mode, not the
// socket's, is what keeps others out. On Windows the socket is a named pipe (its default
// security lets only its creator, administrators and the system open it for writing) and the
// token, in the person's own profile, is what keeps others out.

import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface HostPaths {
  dir: string;
  /** A Unix socket's path, or on Windows a named pipe's name (`\\.\pipe\…`). */
  socket: string;
  /** Whether `socket` is a named pipe (not a file: nothing to link, chmod or remove). */
  pipe: boolean;
  token: string;
  lock: string;
  log: string;
}

/** sun_path holds 108 bytes with its NUL on Linux, 104 on macOS: keep well under both. */
export const MAX_SOCKET_PATH_BYTES = 100;

export function hostPaths(dataDir: string, platform: NodeJS.Platform = process.platform): HostPaths {
  const dir = join(dataDir, 'host');
  const files = { dir, token: join(dir, 'token'), lock: join(dir, 'start.lock'), log: join(dir, 'host.log') };
  if (platform !== 'win32') return { ...files, socket: join(dir, 'host.sock'), pipe: false };
  // One pipe per data folder, named for it (pipe names are global on the machine).
  const id = createHash('sha256').update(resolve(dataDir).toLowerCase()).digest('hex').slice(0, 32);
  return { ...files, socket: `\\\\.\\pipe\\deepdesk-host-${id}`, pipe: true };
}

/** Throws when the socket's path cannot be bound (too long for a Unix socket). */
export function checkSocketPath(paths: HostPaths): void {
  if (paths.pipe) return;
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
  // Windows has no modes (the profile's ACL covers the data folder): nothing to tighten there.
  if (!paths.pipe && (st.mode & 0o077) !== 0) {
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
