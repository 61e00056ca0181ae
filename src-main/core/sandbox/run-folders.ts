// The folders of one sandboxed run (its private TMPDIR, its write layer) live in ONE private
// folder per user, never loose in /tmp:
// - the sandbox reads /tmp before each run for the sockets it hides (policy.ts
//   tmpSocketPaths), and keeps that reading while /tmp is unchanged: a run that made its
//   folders there would change it for the next one;
// - a Deepdesk killed before it could clean up (SIGKILL, a crash, a test worker ended) left
//   its run folders behind, and /tmp filled with them. Each folder is named after the process
//   that made it (its pid namespace and pid); the first run of a process removes those of
//   processes that are gone.
// - the sockets of a process's proxies (the domain proxy, the metering proxy) are made here
//   too: a folder of them loose in /tmp was hidden from every command with its own mount
//   until someone removed it, and a killed process never did. The sandbox hides this folder
//   whole from a command, but for the command's own folders (index.ts).
// It is in the temp folder, or /tmp where a proxy's socket would not fit (core/fs/socket-path.ts),
// used only when it is this user's own, private and no link; else (another's) loose there.

import { chmodSync, lstatSync, mkdtempSync, readdirSync, readlinkSync, rmdirSync, rmSync, unlinkSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { privateFolderProblem, sharedPrivateFolder } from '../fs/private-folder';
import { realPathOf } from '../fs/real-path';
import { socketPathFits, socketPathLimit, socketTempDir } from '../fs/socket-path';
import { isProcessAlive } from '../process/process-tree';

/** What a run folder is for: the name it starts with. */
export type RunFolderKind = 'deepdesk-run-' | 'deepdesk-server-' | 'deepdesk-layer-' | 'deepdesk-layer-probe-' | 'deepdesk-proxy-' | 'deepdesk-snapshot-' | 'deepdesk-tmp-';

const NAMED = /^deepdesk-(?:run|server|layer|layer-probe|proxy|snapshot|tmp)-(\d+)\.(\d+)-[A-Za-z0-9]{6}$/;

/** A proxy's folder as Deepdesk made it in the temp folder before they were named after their process (mkdtemp). */
const UNNAMED_PROXY = /^deepdesk-proxy-[A-Za-z0-9]{6}$/;
/** The one socket such a folder held. */
const PROXY_SOCKETS = new Set(['meter.sock', 'proxy.sock']);
/** A socket bound longer ago than this that still refuses connections is no one's (a server listens the moment it binds). */
const SETTLED_MS = 10_000;

let swept = false;

/** This process's pid namespace (Linux), so that a pid is never compared across namespaces; 0 elsewhere. */
const pidNamespace = ((): string => {
  try {
    return /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? '0';
  } catch {
    return '0';
  }
})();

const RUNS = `deepdesk-runs-${process.getuid?.() ?? 'user'}`;

/** The folder run folders are made in (see above). */
export function runFoldersDir(): string {
  const root = socketTempDir(join(RUNS, `deepdesk-proxy-${pidNamespace}.${process.pid}-XXXXXX`, 'proxy.sock'));
  return sharedPrivateFolder(RUNS, () => root, root);
}

/** A new private folder for one run (0700, mkdtemp), named after this process. */
export function makeRunFolder(kind: RunFolderKind): string {
  const parent = runFoldersDir();
  if (!swept && basename(parent) === RUNS) {
    swept = true;
    void sweepRunFolders(parent);
  }
  return mkdtempSync(join(parent, `${kind}${pidNamespace}.${process.pid}-`));
}

/** A new proxy's run folder (its real path) and where its socket `name` is bound there, a path that fits a socket's. */
export function makeSocketFolder(name: 'meter.sock' | 'proxy.sock'): { dir: string; socket: string } {
  const dir = realPathOf(makeRunFolder('deepdesk-proxy-'));
  const socket = join(dir, name);
  if (socketPathFits(socket)) return { dir, socket };
  rmdirSync(dir);
  throw new Error(`a socket cannot be bound at ${socket}: longer than ${socketPathLimit()} bytes`);
}

/** Removes the run folders of processes of this pid namespace that are gone; returns their names. */
export async function sweepRunFolders(parent = runFoldersDir()): Promise<string[]> {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return [];
  }
  const gone = names.filter((name) => {
    const m = NAMED.exec(name);
    if (!m || m[1] !== pidNamespace) return false;
    const pid = Number(m[2]);
    return pid !== process.pid && !isProcessAlive(pid);
  });
  await Promise.all(gone.map((name) => removeRunFolder(join(parent, name))));
  return gone;
}

