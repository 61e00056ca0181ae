// The file tree's pure parts: folder keys, the visible rows for the tree, and which
// folders to list again when 'files.changed' reports changes.

import type { FileEntry } from '../../../src-main/app/contract';

export interface Listing {
  entries?: FileEntry[];
  error?: string;
  loading?: boolean;
}

export type Listings = Readonly<Record<string, Listing>>;

export interface TreeRow {
  entry: FileEntry;
  /** The entry's path without a trailing '/' (folder key for folders). */
  key: string;
  name: string;
  /** 1-based depth, for aria-level. */
  level: number;
  posinset: number;
  setsize: number;
  expanded: boolean;
  loading: boolean;
}

export type FileChange = { path: string; kind: 'add' | 'change' | 'unlink' | 'addDir' | 'unlinkDir' };

/** A folder's key: its path without a trailing '/', '/' for the root. */
export function dirKey(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

export function parentKey(path: string): string {
  const key = dirKey(path);
  const i = key.lastIndexOf('/');
  return i <= 0 ? '/' : key.slice(0, i);
}

export function nameOf(path: string): string {
  const key = dirKey(path);
  return key === '/' ? '/' : key.slice(key.lastIndexOf('/') + 1);
}

function isUnder(dir: string, path: string): boolean {
  return dir === '/' ? true : path === dir || path.startsWith(`${dir}/`);
}

/** The rows the tree shows: the root's entries, and the entries of every expanded folder below. */
export function visibleRows(listings: Listings, expanded: ReadonlySet<string>, root = '/'): TreeRow[] {
  const rows: TreeRow[] = [];
  const walk = (dir: string, level: number): void => {
    const entries = listings[dir]?.entries ?? [];
    entries.forEach((entry, i) => {
      const key = dirKey(entry.path);
      const open = entry.isDir && expanded.has(key);
      rows.push({
        entry,
        key,
        name: nameOf(entry.path),
        level,
        posinset: i + 1,
        setsize: entries.length,
        expanded: open,
        loading: open && listings[key]?.entries === undefined,
      });
      if (open) walk(key, level + 1);
    });
  };
  walk(root, 1);
  return rows;
}

/** Loaded folders to list again, and cached folders to forget (deleted ones). */
export function foldersToRefresh(changes: readonly FileChange[], loaded: Iterable<string>): { refresh: string[]; drop: string[] } {
  const loadedSet = new Set(loaded);
  const refresh = new Set<string>();
  const drop = new Set<string>();
  for (const change of changes) {
    const key = dirKey(change.path);
    const parent = parentKey(key);
    if (loadedSet.has(parent)) refresh.add(parent);
    else if (change.kind === 'add' || change.kind === 'addDir') {
      // Something new below a folder the tree has not listed: that folder may be new too,
      // so the nearest listed ancestor is listed again.
      let dir = parent;
      while (dir !== '/' && !loadedSet.has(dir)) dir = parentKey(dir);
      if (loadedSet.has(dir)) refresh.add(dir);
    }
    // The watcher cannot tell a deleted folder from a deleted file: a listed folder that was
    // unlinked is gone either way.
    if (change.kind === 'unlinkDir' || (change.kind === 'unlink' && loadedSet.has(key))) {
      for (const dir of loadedSet) if (dir !== '/' && isUnder(key, dir)) drop.add(dir);
    }
  }
  for (const dir of drop) refresh.delete(dir);
  return { refresh: [...refresh].sort(), drop: [...drop].sort() };
}

/** Sorts a listing for display: folders first, then files, each by name. */
export function sortEntries(entries: readonly FileEntry[]): FileEntry[] {
  return [...entries].sort((a, b) => {
    if (a.isDir !== b.isDir) return a.isDir ? -1 : 1;
    const na = nameOf(a.path).toLowerCase();
    const nb = nameOf(b.path).toLowerCase();
    return na < nb ? -1 : na > nb ? 1 : 0;
  });
}

/** How a file the agent changed in this thread is marked in the tree: `A` added, `M` modified. */
export type ChangeMark = 'added' | 'modified';

/**
 * Files this thread's agent wrote or edited (successful write_file / edit_file calls), by
 * virtual path: added when its first change made it (the call's `change.created`).
 */
export function agentChangedPaths(items: ReadonlyArray<{ kind: string; name?: string; args?: unknown; output?: string; isError?: boolean; change?: { created: boolean } }>): Map<string, ChangeMark> {
  const paths = new Map<string, ChangeMark>();
  for (const item of items) {
    if (item.kind !== 'tool' || (item.name !== 'write_file' && item.name !== 'edit_file')) continue;
    if (item.output === undefined || item.isError || item.output.startsWith('Error')) continue;
    const path = (item.args as { file_path?: unknown } | null)?.file_path;
    if (typeof path !== 'string' || path.trim() === '') continue;
    const key = dirKey(path.replaceAll('\\', '/').replace(/\/{2,}/g, '/'));
    if (!paths.has(key)) paths.set(key, item.change?.created === true ? 'added' : 'modified');
  }
  return paths;
}

/** Per folder (every ancestor, not the root), how many of `paths` lie inside it: a folder holding changes is marked too. */
export function folderCounts(paths: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const path of paths) {
    for (let folder = parentKey(path); folder !== '/'; folder = parentKey(folder)) counts.set(folder, (counts.get(folder) ?? 0) + 1);
  }
  return counts;
}

/**
 * The marks the tree shows: what the thread's checkpoints say (every backend, commands'
 * changes too, net of restores), over what the calls said while checkpoints catch up.
 */
export function changeMarks(fromCalls: ReadonlyMap<string, ChangeMark> | undefined, recorded: ReadonlyArray<{ path: string; status: string }> | undefined): Map<string, ChangeMark> {
  const marks = new Map(fromCalls ?? []);
  for (const file of recorded ?? []) {
    if (file.status === 'added' || file.status === 'modified') marks.set(dirKey(file.path), file.status);
  }
  return marks;
}
