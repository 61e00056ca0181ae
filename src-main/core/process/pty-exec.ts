// Runs one command in a fresh pty and collects its output as plain text. The raw bytes go
// to `onData` as they come (for a live terminal view); the result is escape-stripped,
// capped (head and tail kept), and the whole process tree is killed on timeout or abort.
import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import { isExecutable } from '../fs/file-checks';
import { collectPtyRun, endPty, startCommandPty, type PtyRunOptions } from './pty-run';
import type { StepAttribution } from './attribution';
import { EXEC_MARKER_VAR, killProcessGroup, killProcessTree, newTreeMarker, pidMark, startTicksNow } from './process-tree';
import { watchProcessGroup } from './watchdog';
import type { CommandSpec, PreparedCommand, ReviewLayer, Sandbox } from '../sandbox/types';
import type { ExecuteResult } from '../backends/protocol';
import { traceparentEnv } from './traceparent';
import { DONE_OSC, withStatusReport, wrapperShellLevel, type StatusReport } from './status-report';

export interface RunInPtyOptions extends PtyRunOptions {
  cwd: string;
  env: Record<string, string>;
  cols?: number;
  rows?: number;
  /** Runs the command inside this sandbox; the result then says what it blocked, if anything. */
  sandbox?: Sandbox;
  /** The W3C traceparent of the call that runs it: the command gets it as TRACEPARENT, when well formed (traceparent.ts). */
  traceparent?: string;
  /** The checkpoint step the command belongs to (attribution.ts). */
  attribution?: StepAttribution;
  /** Reviews the sandboxed command's layer before it is applied (sandbox/layer-review.ts). */
  reviewLayer?: ReviewLayer;
}

export const TIMEOUT_EXIT_CODE = 124;
/** Launches of a sandboxed command whose mount point vanished before it started (see runInPty). */
const LAUNCH_ATTEMPTS = 3;
export const KILL_GRACE_MS = 1000;

/** The user's shell when it is bash or zsh, else bash, else sh. */
export function resolveShell(userShell: string | undefined = process.env.SHELL): string {
  if (userShell && ['bash', 'zsh'].includes(basename(userShell)) && isExecutable(userShell)) return userShell;
  for (const candidate of ['/bin/bash', '/usr/bin/bash', '/usr/local/bin/bash']) {
    if (isExecutable(candidate)) return candidate;
  }
  return '/bin/sh';
}

/** A shell's way of ending, as a number: a process killed by signal N reports 128+N. */
export function exitCodeOf(event: { exitCode: number; signal?: number }): number {
  return event.signal ? 128 + event.signal : event.exitCode;
}

export function timeoutNote(timeoutS: number): string {
  return `[Command timed out after ${timeoutS} second${timeoutS === 1 ? '' : 's'} and was killed]`;
}

export const CANCELLED_NOTE = '[Command was cancelled and killed]';

/** Text output followed by a status line, without trailing newlines of its own. */
export function composeOutput(text: string, note: string | undefined): string {
  const body = text.replace(/\n+$/, '');
  if (!note) return body;
  return body.length > 0 ? `${body}\n${note}` : note;
}

/**
 * Finds the wrapper's status report in the raw stream, holding back a report split across
 * chunks. `report` names another number a wrapper reports the same way (remote-exec: `pgid`).
 */
export class DoneReportScanner {
  private held = '';
  private readonly prefix: string;

  constructor(nonce: string, report = 'done') {
    this.prefix = `\x1b]${DONE_OSC};${report};${nonce};`;
  }

  /** `after`: what followed the report in the same chunk (the scanner is done with it). */
  push(chunk: string): { forward: string; status?: number; after?: string } {
    const text = this.held + chunk;
    this.held = '';
    const at = text.indexOf(this.prefix);
    if (at !== -1) {
      const rest = text.slice(at + this.prefix.length);
      // eslint-disable-next-line no-control-regex -- BEL ends the report
      const match = /^(\d+)\x07/.exec(rest);
      if (match) return { forward: text.slice(0, at), status: Number(match[1]), after: rest.slice(match[0].length) };
      if (/^\d*$/.test(rest)) {
        this.held = text.slice(at);
        return { forward: text.slice(0, at) };
      }
      return { forward: text };
    }
    const esc = text.lastIndexOf('\x1b');
    if (esc !== -1 && this.prefix.startsWith(text.slice(esc))) {
      this.held = text.slice(esc);
      return { forward: text.slice(0, esc) };
    }
    return { forward: text };
  }
}

export const CANCELLED_BEFORE_START: ExecuteResult = {
  output: '[Command was cancelled before it started]',
  exitCode: null,
  truncated: false,
};