/** Removes a run folder and all in it, making folders the command left unwritable writable first. */
export async function removeRunFolder(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true });
  } catch {
    removeRunFolderSync(dir);
  }
}

/** Folders of runs that are over, being removed in the background (removeRunFolderLater). */
const removing = new Set<string>();
let flushOnExit = false;

/**
 * Removes the folder of a run that is over, a turn of the event loop from now, off the path of
 * the run's result (on this disk 55 µs a folder, 0.7 ms a command); at the latest as this
 * process exits. `remove`: how (a layer's or a TMPDIR's quicker way for an empty one).
 */
export function removeRunFolderLater(dir: string, remove: (dir: string) => Promise<void> = removeRunFolder): void {
  removing.add(dir);
  if (!flushOnExit) {
    flushOnExit = true;
    process.once('exit', () => {
      for (const left of removing) removeRunFolderSync(left);
    });
  }
  setImmediate(() => {
    void remove(dir)
      .catch(() => removeRunFolderSync(dir))
      .finally(() => removing.delete(dir));
  });
}

/** removeRunFolder, at once (an exiting process). */
export function removeRunFolderSync(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // A file the command left without write permission on its folder.
    try {
      chmodSync(dir, 0o700);
      for (const d of walkDirs(dir)) chmodSync(d, 0o700);
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Left for the next sweep.
    }
  }
}

function* walkDirs(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const child = join(dir, e.name);
    yield child;
    yield* walkDirs(child);
  }
}

let looseSwept: Promise<unknown> | undefined;

/**
 * sweepUnnamedProxyFolders, once per process. A sandboxed command's preparation waits for it
 * before it scans /tmp (policy.ts tmpSocketPaths), so as not to cover a folder the sweep is
 * about to remove (bwrap fails on a mount point that vanished).
 */
export function sweepUnnamedProxyFoldersOnce(): Promise<unknown> {
  return (looseSwept ??= sweepUnnamedProxyFolders().catch(() => []));
}

/**
 * Removes the proxy folders an earlier Deepdesk left loose in the temp folder (named by
 * mkdtemp alone, so their process is not known): only a real folder (no link) that is this
 * user's and closed to others, holding nothing but one socket of a proxy's name that was
 * bound a while ago and refuses connections (no one listens on it: its process is gone).
 * A live one's socket accepts. Returns the paths removed.
 */
export async function sweepUnnamedProxyFolders(parent = tmpdir(), settledMs = SETTLED_MS): Promise<string[]> {
  let names: string[];
  try {
    names = (await readdir(parent)).filter((name) => UNNAMED_PROXY.test(name));
  } catch {
    return [];
  }
  const dead = await Promise.all(
    names.map(async (name): Promise<{ dir: string; socket: string } | undefined> => {
      const dir = join(parent, name);
      if (privateFolderProblem(dir, false) !== undefined) return undefined;
      let inside: string[];
      try {
        inside = await readdir(dir);
      } catch {
        return undefined;
      }
      if (inside.length !== 1 || !PROXY_SOCKETS.has(inside[0]!)) return undefined;
      const socket = join(dir, inside[0]!);
      const st = lstatSync(socket, { throwIfNoEntry: false });
      if (!st?.isSocket() || Date.now() - st.ctimeMs < settledMs) return undefined;
      return (await refusesConnections(socket)) ? { dir, socket } : undefined;
    }),
  );
  // All in one go: a /tmp scan made before is out of date once, not once per folder.
  const removed: string[] = [];
  for (const found of dead) {
    if (!found) continue;
    try {
      // The socket, then the folder, each by name: nothing is followed, and a folder that gained an entry meanwhile stays.
      unlinkSync(found.socket);
      rmdirSync(found.dir);
      removed.push(found.dir);
    } catch {
      // Someone else's sweep, or something new in it: left.
    }
  }
  return removed;
}

/** Whether connecting to the Unix socket at `path` is refused (ECONNREFUSED: bound by no live listener). */
function refusesConnections(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const done = (refused: boolean): void => {
      socket.destroy();
      resolve(refused);
    };
    socket.setTimeout(2_000, () => done(false));
    socket.once('connect', () => done(false));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code === 'ECONNREFUSED'));
  });
}
