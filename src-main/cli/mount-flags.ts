// `--mount /PREFIX/=SPEC` (run, serve, tools, acp) and `--memories-store` (every command):
// bad values are bad usage (exit 2) with the reason; the flags add to Settings' mounts and
// store for this session only (a flag wins at its prefix), never saved (SPEC §5, §13).

import type { MountSpec } from '../core/backends/mounts/mount-spec';
import { checkedMountFlags } from '../app/base/flag-checks';
import { badRequestAsUsage } from './usage';

/** The `--mount` flags, parsed and checked (a local folder must be there); throws UsageError. */
export function mountFlags(flags: readonly string[] | undefined, cwd: string = process.cwd()): MountSpec[] {
  return badRequestAsUsage(() => checkedMountFlags(flags, cwd));
}

export { openSessionMounts, type SessionMounts } from '../app/session/session-mounts';