export async function runInPty(command: string, opts: RunInPtyOptions): Promise<ExecuteResult> {
  if (opts.signal?.aborted) return { ...CANCELLED_BEFORE_START };
  const marker = newTreeMarker();
  const nonce = randomBytes(8).toString('hex');
  const shell = resolveShell(opts.env.SHELL ?? process.env.SHELL);
  const env: Record<string, string> = { ...opts.env, ...traceparentEnv(opts.traceparent), [EXEC_MARKER_VAR]: marker.slice(EXEC_MARKER_VAR.length + 1) };
  // The command runs in a shell of its own (`shell -c command`, so it behaves exactly as
  // typed, `exit` and all), under /bin/sh's status report (status-report.ts); in a sandbox
  // the launch's own shell reports (it already runs to start bwrap), one shell fewer.
  const spec = { file: shell, args: ['-c', command, basename(shell)], cwd: opts.cwd, env };
  const level = wrapperShellLevel(shell, env.SHLVL);
  const report: StatusReport = { nonce, stdinFromPty: opts.attach !== undefined, ...(level !== undefined ? { shellLevel: level } : {}) };
  if (!opts.sandbox) {
    // Its writes land straight in the folder, indistinguishable from anyone else's.
    await opts.attribution?.blind();
    return spawnAndCollect({ ...spec, ...withStatusReport(report, spec.file, spec.args) }, marker, nonce, opts);
  }

  // A socket in /tmp that vanished between the run's scan and bwrap's mount fails the launch
  // before the command starts: prepared again (a fresh scan), it is launched again, a few
  // times at most (on a busy machine another socket may come and go in the next window too).
  for (let attempt = 1; ; attempt++) {
    let prepared: PreparedCommand;
    try {
      prepared = await opts.sandbox.prepare(spec, { report, ...(opts.attribution ? { attribution: opts.attribution } : {}), ...(opts.reviewLayer ? { reviewLayer: opts.reviewLayer } : {}) });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return { output: `Could not start the sandbox: ${message}`, exitCode: 127, truncated: false, sandboxed: true };
    }
    try {
      // A launch without the report would give the command the pty as its stdin and lose output.
      if (prepared.reports !== true) return { output: 'Could not start the sandbox: its launch does not report the status', exitCode: 127, truncated: false, sandboxed: true };
      if (opts.signal?.aborted) return { ...CANCELLED_BEFORE_START, sandboxed: true };
      const result = await spawnAndCollect(prepared, marker, nonce, opts);
      if (attempt < LAUNCH_ATTEMPTS && prepared.launchRaced?.(result.output, result.exitCode) === true) continue;
      const blocked = await prepared.blockedLine(result.output, result.exitCode);
      if (!blocked) return { ...result, sandboxed: true };
      return { ...result, output: composeOutput(result.output, blocked), sandboxed: true, sandboxBlocked: blocked };
    } finally {
      await prepared.dispose();
    }
  }
}

async function spawnAndCollect(spec: CommandSpec, marker: string, nonce: string, opts: RunInPtyOptions): Promise<ExecuteResult> {
  const before = pidMark();
  const rootStart = startTicksNow();
  const started = startCommandPty({ file: spec.file, args: spec.args, cwd: spec.cwd, env: spec.env, term: spec.env.TERM }, opts);
  if ('failed' in started) return started.failed;
  const proc = started.proc;

  const pid = proc.pid;
  const tree = { marker, ...(rootStart !== undefined ? { rootStart } : {}), ...(before !== undefined ? { before } : {}) };
  // A Deepdesk killed outright (SIGKILL, a crash) cannot stop the command: the watchdog does,
  // its group and whatever carries its marker (nohup'd or setsid'd children too).
  const unwatch = watchProcessGroup(pid, marker);
  const scanner = new DoneReportScanner(nonce);
  const end = await collectPtyRun(
    proc,
    {
      scan: (chunk) => scanner.push(chunk),
      nonce,
      killTree: () => killProcessTree(pid, { ...tree, graceMs: KILL_GRACE_MS }),
      async cleanUp({ stopping, exited }) {
        try {
          if (stopping || !exited) await killProcessTree(pid, { ...tree, graceMs: stopping ? 0 : KILL_GRACE_MS });
          // The shell is gone; background jobs it left in its group would hold the pty open.
          else await killProcessGroup(pid, KILL_GRACE_MS);
          // After an exit the pid is reaped and must not be signalled.
          if (!exited) endPty(proc, 'SIGKILL');
        } finally {
          // Let go even when a kill failed: a group id left registered could be another's later.
          unwatch();
        }
      },
    },
    opts,
  );
  if (end.stopping === 'timeout') return { output: composeOutput(end.text, timeoutNote(opts.timeoutS)), exitCode: TIMEOUT_EXIT_CODE, truncated: end.truncated, timedOut: true };
  if (end.stopping === 'abort') return { output: composeOutput(end.text, CANCELLED_NOTE), exitCode: null, truncated: end.truncated };
  // The wrapper's own exit, never a report (the command can print one: pty-run.ts).
  return { output: composeOutput(end.text, undefined), exitCode: end.exited ? exitCodeOf(end.exited) : null, truncated: end.truncated };
}
