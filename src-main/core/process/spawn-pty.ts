// Starts a process in a fresh pty, registered with the one registry of spawn.ts. Its own
// module so that what never starts a pty does not load node-pty's native module.
import * as pty from 'node-pty';
import { track, type ProcessRole } from './spawn';

export interface PtySpec {
  role: ProcessRole;
  file: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  /** The terminal type (default `xterm-256color`). */
  name?: string;
}

/** Starts a process in a fresh pty (a session leader: its pid is its group). Throws when it cannot start. */
export function spawnPty(spec: PtySpec): pty.IPty {
  const proc = pty.spawn(spec.file, [...spec.args], { name: spec.name ?? 'xterm-256color', cols: spec.cols, rows: spec.rows, cwd: spec.cwd, env: spec.env });
  const untrack = track({ pid: proc.pid, role: spec.role, file: spec.file, group: true });
  proc.onExit(untrack);
  return proc;
}

