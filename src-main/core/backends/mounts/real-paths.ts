// Where a thread's virtual paths live on the person's disk (SPEC §1, §13): the project
// folder, the person's mounts, and Deepdesk's own mounts, which are nowhere on disk. Editors
// (ACP) and hooks are told real absolute paths.

import { join } from 'node:path';
import { SKILLS_MOUNT } from './skills-mount';
import { normalizeVirtualPath, relativeVirtual } from '../paths';
import { ATTACHMENTS_PREFIX, HISTORY_PREFIX, LARGE_RESULTS_PREFIX, MEMORIES_PREFIX } from './mounts';

/** A mount's prefix and the real folder its paths live in (undefined: nowhere on the person's disk). */
export interface EditorMount {
  prefix: string;
  root: string | undefined;
}

/** Where a session's virtual paths live on disk: the project folder, and the person's mounts now. */
export interface EditorPaths {
  folder: string;
  mounts(): readonly EditorMount[];
}

/** Deepdesk's own mounts: nowhere on disk. (The person's mounts can never be inside them, §13.) */
const DEEPDESK_MOUNTS: readonly EditorMount[] = [MEMORIES_PREFIX, LARGE_RESULTS_PREFIX, HISTORY_PREFIX, ATTACHMENTS_PREFIX, SKILLS_MOUNT].map((prefix) => ({
  prefix,
  root: undefined,
}));

/** The real path of a virtual path: on its mount (longest prefix) or in the project folder; undefined where it has none. */
export function realPathOf(paths: EditorPaths, virtualPath: string): string | undefined {
  const normal = normalizeVirtualPath(virtualPath);
  if (!normal.ok) return undefined;
  let best: { base: string; root: string | undefined; rest: string } | undefined;
  for (const mount of [...DEEPDESK_MOUNTS, ...paths.mounts()]) {
    const base = normalizeVirtualPath(mount.prefix);
    if (!base.ok || base.path === '/') continue;
    const rest = relativeVirtual(base.path, normal.path);
    if (rest !== null && (best === undefined || base.path.length > best.base.length)) best = { base: base.path, root: mount.root, rest };
  }
  if (best === undefined) return normal.path === '/' ? paths.folder : join(paths.folder, normal.path);
  if (best.root === undefined) return undefined;
  return best.rest === '' ? best.root : join(best.root, best.rest);
}

/** The virtual path of a real one in the project folder or a mount (longest root), or undefined when it is in none. */
export function virtualPathOf(paths: EditorPaths, realPath: string): string | undefined {
  const candidates = [{ prefix: '/', root: paths.folder }, ...paths.mounts()].filter((m): m is { prefix: string; root: string } => m.root !== undefined);
  let best: { prefix: string; root: string } | undefined;
  for (const mount of candidates) {
    const root = mount.root.replace(/\/+$/, '');
    if ((realPath === root || realPath.startsWith(`${root}/`)) && (best === undefined || root.length > best.root.length)) best = { prefix: mount.prefix, root };
  }
  if (best === undefined) return undefined;
  const rest = realPath.slice(best.root.length).replace(/^\/+/, '');
  const prefix = best.prefix.endsWith('/') ? best.prefix : `${best.prefix}/`;
  return rest === '' ? (best.prefix === '/' ? '/' : best.prefix) : `${prefix}${rest}`;
}
