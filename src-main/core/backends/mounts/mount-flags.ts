// `--mount` flags and Settings' saved mounts read with Node's paths (home, cwd), and whether a
// local mount's folder is there: what a client checks before a session opens, without the
// mount table's backends (a thin client such as `deepdesk run` loads only this).

import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve as resolvePath } from 'node:path';
import { checkMountTable, MountSpecError, parseMountSpec, type MountSpec } from './mount-spec';

/** A mount the person wrote down (Settings stores `{prefix, spec}`). */
export interface SavedMount {
  prefix: string;
  spec: string;
}

/** `--mount` values, relative folders taken from `cwd`; throws MountSpecError (bad usage). */
export function parseMountFlags(flags: readonly string[], cwd: string = process.cwd()): MountSpec[] {
  const specs = flags.map((flag) => {
    try {
      return parseMountSpec(flag, cwd, nodePaths());
    } catch (err) {
      if (err instanceof MountSpecError) throw new MountSpecError(`--mount ${flag}: ${err.message}`);
      throw err;
    }
  });
  checkMountTable(specs);
  return specs;
}

/** A saved mount as a spec (no base folder: Settings' folders are absolute or ~/…). */
export function parseSavedMount(saved: SavedMount): MountSpec {
  return parseMountSpec(`${saved.prefix}=${saved.spec}`, undefined, nodePaths());
}

/** Why a local mount's folder cannot be mounted, or null (git mounts are checked on use). */
export function localMountProblem(spec: MountSpec): string | null {
  if (spec.source.kind !== 'local') return null;
  try {
    if (!statSync(spec.source.path).isDirectory()) return `${spec.source.path} is not a folder`;
  } catch {
    return `folder not found: ${spec.source.path}`;
  }
  return null;
}

function nodePaths() {
  return { home: homedir(), resolve: (base: string, path: string) => resolvePath(base, path) };
}
