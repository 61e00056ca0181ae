// Virtual path rules shared by every tool and backend (SPEC §1).

export type PathCheck = { ok: true; path: string } | { ok: false; error: string };

const WINDOWS_DRIVE = /^[A-Za-z]:[\\/]/;

/**
 * Validates and normalises a virtual path: `\` becomes `/`, `//` and `/./` collapse,
 * a leading `/` is added, a trailing `/` is dropped (except for the root).
 * `..` segments, a leading `~`, Windows drives and NUL bytes are refused.
 */
export function normalizeVirtualPath(input: string): PathCheck {
  if (typeof input !== 'string') return { ok: false, error: 'path must be a string' };
  if (input.includes('\0')) return { ok: false, error: 'path contains a NUL byte' };
  const trimmed = input.trim();
  if (trimmed.startsWith('~')) return { ok: false, error: `path '${input}' starts with '~'; use a virtual path such as /notes.md` };
  if (WINDOWS_DRIVE.test(trimmed)) return { ok: false, error: `Windows drive paths are not allowed: '${input}'; use a virtual path starting with /` };
  const segments: string[] = [];
  for (const segment of trimmed.replaceAll('\\', '/').split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') return { ok: false, error: `path traversal ('..') is not allowed: '${input}'` };
    segments.push(segment);
  }
  return { ok: true, path: '/' + segments.join('/') };
}

/** Joins a normalised virtual directory and a child name or relative path. */
export function joinVirtual(dir: string, child: string): string {
  if (child === '') return dir;
  return dir === '/' ? `/${child}` : `${dir}/${child}`;
}

/** The path of `path` relative to the virtual directory `base` ('' when equal), or null when outside. */
export function relativeVirtual(base: string, path: string): string | null {
  if (base === '/') return path === '/' ? '' : path.slice(1);
  if (path === base) return '';
  return path.startsWith(base + '/') ? path.slice(base.length + 1) : null;
}

export function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Orders strings by Unicode code point (UTF-16 `<` misorders astral characters). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca === cb) continue;
    // A surrogate starts an astral code point, which sorts after every BMP code point.
    const sa = ca >= 0xd800 && ca <= 0xdfff;
    const sb = cb >= 0xd800 && cb <= 0xdfff;
    if (sa !== sb) return sa ? 1 : -1;
    return ca - cb;
  }
  return a.length - b.length;
}

const SURROGATE = /[\uD800-\uDFFF]/;

export function sortByPath<T extends { path: string }>(items: T[]): T[] {
  // Without surrogates UTF-16 order is code point order, and the built-in comparison is much faster.
  if (!items.some((i) => SURROGATE.test(i.path))) return items.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
  return items.sort((x, y) => compareCodePoints(x.path, y.path));
}

/** True when a path relative to a search folder runs through a `.git` folder (grep and glob skip those). */
export function passesThroughGit(relPath: string): boolean {
  return relPath.split('/').slice(0, -1).includes('.git');
}
