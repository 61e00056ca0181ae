// `--folder`, read and checked: no backend is opened, so a thin client (`deepdesk run`)
// loads only this.

import { statSync } from 'node:fs';
import { FolderLocationError, parseFolderLocation, type FolderLocation } from '../app/places/folder-location';
import { UsageError } from './usage';

/**
 * The project folder from --folder (default: the current directory): an existing local
 * folder, or `ssh://[USER@]HOST[:PORT]/ABS/PATH` (checked on the remote when it is opened).
 * A malformed URL or a missing local folder is bad usage.
 */
export function folderLocation(flag: string | undefined): FolderLocation {
  let location: FolderLocation;
  try {
    location = parseFolderLocation(flag ?? process.cwd());
  } catch (err) {
    if (err instanceof FolderLocationError) throw new UsageError(`--folder: ${err.message}`);
    throw err;
  }
  if (location.kind === 'local') checkLocalFolder(location.path);
  return location;
}

/** The project folder from --folder for the commands that work on a local folder only (trust, skills, mcp). */
export function projectFolder(flag: string | undefined, command?: string): string {
  const location = folderLocation(flag);
  if (location.kind === 'ssh') throw new UsageError(`${command ?? 'this command'} works on a local folder only, not ${location.url}`);
  return location.path;
}

function checkLocalFolder(folder: string): void {
  let isDir: boolean;
  try {
    isDir = statSync(folder).isDirectory();
  } catch {
    throw new UsageError(`folder not found: ${folder}`);
  }
  if (!isDir) throw new UsageError(`not a folder: ${folder}`);
}
