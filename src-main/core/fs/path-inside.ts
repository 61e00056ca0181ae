// The one answer to "is this path inside that root". A path is inside its root when it is
// the root itself or lies below it; `/a/bc` is not inside `/a/b`.
import path from 'node:path';

/** For absolute paths of this platform, compared as given (resolve links first: see realPathOf). */
export function isPathInside(root: string, candidate: string): boolean {
  return insideWith(path, root, candidate);
}

/** Strictly below `root`: inside it and not the root itself. */
export function isPathBelow(root: string, candidate: string): boolean {
  return isPathInside(root, candidate) && path.relative(root, candidate) !== '';
}

/** For `/`-separated paths that are already normalised: virtual paths and folder-relative ones. */
export function isSlashPathInside(root: string, candidate: string): boolean {
  const base = root.length > 1 ? root.replace(/\/+$/, '') : root;
  return candidate === base || candidate.startsWith(base.endsWith('/') ? base : base + '/');
}

/** The same rule with a given path module (tests check Windows paths with `path.win32`). */
export function insideWith(api: path.PlatformPath, root: string, candidate: string): boolean {
  const rel = api.relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith('..' + api.sep) && !api.isAbsolute(rel));
}
