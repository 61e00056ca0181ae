// For tests: removes a data folder an agent host may still be serving, and the folders it
// worked in. The host (started by `run`, `serve`, `acp` or a window) outlives its client by
// design and writes into the data folder, and into a project's .git (a snapshot, a worktree's
// objects), while it winds down, so a plain recursive remove can race it (ENOTEMPTY): the host
// is ended first, then each folder removed, retried while a git it started still finishes.

import { readFileSync, rmSync } from 'node:fs';
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
  for (const folder of [...workedIn, dataDir]) rmSync(folder, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}
