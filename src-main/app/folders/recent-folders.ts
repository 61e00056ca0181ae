// The folders the person opened in the window, latest first, in `<data-dir>/recent-folders.json`
// (a JsonFileStore: an unreadable file is kept aside and told, each entry is checked on its
// own, two windows on one data folder merge their saves). A remote folder is kept as its
// `ssh://` URL next to the local paths (SPEC §13). Also what a typed folder path means and
// whether it can be opened, in words for the person.

import { accessSync, constants, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { fieldsShape, JsonFileStore, type JsonFileProblem } from '../../core/config/json-file-store';
import { isSshFolder, sshTargetLabel } from '../../core/backends/remote/ssh-target';
import { folderLocationName, sshFolderLocation } from './folder-location';
import { ContractError, type RecentFolder } from '../contract';

/** How many folders the list keeps. */
export const MAX_RECENT_FOLDERS = 12;

const entrySchema = z.object({ path: z.string().min(1), openedAt: z.string() });
const recentFileShape = fieldsShape({ folders: z.array(entrySchema).optional() });
type RecentFile = ReturnType<typeof recentFileShape.check>['value'];

export class RecentFolders {
  private readonly store: JsonFileStore<RecentFile>;

  constructor(dataDir: string, options: { onProblem?: (problem: JsonFileProblem) => void } = {}) {
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
      if (!isSshFolder(path)) return [{ path, name: folderLocationName({ kind: 'local', path }), openedAt, missing: !isDirectory(path) }];
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

  close(): void {
    this.store.close();
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

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
