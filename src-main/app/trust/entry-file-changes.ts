// Whether a change the folder's watcher saw touches a file the folder's configuration runs
// (a hook's script, an unsandboxed server's script): the trust question and what loads follow.

import { join } from 'node:path';
import { entryFilesOf } from '../../core/trust/protected-entry-files';

/** `paths` are the watcher's virtual paths (`/tools/hook.sh`) in the folder (real path). */
export function touchesEntryFiles(folder: string, paths: ReadonlyArray<{ path: string }>): boolean {
  const files = entryFilesOf(folder);
  if (files.length === 0) return false;
  const changed = paths.map((p) => join(folder, p.path));
  return changed.some((path) => files.some((file) => file === path || file.startsWith(`${path}/`) || path.startsWith(`${file}/`)));
}
