// An agent's absolute host paths as the folder's virtual paths (SPEC §1: the folder is `/`).
import { isAbsolute, relative, sep } from 'node:path';
import { isPathInside } from '../fs/path-inside';

/** `/rel/path` for a host path inside `folder` (the folder itself is `/`); undefined outside it or for a relative path. */
export function hostToVirtual(folder: string, path: string): string | undefined {
  if (!isAbsolute(path) || !isPathInside(folder, path)) return undefined;
  const rel = relative(folder, path);
  return `/${rel.split(sep).join('/')}`;
}
