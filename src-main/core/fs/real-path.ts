import { realpathSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';

/** The real path of `path`, or `path` resolved when it has none (it does not exist). */
export function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** The real path of `path`, or of its deepest existing parent with the rest appended. */
export function realPathOf(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    const parent = dirname(absolute);
    if (parent === absolute) return absolute;
    return join(realPathOf(parent), absolute.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
  }
}
