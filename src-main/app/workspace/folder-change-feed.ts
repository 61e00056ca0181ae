// The folder watcher's events as a change feed for checkpoints (core/checkpoints/change-feed.ts):
// which paths changed since the recorder last looked, so that a step whose command's writes
// cannot be observed checks those paths instead of walking the whole folder.
//
// "Every change made before this call has been reported" is proven with a barrier: the
// folder's own mode is set to what it is (nothing changes but its ctime), which the kernel
// queues as an event behind every earlier one; once the watcher reports the folder itself,
// everything before it has been reported too. A barrier that does not come back in time,
// a watcher error (an overflowed event queue among them) or a feed that was not listening
// since the last walk answers 'unknown', and the recorder walks.
//
// A blind spot: @parcel/watcher on Linux watches a new folder only from when it sees it, so
// folders already inside it (`mkdir -p`, a tree moved in or renamed) go unwatched and their
// changes unreported. A new folder that holds folders makes the feed answer 'unknown' (the
// next step walks) and asks for a fresh subscription (`onBlindSpot`), which watches them; so
// does a batch of more made paths than are worth looking into one by one.

import fs from 'node:fs';
import { chmod, lstat } from 'node:fs/promises';
import path from 'node:path';
import type { ChangeFeed } from '../../core/checkpoints/change-feed';
import { HEAVY_FOLDERS } from '../../core/fs/heavy-folders';
import type { RawChange } from './folder-watcher';

/** Past this many pending paths, looking at each costs more than a walk: the feed gives up until the next one. */
const MAX_PENDING = 50_000;
const BARRIER_TIMEOUT_MS = 3_000;
/** Made or changed paths in one batch that are each looked into for folders the watcher may not watch. */
const MAX_LOOKED_INTO = 1_000;

export class FolderChangeFeed implements ChangeFeed {
  private pending = new Set<string>();
  private listening = false;
  /** Something may have been missed since the last walk. */
  private incomplete = true;
  private waiters: Array<() => void> = [];

  constructor(
    private readonly folder: string,
    private readonly options: { barrierTimeoutMs?: number; maxPending?: number; maxLookedInto?: number; onBlindSpot?: () => void } = {},
  ) {}

  /** The watcher reports from now on (changes before this are unknown until the next walk). */
  started(): void {
    this.listening = true;
  }

  /** A batch of changes from the watcher, relative to the folder ('' is the folder itself). */
  paths(changes: readonly RawChange[]): void {
    let barrier = false;
    let blind = false;
    // Past this many made or changed paths in one batch, looking into each costs more than the walk it would spare.
    const look = changes.filter((c) => c.type !== 'delete').length <= (this.options.maxLookedInto ?? MAX_LOOKED_INTO);
    for (const change of changes) {
      if (change.path === '') barrier = true;
      else {
        if (!this.incomplete) this.pending.add(change.path);
        if (look && change.type !== 'delete' && !blind) blind = this.holdsUnwatchedFolders(change.path);
      }
    }
    // Too many to look into: one of them may be a blind spot too.
    if (blind || !look) {
      this.failed();
      this.options.onBlindSpot?.();
    }
    if (this.pending.size > (this.options.maxPending ?? MAX_PENDING)) this.failed();
    if (barrier) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  /** The watcher failed or its queue overflowed: what changed is unknown until the next walk. */
  failed(): void {
    this.incomplete = true;
    this.pending.clear();
  }

  /** Whether `rel`, reported made or changed, is a folder holding folders the watcher may not watch. */
  private holdsUnwatchedFolders(rel: string): boolean {
    // Below a dependency folder's own entries nothing is watched or recorded anyway.
    if (rel.split('/').slice(0, -1).some((name) => HEAVY_FOLDERS.has(name))) return false;
    try {
      return fs.readdirSync(path.join(this.folder, rel), { withFileTypes: true }).some((d) => d.isDirectory());
    } catch {
      // Not a folder, or gone.
      return false;
    }
  }

  /** The watcher stopped (for good, or while it subscribes anew). */
  stopped(): void {
    this.listening = false;
    this.failed();
  }

  reset(): void {
    this.pending.clear();
    this.incomplete = !this.listening;
  }

  async take(): Promise<ReadonlySet<string> | 'unknown'> {
    if (this.incomplete) return 'unknown';
    if (!(await this.barrier()) || this.incomplete) return 'unknown';
    const taken = this.pending;
    this.pending = new Set();
    return taken;
  }

  /** Resolves true once every change made before the call has been reported, false if that cannot be shown in time. */
  private async barrier(): Promise<boolean> {
    let done!: () => void;
    const reported = new Promise<void>((resolve) => (done = resolve));
    this.waiters.push(done);
    let timer: NodeJS.Timeout | undefined;
    try {
      const { mode } = await lstat(this.folder);
      await chmod(this.folder, mode & 0o7777);
      const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.options.barrierTimeoutMs ?? BARRIER_TIMEOUT_MS)));
      return await Promise.race([reported.then(() => true), timedOut]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
      this.waiters = this.waiters.filter((w) => w !== done);
    }
  }
}
