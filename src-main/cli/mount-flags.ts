// `--mount /PREFIX/=SPEC` (run, serve, tools, acp) and `--memories-store` (every command):
// bad values are bad usage (exit 2) with the reason; the flags add to Settings' mounts and
// store for this session only (a flag wins at its prefix), never saved (SPEC §5, §13).

import { memoriesStoreTextError } from '../core/backends/store/memories-store-text';
import { MountSpecError, type MountSpec } from '../core/backends/mounts/mount-spec';
import { localMountProblem, parseMountFlags } from '../core/backends/mounts/mount-table';
import { UsageError } from './usage';

/** The `--mount` flags, parsed and checked (a local folder must be there); throws UsageError. */
export function mountFlags(flags: readonly string[] | undefined, cwd: string = process.cwd()): MountSpec[] {
  let specs: MountSpec[];
  try {
    specs = parseMountFlags(flags ?? [], cwd);
  } catch (err) {
    if (err instanceof MountSpecError) throw new UsageError(err.message);
    throw err;
  }
  for (const spec of specs) {
    const problem = localMountProblem(spec);
    if (problem !== null) throw new UsageError(`--mount ${spec.text}: ${problem}`);
  }
  return specs;
}

/** `--memories-store` checked before anything opens; throws UsageError. */
export function memoriesStoreFlag(flag: string | undefined): string | undefined {
  if (flag === undefined) return undefined;
  const problem = memoriesStoreTextError(flag);
  if (problem !== null) throw new UsageError(`--memories-store: ${problem}`);
  return flag.trim();
}

export { openSessionMounts, type SessionMounts } from '../app/session/session-mounts';
