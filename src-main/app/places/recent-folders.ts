// The folders the person opened in the window, latest first, in `<data-dir>/recent-folders.json`
// (a JsonFileStore: an unreadable file is kept aside and told, each entry is checked on its
// own, two windows on one data folder merge their saves). A remote folder is kept as its
// `ssh://` URL next to the local paths (SPEC §13). Also what a typed folder path means and
// whether it can be opened, in words for the person. A removed worktree's folder is never
// offered again (SPEC §16): forgotten when it is removed, and not listed if it was kept.

import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { fieldsShape, JsonFileStore, type JsonFileProblem } from '../../core/config/json-file-store';
import { isSshFolder, sshTargetLabel } from '../../core/backends/remote/ssh-target';
import { folderLocationName, sshFolderLocation } from './folder-location';
import { ContractError, type RecentFolder } from '../contract';
import { isPathBelow, isPathInside } from '../../core/fs/path-inside';
import { isDirectory } from '../../core/fs/file-checks';

/** How many folders the list keeps. */
export const MAX_RECENT_FOLDERS = 12;

const entrySchema = z.object({ path: z.string().min(1), openedAt: z.string() });
const recentFileShape = fieldsShape({ folders: z.array(entrySchema).optional() });
type RecentFile = ReturnType<typeof recentFileShape.check>['value'];

export class RecentFolders {
  private readonly store: JsonFileStore<RecentFile>;
  /** Where worktrees live (`<data-dir>/worktrees`, as given and as its real path). */
  private readonly worktrees: string[];

  constructor(dataDir: string, options: { onProblem?: (problem: JsonFileProblem) => void } = {}) {
    this.worktrees = [join(dataDir, 'worktrees')];
    try {
      this.worktrees.push(realpathSync(this.worktrees[0]!));
    } catch {
      // No worktree made yet.
    }
    this.store = new JsonFileStore({
      path: join(dataDir, 'recent-folders.json'),
      shape: recentFileShape,
      defaultsText: 'no recent folders are listed until you open them again',
      ...(options.onProblem ? { onProblem: options.onProblem } : {}),
    });
  }

  /** Latest first; a local folder that is no longer there is listed as missing (a remote one is checked on connecting). */
  list(): RecentFolder[] {
    return (this.store.current().folders ?? []).flatMap(({ path, openedAt }): RecentFolder[] => {
      if (!isSshFolder(path)) {
        const missing = !isDirectory(path);
        // A worktree removed: nothing to go back to (its threads are in the folder it was made from).
        if (missing && this.isWorktree(path)) return [];
        return [{ path, name: folderLocationName({ kind: 'local', path }), openedAt, missing }];
      }
      try {
        const location = sshFolderLocation(path);
        return [{ path: location.url, name: folderLocationName(location), openedAt, missing: false, host: sshTargetLabel(location.target) }];
      } catch {
        // A URL this version cannot read (edited by hand): not offered.
        return [];
      }
    });
  }

  /** Puts `folder` first (once). Throws when the file could not be written. */
  remember(folder: string, now: Date = new Date()): void {
    this.store.update((current) => ({
      ...current,
      folders: [{ path: folder, openedAt: now.toISOString() }, ...(current.folders ?? []).filter((f) => f.path !== folder)].slice(0, MAX_RECENT_FOLDERS),
    }));
  }

  /** Drops `folder` and the folders inside it (a worktree removed). Throws when the file could not be written. */
  forget(folder: string): void {
    if (!(this.store.current().folders ?? []).some((f) => isPathInside(folder, f.path))) return;
    this.store.update((current) => ({ ...current, folders: (current.folders ?? []).filter((f) => !isPathInside(folder, f.path)) }));
  }

  close(): void {
    this.store.close();
  }

  private isWorktree(path: string): boolean {
    return this.worktrees.some((root) => isPathBelow(root, path));
  }
}

/** The folder a typed path names: `~` is the home folder, a relative path is taken from there. */
export function typedFolderPath(typed: string, home: string = homedir()): string {
  const text = typed.trim();
  if (text === '~') return resolve(home);
  if (text.startsWith('~/') || text.startsWith(`~\\`)) return resolve(home, text.slice(2));
  return isAbsolute(text) ? resolve(text) : resolve(home, text);
}

/** Throws a ContractError saying why `path` cannot be opened as the project folder. */
export function checkFolder(path: string): void {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ContractError(`There is no folder at ${path}.`, 'not_found');
    if (code === 'EACCES' || code === 'EPERM') throw new ContractError(`${path} cannot be opened: permission denied.`, 'failed');
    throw new ContractError(`${path} cannot be opened: ${err instanceof Error ? err.message : String(err)}`, 'failed');
  }
  if (!isDir) throw new ContractError(`${path} is a file, not a folder. Choose the folder that holds it.`, 'bad_request');
  try {
    accessSync(path, constants.R_OK | constants.X_OK);
  } catch {
    throw new ContractError(`${path} cannot be opened: permission denied.`, 'failed');
  }
}
