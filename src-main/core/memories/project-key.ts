// Which project a folder's memories belong to (SPEC §25): a git repository's main worktree
// root (so a linked worktree, a candidate and the folder share one), else the folder's real
// path. Read from the `.git` pointers without running git; an SSH folder is its URL.

import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { realOrResolved } from '../fs/real-path';
import { readSmall } from '../git/config-files';

export function projectKeyOf(folder: string): string {
  if (/^ssh:\/\//i.test(folder)) return folder;
  const real = realOrResolved(folder);
  for (let dir = real; ; dir = dirname(dir)) {
    const root = repositoryRoot(dir);
    if (root !== undefined) return root;
    if (dirname(dir) === dir) return real;
  }
}

/** The main worktree root of the repository whose `.git` is in `dir`, or undefined. */
function repositoryRoot(dir: string): string | undefined {
  const dotGit = join(dir, '.git');
  let stats;
  try {
    stats = statSync(dotGit);
  } catch {
    return undefined;
  }
  if (stats.isDirectory()) return dir;
  if (!stats.isFile()) return undefined;
  const pointer = readSmall(dotGit)?.trim();
  if (pointer === undefined || !pointer.startsWith('gitdir: ')) return dir;
  const gitDir = resolve(dir, pointer.slice('gitdir: '.length));
  const common = readSmall(join(gitDir, 'commondir'))?.trim();
  const commonDir = common !== undefined && common !== '' ? resolve(gitDir, common) : gitDir;
  const root = basename(commonDir) === '.git' ? dirname(commonDir) : commonDir;
  return existsSync(root) ? realOrResolved(root) : root;
}
