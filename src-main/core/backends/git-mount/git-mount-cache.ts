// Where a git mount keeps its clone: `<cacheRoot>/<hash of url#branch>` in the data folder,
// claimed by one mount at a time (a `.lock` file with the process id, and a set for this
// process), so two processes or two mounts of the same remote never share a work tree:
// the second takes `<hash>-2`, and so on.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isProcessAlive } from '../../process/process-tree';

const claimedHere = new Set<string>();
const MAX_COPIES = 16;

export interface CacheClaim {
  dir: string;
  release(): void;
}

export function cacheKey(url: string, branch: string | undefined): string {
  return createHash('sha256').update(`${url}#${branch ?? ''}`).digest('hex').slice(0, 16);
}

function tryLock(lockFile: string): boolean {
  try {
    fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const pid = Number(fs.readFileSync(lockFile, 'utf8').trim());
  // Left by a process that ended (or by this one, for a mount that was never closed: not in claimedHere).
  if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isProcessAlive(pid)) return false;
  fs.rmSync(lockFile, { force: true });
  try {
    fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
    return true;
  } catch {
    return false;
  }
}

export function claimCacheDir(cacheRoot: string, key: string): CacheClaim {
  fs.mkdirSync(cacheRoot, { recursive: true, mode: 0o700 });
  for (let n = 1; n <= MAX_COPIES; n++) {
    const dir = path.join(cacheRoot, n === 1 ? key : `${key}-${n}`);
    const lockFile = `${dir}.lock`;
    if (claimedHere.has(dir) || !tryLock(lockFile)) continue;
    claimedHere.add(dir);
    let released = false;
    return {
      dir,
      release() {
        if (released) return;
        released = true;
        claimedHere.delete(dir);
        fs.rmSync(lockFile, { force: true });
      },
    };
  }
  throw new Error(`more than ${MAX_COPIES} copies of one git mount are open`);
}

/** Many readers at once, or one writer (fetching, resetting, committing) alone. */
export class ReadWriteLock {
  private readers = 0;
  private writer = false;
  private waiting: { exclusive: boolean; wake: () => void }[] = [];

  async shared<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire(false);
    try {
      return await fn();
    } finally {
      this.readers--;
      this.pump();
    }
  }

  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire(true);
    try {
      return await fn();
    } finally {
      this.writer = false;
      this.pump();
    }
  }

  private acquire(exclusive: boolean): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push({ exclusive, wake: resolve });
      this.pump();
    });
  }

  /** First come, first served: a waiting writer holds back later readers. */
  private pump(): void {
    while (this.waiting.length > 0 && !this.writer) {
      const next = this.waiting[0]!;
      if (next.exclusive) {
        if (this.readers > 0) return;
        this.writer = true;
      } else {
        this.readers++;
      }
      this.waiting.shift();
      next.wake();
    }
  }
}
