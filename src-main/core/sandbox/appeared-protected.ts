// A protected path (the folder's own configuration) that did not exist when a sandboxed
// process started cannot be mounted read-only; one that appears is undone after the run, or
// while a server runs (live-guard.ts). What is undone is the entry in the folder that made
// it appear — the path itself, or the first link on the way to it — never what a link leads
// to: a process that makes `.agents` a link to the person's `~/.claude` makes
// `.agents/skills` "appear", and acting on that path would move or delete the person's own
// skills. Every operation here is a no-follow one (fs/no-follow.ts), on a path reached
// without a link from the folder: the guard is never a way out of it.
import { cpSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { inParent, lstatAt, removeTreeAt } from '../fs/no-follow';
import { errnoOf } from '../fs/errno';
import { isPathBelow } from '../fs/path-inside';

/**
 * The folder-relative entry that makes `path` (absolute, inside `folder`) exist: the path
 * itself, or the first link among its parents. Undefined when nothing is there (a parent is
 * missing or is a plain file).
 */
export function appearedEntry(folder: string, path: string): string | undefined {
  if (!isPathBelow(folder, path)) return undefined;
  const parts = relative(folder, path).split(sep);
  for (let i = 0; i < parts.length; i++) {
    const rel = parts.slice(0, i + 1).join('/');
    let st;
    try {
      st = lstatAt(folder, rel);
    } catch {
      // A link swapped in on the way: looked at again on the next check.
      return undefined;
    }
    if (st === undefined) return undefined;
    if (st.isSymbolicLink() || i === parts.length - 1) return rel;
    if (!st.isDirectory()) return undefined;
  }
  return undefined;
}

/** Removes the entry (a folder with what is in it, or a link itself), never following a link. */
export function removeAppeared(folder: string, rel: string): void {
  removeTreeAt(folder, rel);
  if (lstatAt(folder, rel) !== undefined) throw Object.assign(new Error(`${rel}: still there`), { code: 'EPERM' });
}

/** Moves the entry to `kept` (outside the folder; a link moves as the link), never following a link on the way to it. */
export function moveAppeared(folder: string, rel: string, kept: string): void {
  mkdirSync(dirname(kept), { recursive: true, mode: 0o700 });
  try {
    inParent(folder, rel, { verify: true }, (at) => renameSync(at, kept));
  } catch (err) {
    if (errnoOf(err) !== 'EXDEV') throw err;
    // Another file system: copied (links as links), then removed.
    inParent(folder, rel, {}, (at) => cpSync(at, kept, { recursive: true, verbatimSymlinks: true, dereference: false }));
    removeTreeAt(folder, rel);
  }
  if (lstatAt(folder, rel) !== undefined) throw Object.assign(new Error(`${rel}: still there`), { code: 'EPERM' });
}

/** The files (else folders) under the entry, for the blocked line; a link is named itself, never listed through. */
export function madeAt(folder: string, rel: string, limit = 8): string[] {
  const top = join(folder, rel);
  const files: string[] = [];
  const folders: string[] = [];
  const visit = (dir: string): void => {
    let names;
    try {
      names = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of names) {
      if (files.length >= limit) return;
      const child = join(dir, d.name);
      // A Dirent of a link is not a directory: nothing is listed through it.
      if (d.isDirectory()) {
        folders.push(child);
        visit(child);
      } else files.push(child);
    }
  };
  let st;
  try {
    st = lstatAt(folder, rel);
  } catch {
    return [top];
  }
  if (st?.isDirectory()) visit(top);
  return files.length > 0 ? files : folders.length > 0 ? folders.slice(0, limit) : [top];
}
