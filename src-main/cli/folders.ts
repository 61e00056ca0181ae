import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from './usage';

/** The project folder from --folder (default: the current directory); must be an existing folder. */
export function projectFolder(flag: string | undefined): string {
  const folder = resolve(flag ?? process.cwd());
  let isDir: boolean;
  try {
    isDir = statSync(folder).isDirectory();
  } catch {
    throw new UsageError(`folder not found: ${folder}`);
  }
  if (!isDir) throw new UsageError(`not a folder: ${folder}`);
  return folder;
}
