// Follows the folders the file tree has listed, each on its own (one non-recursive watch a
// folder, not a walk): what the tree shows stays live while the whole-folder subscription
// (folder-watcher.ts) is still walking a big folder, and for good when that subscription
// cannot be had (the system's limit of watched folders is reached). The root is always
// among them, so a new top-level file is seen at once, whatever the folder's size.

import fs from 'node:fs';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { toVirtual, UNWATCHED_DIRS, type FileChange } from './folder-watcher';

export interface ListedFoldersWatcherOptions {
  folder: string;
  onChanges: (changes: FileChange[]) => void;
}

export class ListedFoldersWatcher {
  private readonly watches = new Map<string, fs.FSWatcher>();
  private closed = false;

  constructor(private readonly options: ListedFoldersWatcherOptions) {}

  /** Follows virtual folder `dir` ('/' is the root); a folder that cannot be watched (gone, over the limit) is left. */
  watch(dir: string): void {
    const parts = dir.split('/').filter(Boolean);
    const key = `/${parts.join('/')}`;
    if (this.closed || this.watches.has(key) || parts.some((part) => UNWATCHED_DIRS.includes(part))) return;
    const real = path.join(this.options.folder, ...parts);
    try {
      const watch = fs.watch(real, { persistent: false }, (type, name) => {
        // Whether to pass it on is decided as it arrives: closing while its lstat runs must
        // not drop a change the whole-folder subscription may have begun too late to see.
        if (name !== null && !this.closed) void this.report(path.join(real, name.toString()), type);
      });
      watch.on('error', () => this.unwatch(key));
      this.watches.set(key, watch);
    } catch {
      // Gone, not a folder, or no watch left: the tree still lists it when opened.
    }
  }

  private unwatch(key: string): void {
    this.watches.get(key)?.close();
    this.watches.delete(key);
  }

  private async report(real: string, type: fs.WatchEventType): Promise<void> {
    const virtual = toVirtual(this.options.folder, real);
    if (virtual === null) return;
    // fs.watch tells only "renamed" or "changed": what is there now says which.
    const kind = await lstat(real).then(
      (s): FileChange['kind'] => (s.isDirectory() ? 'addDir' : type === 'change' ? 'change' : 'add'),
      (): FileChange['kind'] => 'unlink',
    );
    if (kind === 'unlink') this.unwatch(virtual);
    this.options.onChanges([{ path: virtual, kind }]);
  }

  close(): void {
    this.closed = true;
    for (const watch of this.watches.values()) watch.close();
    this.watches.clear();
  }
}
