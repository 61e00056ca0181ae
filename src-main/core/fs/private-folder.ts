// A folder in a shared place (/tmp) that only this user can use: ours, no link, closed to
// others. Not tightened when open: what others could put in it meanwhile would stay.
import { lstatSync, mkdirSync } from 'node:fs';

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
