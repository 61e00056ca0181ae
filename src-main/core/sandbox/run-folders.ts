// The folders of one sandboxed run (its private TMPDIR, its write layer) live in ONE private
// folder per user, never loose in /tmp:
// - the sandbox reads /tmp before each run for the sockets it hides (policy.ts
//   tmpSocketPaths), and keeps that reading while /tmp is unchanged: a run that made its
//   folders there would change it for the next one;
// - a Deepdesk killed before it could clean up (SIGKILL, a crash, a test worker ended) left
//   its run folders behind, and /tmp filled with them. Each folder is named after the process
//   that made it (its pid namespace and pid); the first run of a process removes those of
//   processes that are gone.
// The shared folder is used only when it is this user's own, private and no link; otherwise
// (someone else made the name first) the system temp folder, as before.

import { chmodSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedPrivateFolder } from '../fs/private-folder';
import { isProcessAlive } from '../process/process-tree';

/** What a run folder is for: the name it starts with. */
export type RunFolderKind = 'deepdesk-run-' | 'deepdesk-server-' | 'deepdesk-layer-' | 'deepdesk-layer-probe-';

const NAMED = /^deepdesk-(?:run|server|layer|layer-probe)-(\d+)\.(\d+)-[A-Za-z0-9]{6}$/;

let swept = false;

/** This process's pid namespace (Linux), so that a pid is never compared across namespaces; 0 elsewhere. */
const pidNamespace = ((): string => {
  try {
    return /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? '0';
  } catch {
    return '0';
  }
})();

/** The folder run folders are made in (see above). */
export function runFoldersDir(): string {
  return sharedPrivateFolder(`deepdesk-runs-${process.getuid?.() ?? 'user'}`, () => tmpdir());
}

/** A new private folder for one run (0700, mkdtemp), named after this process. */
export function makeRunFolder(kind: RunFolderKind): string {
  const parent = runFoldersDir();
  if (!swept && parent !== tmpdir()) {
    swept = true;
    void sweepRunFolders(parent);
  }
  return mkdtempSync(join(parent, `${kind}${pidNamespace}.${process.pid}-`));
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
