// Whether git, run in a folder, could find no repository at all: what lets a look for new
// commits skip git when there can be none. git's discovery (with run-git.ts's environment: no
// GIT_DIR, no ceiling) goes up from the folder to the root and stops at the first folder holding
// a `.git` (a folder, or a file pointing to one), or being a bare repository's own folder (HEAD,
// objects and refs). This says no only when none of the folders has any of that: a `.git` git
// would refuse (another user's, a broken pointer) still counts as a repository maybe there.

import { lstatSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const BARE_ENTRIES = ['HEAD', 'objects', 'refs'];

/** True when no folder from `folder` up to the root holds a `.git` or is a bare repository's: git there finds no repository. */
export function noRepositoryAt(folder: string): boolean {
  // An entry that cannot be looked at (no permission) may be there.
  const has = (dir: string, entry: string) => {
    try {
      return lstatSync(join(dir, entry), { throwIfNoEntry: false }) !== undefined;
    } catch {
      return true;
    }
  };
  for (let dir = resolve(folder); ; dir = dirname(dir)) {
    if (has(dir, '.git') || BARE_ENTRIES.every((entry) => has(dir, entry))) return false;
    if (dir === dirname(dir)) return true;
  }
}
