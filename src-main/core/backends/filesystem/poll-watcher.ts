// Follows changes in a folder that has no local file-system watcher (a remote folder, SPEC
// §13) by listing it through its Backend and comparing listings: an entry that appeared,
// went, or whose size or modification time changed. Lazy, as the file tree is: only the
// folders it was asked to watch (the ones the tree has open) are listed, and a tick lists at
// most `maxListsPerTick` of them, taking turns, so a tree with many open folders costs the
// same per tick (each folder is then seen every few ticks). The first listing of a folder is
// its baseline: nothing is reported for it. Changes are told as FolderWatcher tells them
// (app/workspace/folder-watcher.ts), virtual paths with the kinds the tree takes.

import type { Backend, FileInfo } from '../protocol';

export type PolledChangeKind = 'add' | 'change' | 'unlink' | 'addDir' | 'unlinkDir';
export interface PolledChange {
  path: string;
  kind: PolledChangeKind;
}

export interface PollWatcherOptions {
  backend: Backend;
  onChanges: (changes: PolledChange[]) => void;
  /** A listing of the root failed (the connection is lost, say); told once until a listing works again. */
  onError?: (message: string) => void;
  /** Between the end of one tick and the start of the next (default 2000 ms). */
  intervalMs?: number;
  /** Folders listed per tick at most (default 8). */
  maxListsPerTick?: number;
  /** Names whose folders are never listed and whose changes are not told (e.g. `.git`, `node_modules`). */
  ignoredNames?: readonly string[];
}

type EntryState = { isDir: boolean; size: number | undefined; modifiedAt: string | undefined };
type Listing = Map<string, EntryState>;

export class PollWatcher {
  /** Watched folders in the order they take turns; null: no baseline yet. */
  private readonly folders = new Map<string, Listing | null>();
  private cursor = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private closed = false;
  private failing = false;
  private readonly intervalMs: number;
  private readonly maxListsPerTick: number;
  private readonly ignored: ReadonlySet<string>;

  constructor(private readonly options: PollWatcherOptions) {
    this.intervalMs = options.intervalMs ?? 2000;
    this.maxListsPerTick = Math.max(1, options.maxListsPerTick ?? 8);
    this.ignored = new Set(options.ignoredNames ?? []);
  }

  /** Follows `dir` (a virtual folder path); `known` (the tree's own listing of it) is taken as its baseline. */
  watch(dir: string, known?: FileInfo[]): void {
    const path = folderPath(dir);
    if (this.isIgnored(path)) return;
    if (this.folders.has(path) && known === undefined) return;
    this.folders.set(path, known === undefined ? null : listingOf(known));
  }

  /** Stops following `dir` (the tree closed it); its subfolders stay as they are. */
  unwatch(dir: string): void {
    this.folders.delete(folderPath(dir));
  }

  /** The folders followed now. */
  watched(): string[] {
    return [...this.folders.keys()];
  }

  /** Ticks every intervalMs until close(). */
  start(): void {
    if (this.closed || this.timer !== undefined) return;
    const loop = (): void => {
      this.timer = setTimeout(() => {
        void this.tick().finally(() => {
          if (!this.closed) loop();
        });
      }, this.intervalMs);
      this.timer.unref?.();
    };
    loop();
  }

  /** One round: folders without a baseline first, then the others in turn, at most maxListsPerTick; the changes told at once. */
  tick(): Promise<void> {
    this.running ??= this.round().finally(() => (this.running = null));
    return this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.running;
    this.folders.clear();
  }

  private async round(): Promise<void> {
    const due = this.dueFolders();
    const changes: PolledChange[] = [];
    for (const dir of due) {
      if (this.closed) return;
      const result = await this.options.backend.ls(dir);
      if (!this.folders.has(dir)) continue; // unwatched meanwhile
      if (result.error !== undefined || result.entries === undefined) {
        if (dir === '/') this.tellError(result.error ?? 'the folder could not be listed');
        // A folder gone is told by its parent's listing; it is no longer followed.
        else this.folders.delete(dir);
        continue;
      }
      if (dir === '/') this.failing = false;
      const next = listingOf(result.entries);
      const previous = this.folders.get(dir);
      this.folders.set(dir, next);
      if (previous !== null && previous !== undefined) changes.push(...this.diff(dir, previous, next));
    }
    if (changes.length > 0 && !this.closed) this.options.onChanges(changes);
  }

  private dueFolders(): string[] {
    const all = [...this.folders.keys()];
    const fresh = all.filter((dir) => this.folders.get(dir) === null);
    const due = fresh.slice(0, this.maxListsPerTick);
    const known = all.filter((dir) => this.folders.get(dir) !== null);
    const turns = Math.min(known.length, this.maxListsPerTick - due.length);
    for (let i = 0; i < turns; i++) due.push(known[(this.cursor + i) % known.length]!);
    if (known.length > 0) this.cursor = (this.cursor + turns) % known.length;
    return due;
  }

  private diff(dir: string, before: Listing, after: Listing): PolledChange[] {
    const changes: PolledChange[] = [];
    const at = (name: string) => (dir === '/' ? `/${name}` : `${dir}/${name}`);
    for (const [name, old] of before) {
      if (this.ignored.has(name)) continue;
      const now = after.get(name);
      if (now === undefined) changes.push({ path: at(name), kind: old.isDir ? 'unlinkDir' : 'unlink' });
      else if (now.isDir !== old.isDir) changes.push({ path: at(name), kind: old.isDir ? 'unlinkDir' : 'unlink' }, { path: at(name), kind: now.isDir ? 'addDir' : 'add' });
      else if (!now.isDir && (now.size !== old.size || now.modifiedAt !== old.modifiedAt)) changes.push({ path: at(name), kind: 'change' });
    }
    for (const [name, now] of after) {
      if (!this.ignored.has(name) && !before.has(name)) changes.push({ path: at(name), kind: now.isDir ? 'addDir' : 'add' });
    }
    // A folder that went or became a file is no longer followed, nor anything below it.
    for (const change of changes) {
      if (change.kind === 'unlinkDir') for (const watched of [...this.folders.keys()]) if (watched === change.path || watched.startsWith(`${change.path}/`)) this.folders.delete(watched);
    }
    return changes;
  }

  private tellError(message: string): void {
    if (this.failing) return;
    this.failing = true;
    this.options.onError?.(message);
  }

  private isIgnored(path: string): boolean {
    return path.split('/').some((part) => this.ignored.has(part));
  }
}

/** `/a/b/` and `a/b` as `/a/b`; the root as `/`. */
function folderPath(dir: string): string {
  const parts = dir.split('/').filter((part) => part !== '');
  return `/${parts.join('/')}`;
}

function listingOf(entries: FileInfo[]): Listing {
  const listing: Listing = new Map();
  for (const entry of entries) {
    const isDir = entry.isDir === true || entry.path.endsWith('/');
    const name = entry.path.split('/').filter((part) => part !== '').at(-1);
    if (name === undefined) continue;
    listing.set(name, { isDir, size: entry.size, modifiedAt: entry.modifiedAt });
  }
  return listing;
}
