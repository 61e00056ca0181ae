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

/**
 * Ends every process of this user whose working folder is inside one of `folders` (never this
 * one): SIGTERM, then SIGKILL to what is left after a second. Not SIGKILL at once: a shell the
 * test opened there may be running the machine's ~/.bashrc, whose pyenv rehash holds a lock only
 * its EXIT trap releases; left behind, every later shell of the machine waits 60 s for it.
 */
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
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let cwd: string;
    try {
      cwd = readlinkSync(`/proc/${name}/cwd`);
    } catch {
      continue;
    }
    if (inside(cwd)) found.push(Number(name));
  }
  const signal = (pid: number, name: NodeJS.Signals | 0): boolean => {
    try {
      process.kill(pid, name);
      return true;
    } catch {
      return false; // Gone already.
    }
  };
  let alive = found.filter((pid) => signal(pid, 'SIGTERM'));
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; alive.length > 0 && waited < 1000; waited += 25) {
    Atomics.wait(pause, 0, 0, 25);
    alive = alive.filter((pid) => signal(pid, 0) && !isZombie(pid));
  }
  for (const pid of alive) signal(pid, 'SIGKILL');
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return true;
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}
