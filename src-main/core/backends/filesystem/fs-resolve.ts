// Maps virtual paths to real paths under a root folder and refuses anything that lands
// outside it once symlinks are resolved (SPEC §1). Errors carry only virtual paths.

import fsp from 'node:fs/promises';
import fs from 'node:fs';
import path from 'node:path';
import { errnoOf } from '../../fs/errno';
import { isPathInside } from '../../fs/path-inside';
import { messages } from '../messages';
import type { LinkTarget } from '../protocol';

export type Resolved = { real: string; exists: boolean } | { error: string };

/** `O_NOFOLLOW` where the platform has it, else 0. */
export const O_NOFOLLOW: number = fs.constants.O_NOFOLLOW ?? 0;
/** Keeps an open of a FIFO from blocking; harmless for regular files. */
export const O_NONBLOCK: number = fs.constants.O_NONBLOCK ?? 0;
export const READ_FLAGS = fs.constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK;

/** The real path of a normalised virtual path (`/` = root), without touching the disk. */
export function lexicalReal(root: string, virtualPath: string): string {
  if (virtualPath === '/') return root;
  return path.join(root, ...virtualPath.slice(1).split('/'));
}

/** The virtual path of a real path inside `root`. */
export function virtualOf(root: string, real: string): string {
  if (real === root) return '/';
  const rel = real.slice(root.endsWith(path.sep) ? root.length : root.length + 1);
  return '/' + (path.sep === '/' ? rel : rel.split(path.sep).join('/'));
}

const MISSING = new Set(['ENOENT', 'ENOTDIR']);

/**
 * Resolves `virtualPath` (already normalised) under `root` with symlinks followed. A path
 * that does not exist yet resolves through the real path of its deepest existing parent.
 * Anything that lands outside `root` is refused with messages.outsideRoot(virtualPath).
 */
export async function resolveInside(root: string, virtualPath: string): Promise<Resolved> {
  const outside = { error: messages.outsideRoot(virtualPath) };
  const candidate = lexicalReal(root, virtualPath);
  try {
    const real = await fsp.realpath(candidate);
    return isPathInside(root, real) ? { real, exists: true } : outside;
  } catch (err) {
    const code = errnoOf(err);
    if (code === 'ELOOP') return outside;
    if (!MISSING.has(code)) return { error: accessError(code, virtualPath) };
  }
  const parts = virtualPath.slice(1).split('/');
  for (let keep = parts.length - 1; keep >= 0; keep--) {
    let ancestor: string;
    try {
      ancestor = await fsp.realpath(path.join(root, ...parts.slice(0, keep)));
    } catch (err) {
      const code = errnoOf(err);
      if (code === 'ELOOP') return outside;
      if (MISSING.has(code)) continue;
      return { error: accessError(code, virtualPath) };
    }
    if (!isPathInside(root, ancestor)) return outside;
    // The first missing component may still be a dangling symlink, whose target we cannot vouch for.
    const next = path.join(ancestor, parts[keep]!);
    try {
      const st = await fsp.lstat(next);
      if (st.isSymbolicLink()) return outside;
    } catch {
      // Missing, as expected.
    }
    return { real: path.join(ancestor, ...parts.slice(keep)), exists: false };
  }
  // Not even the root exists.
  return { error: messages.pathNotFound(virtualPath) };
}

/** A message for an unexpected errno; never includes a real path. */
export function accessError(code: string, virtualPath: string): string {
  if (code === 'EACCES' || code === 'EPERM') return messages.permissionDenied(virtualPath);
  if (code === 'EISDIR') return messages.isDirectory(virtualPath);
  if (code === 'ELOOP') return messages.outsideRoot(virtualPath);
  return `Cannot access '${virtualPath}' (${code})`;
}


const MAX_LINK_HOPS = 40;

/**
 * The target of `virtualPath` with symlinks followed component by component, including a
 * dangling final link (resolved to where it would point) and the missing rest of a new
 * file's path. Null when it leads where the path itself names (no link involved) or
 * cannot be followed (a loop); `outside` carries the real path, for the person only.
 */
export async function linkTargetOf(root: string, virtualPath: string): Promise<LinkTarget | null> {
  const real = await followLinks(root, virtualPath === '/' ? [] : virtualPath.slice(1).split('/'));
  if (real === null) return null;
  if (!isPathInside(root, real)) return { outside: real };
  const virtual = virtualOf(root, real);
  return virtual === virtualPath ? null : { virtual };
}

async function followLinks(root: string, parts: string[]): Promise<string | null> {
  const pending = [...parts];
  let current = root;
  let hops = 0;
  while (pending.length > 0) {
    const name = pending.shift()!;
    if (name === '' || name === '.') continue;
    if (name === '..') {
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, name);
    let link: string | null = null;
    try {
      const st = await fsp.lstat(next);
      if (st.isSymbolicLink()) link = await fsp.readlink(next);
    } catch (err) {
      if (!MISSING.has(errnoOf(err))) return null;
      // The rest does not exist yet: it is created where the path names it.
      return path.resolve(next, ...pending);
    }
    if (link === null) {
      current = next;
      continue;
    }
    if (++hops > MAX_LINK_HOPS) return null;
    if (path.isAbsolute(link)) current = path.parse(link).root;
    pending.unshift(...link.split(/[\\/]/));
  }
  return current;
}
