// The other names a file has inside a folder (SPEC §23 (5): a file is judged on every name that
// resolves to it): each symlink in the folder that leads to it, or to a folder holding it,
// named as the path through that link. The folder's `.git` is not walked.
import fs from 'node:fs';
import path from 'node:path';
import { isPathInside } from './path-inside';

/** For each of `rels` (relative to `root`), the relative paths that lead to it through a link. */
export function linksInto(root: string, rels: readonly string[]): Map<string, string[]> {
  const found = new Map<string, string[]>();
  if (rels.length === 0) return found;
  const realRoot = fs.realpathSync(root);
  const walk = (dir: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const rel = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory() && rel !== '.git') walk(rel);
      if (!entry.isSymbolicLink()) continue;
      let target: string;
      try {
        target = fs.realpathSync(path.join(root, rel));
      } catch {
        continue;
      }
      if (!isPathInside(realRoot, target)) continue;
      const to = path.relative(realRoot, target).split(path.sep).join('/');
      for (const r of rels) {
        if (r === to) found.set(r, [...(found.get(r) ?? []), rel]);
        else if (to === '' || r.startsWith(`${to}/`)) found.set(r, [...(found.get(r) ?? []), `${rel}/${to === '' ? r : r.slice(to.length + 1)}`]);
      }
    }
  };
  walk('');
  return found;
}
