// Runs a sandboxed server's git-surface check (sandbox/live-guard.ts) while it runs: at once
// on any change in the folder that could make or move a repository (a path made, anything
// named like git's files), and every few seconds whatever was seen, since a recursive watch
// has blind spots — @parcel/watcher on Linux watches a folder made inside a new folder
// only once it is subscribed again (so a made folder renews the subscription, and the
// check runs after it), and the heavy dependency folders' insides are not watched at all.
//
// It also removes a link made in the folder that leads into the server's own writable places
// outside it (its temp folder): the surface check does not follow links, and a person who
// enters such a folder would run git on a repository the server controls.
import watcher, { type AsyncSubscription, type Event } from '@parcel/watcher';
import { lstat, readdir, readlink, unlink } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { HEAVY_FOLDERS } from '../fs/heavy-folders';
import { GIT_FOLDER_LIVE_NAMES, GIT_LIVE_NAMES } from '../git/git-reads';
import { isPathInside } from '../fs/path-inside';
import { realPathOf } from '../fs/real-path';
import { messageOf } from '../fs/errno';

/** Between checks made whatever the watch saw (what it cannot see is found by then). */
const DEFAULT_INTERVAL_MS = 2_000;
const IGNORED = [...HEAVY_FOLDERS].flatMap((dir) => [`${dir}/*/**`, `**/${dir}/*/**`]);
/**
 * inotify on Linux, never watchman: a repository's own `.watchmanconfig` could hide paths from
 * it, and asking for watchman first starts a shell before every sandboxed process.
 */
const WATCH = { ignore: IGNORED, ...(process.platform === 'linux' ? { backend: 'inotify' as const } : {}) };
/** Entries looked at in a folder made all at once (a tree moved in), for links. */
const MAX_SCANNED = 10_000;

export interface GitGuardOptions {
  /** The project folder (real path). */
  folder: string;
  /** The check; it reports what it found itself. */
  check: () => Promise<unknown>;
  /** A line for the process's log: what the guard undid itself, or why it could not do its part. */
  report: (line: string) => void;
  /** Real paths outside the folder that the process may write (its temp folder): a link into them is removed. */
  writableOutside?: readonly string[];
  intervalMs?: number;
}

export interface GitGuard {
  /** Stops watching; a check under way is waited for. */
  close(): Promise<void>;
}

export async function startGitGuard(options: GitGuardOptions): Promise<GitGuard> {
  const guard = new Guard(options);
  await guard.subscribe();
  return guard;
}

class Guard implements GitGuard {
  private subscription: AsyncSubscription | null = null;
  private closed = false;
  private checking: Promise<void> | undefined;
  private again = false;
  private renewing: Promise<void> | undefined;
  private renewAgain = false;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly options: GitGuardOptions) {
    this.timer = setInterval(() => this.check(), options.intervalMs ?? DEFAULT_INTERVAL_MS);
    this.timer.unref();
  }

  async subscribe(): Promise<void> {
    try {
      const subscription = await watcher.subscribe(this.options.folder, (err, events) => this.onEvents(err, events), WATCH);
      if (this.closed) await unsubscribe(subscription);
      else this.subscription = subscription;
    } catch (err) {
      this.options.report(`deepdesk: the folder cannot be watched (${messageOf(err)}); git's files are checked every ${(this.options.intervalMs ?? DEFAULT_INTERVAL_MS) / 1000} s instead`);
    }
  }

  private onEvents(err: Error | null, events: Event[]): void {
    if (this.closed) return;
    // An error (an overflowed queue among them) may have lost events: watch anew, then look.
    if (err) {
      this.renew();
      return;
    }
    if (!events.some((e) => this.relevant(e))) return;
    this.check();
    void this.looked(events).then((madeFolder) => {
      if (madeFolder) this.renew();
    });
  }

  private relevant(event: Event): boolean {
    const parts = relative(this.options.folder, event.path).split(sep);
    const inGit = parts.indexOf('.git');
    if (inGit >= 0) return inGit === parts.length - 1 || parts.slice(inGit + 1).some((part) => GIT_FOLDER_LIVE_NAMES.has(part));
    return event.type === 'create' || parts.some((part) => GIT_LIVE_NAMES.has(part));
  }

  /** Looks at what was made: links leading out are removed; says whether a folder was made (the watch may not see inside it). */
  private async looked(events: Event[]): Promise<boolean> {
    let madeFolder = false;
    for (const event of events) {
      if (event.type !== 'create') continue;
      const st = await lstat(event.path).catch(() => undefined);
      if (st?.isSymbolicLink()) await this.refuseLink(event.path);
      else if (st?.isDirectory()) {
        madeFolder = true;
        await this.refuseLinksIn(event.path);
      }
    }
    return madeFolder;
  }

  private async refuseLinksIn(dir: string): Promise<void> {
    const queue = [dir];
    for (let seen = 0, next = queue.pop(); next !== undefined && seen < MAX_SCANNED; next = queue.pop()) {
      const names = await readdir(next, { withFileTypes: true }).catch(() => []);
      seen += names.length;
      for (const d of names) {
        if (d.isSymbolicLink()) await this.refuseLink(join(next, d.name));
        else if (d.isDirectory() && !HEAVY_FOLDERS.has(d.name)) queue.push(join(next, d.name));
      }
    }
  }

  private async refuseLink(path: string): Promise<void> {
    const outside = this.options.writableOutside ?? [];
    if (outside.length === 0) return;
    // Where it leads even before that exists (the target may be made later, where no watch looks).
    const target = await readlink(path).then(
      (to) => realPathOf(resolve(dirname(path), to)),
      () => undefined,
    );
    if (target === undefined || !outside.some((root) => isPathInside(root, target))) return;
    try {
      await unlink(path);
      this.options.report(`deepdesk: removed ${relative(this.options.folder, path)}, a link into the server's own temp folder`);
    } catch (err) {
      this.options.report(`deepdesk: could not remove ${relative(this.options.folder, path)}, a link into the server's own temp folder (${messageOf(err)})`);
    }
  }

  /** A fresh subscription (it watches the folders the old one missed), then a check for what changed in between. */
  private renew(): void {
    if (this.renewing) {
      this.renewAgain = true;
      return;
    }
    this.renewing = (async () => {
      do {
        this.renewAgain = false;
        const old = this.subscription;
        this.subscription = null;
        if (old) await unsubscribe(old);
        if (this.closed) return;
        await this.subscribe();
        this.check();
      } while (this.renewAgain && !this.closed);
    })().finally(() => (this.renewing = undefined));
  }

  /** One check at a time; asked for while one runs, one more follows it. */
  private check(): void {
    if (this.closed) return;
    if (this.checking) {
      this.again = true;
      return;
    }
    this.checking = (async () => {
      do {
        this.again = false;
        try {
          await this.options.check();
        } catch (err) {
          this.options.report(`deepdesk: git's files could not be checked (${messageOf(err)})`);
        }
      } while (this.again && !this.closed);
    })().finally(() => (this.checking = undefined));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.renewing;
    const subscription = this.subscription;
    this.subscription = null;
    if (subscription) await unsubscribe(subscription);
    await this.checking;
  }
}

/** Stops a @parcel/watcher subscription; one whose folder is gone is already stopped. */
export async function unsubscribe(subscription: AsyncSubscription): Promise<void> {
  try {
    await subscription.unsubscribe();
  } catch {
    // A watched folder that was removed or moved away cannot be unwatched (EINVAL): it is gone anyway.
  }
}
