// A folder in a shared place (/tmp) that only this user can use: ours, no link, closed to
// others. Not tightened when open: what others could put in it meanwhile would stay.
import { lstatSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Why `path` cannot be used as a private folder, or undefined when it can. Made 0700 when missing and `create`. */
export function privateFolderProblem(path: string, create: boolean): string | undefined {
  if (create) {
    try {
      mkdirSync(path, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return (err as Error).message;
    }
  }
  let st;
  try {
    st = lstatSync(path);
  } catch (err) {
    return (err as Error).message;
  }
  if (st.isSymbolicLink()) return 'it is a symbolic link';
  if (!st.isDirectory()) return 'it is not a folder';
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) return `it belongs to another user (uid ${st.uid})`;
  if ((st.mode & 0o077) !== 0) return `others can open it (mode ${(st.mode & 0o777).toString(8)})`;
  return undefined;
}

const chosenFolders = new Map<string, string>();

/**
 * This user's private folder `name` in `root`, the temp folder by default (made 0700 when
 * missing), the one chosen kept while it is still a folder and no link; `fallback()` when the
 * shared one cannot be used (someone else's, a link, open to others).
 */
export function sharedPrivateFolder(name: string, fallback: () => string, root = tmpdir()): string {
  const kept = chosenFolders.get(name);
  if (kept !== undefined && isFolderNotLink(kept)) return kept;
  const shared = join(root, name);
  const folder = privateFolderProblem(shared, true) === undefined ? shared : fallback();
  chosenFolders.set(name, folder);
  return folder;
}

function isFolderNotLink(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    return st.isDirectory() && !st.isSymbolicLink();
  } catch {
    return false;
  }
}
