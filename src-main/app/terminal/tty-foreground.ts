// Which process group owns a terminal's foreground: the shell's own pid when it sits at its
// prompt (or runs a builtin), a job's group while that job runs in the foreground.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The foreground process group of `pid`'s controlling terminal; undefined when unknown. */
export function foregroundProcessGroup(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name: state ppid pgrp session tty_nr tpgid ...
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const tpgid = Number(fields[5]);
    return Number.isInteger(tpgid) && tpgid > 0 ? tpgid : undefined;
  } catch {
    // No /proc (macOS): ask ps.
  }
  try {
    const out = execFileSync('ps', ['-o', 'tpgid=', '-p', String(pid)], { encoding: 'utf8', timeout: 2000 });
    const tpgid = Number(out.trim());
    return Number.isInteger(tpgid) && tpgid > 0 ? tpgid : undefined;
  } catch {
    return undefined;
  }
}
