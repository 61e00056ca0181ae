// For tests: removes a data folder an agent host may still be serving, and the folders it
// worked in. The host (started by `run`, `serve`, `acp` or a window) outlives its client by
// design and writes into the data folder, and into a project's .git (a snapshot, a worktree's
// objects), while it winds down, so a plain recursive remove can race it (ENOTEMPTY): the host
// is ended first, then what it started that still works in those folders (a git outlives the
// host that started it), then each folder removed, retried while anything still finishes.

import { readdirSync, readFileSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { hostPaths } from '../paths';

export function removeDataDir(dataDir: string, ...workedIn: string[]): void {
  let log = '';
  try {
    log = readFileSync(join(dataDir, 'host', 'host.log'), 'utf8');
  } catch {
    // No host ever ran here.
  }
  const last = [...log.matchAll(/host up: pid (\d+)/g)].at(-1);
  const pid = last !== undefined ? Number(last[1]) : undefined;
  // Only that host: a pid of the log may since be another process's.
  if (pid !== undefined && pid !== process.pid && commandLine(pid).includes(dataDir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  // A long data folder's socket lives outside it; a killed host leaves it behind.
  const { socketDir, socket } = hostPaths(dataDir);
  if (socketDir !== undefined) rmSync(socket, { force: true });
  const folders = [...workedIn, dataDir];
  endWorkingIn(folders);
  for (const folder of folders) {
    try {
      rmSync(folder, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
    } catch {
      // Something started meanwhile (a git of the host's last moment): ended, then once more.
      endWorkingIn(folders);
      rmSync(folder, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
    }
  }
}

/** Kills every process of this user whose working folder is inside one of `folders` (never this one). */
function endWorkingIn(folders: readonly string[]): void {
  const roots = new Set<string>();
  for (const folder of folders) {
    roots.add(folder);
    try {
      roots.add(realpathSync(folder));
    } catch {
      // Gone already.
    }
  }
  const inside = (cwd: string): boolean => [...roots].some((root) => cwd === root || cwd.startsWith(`${root}/`));
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let cwd: string;
    try {
      cwd = readlinkSync(`/proc/${name}/cwd`);
    } catch {
      continue;
    }
    if (!inside(cwd)) continue;
    try {
      process.kill(Number(name), 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}
