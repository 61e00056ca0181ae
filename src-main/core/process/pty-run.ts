// One command's life in a pty, for a local command (pty-exec) and a remote one (remote-exec,
// whose pty is the local ssh client's): its output streamed to a live view and collected as
// capped plain text up to the wrapper's report of its status, its input and size from the
// view, and Stop and the timeout ending its process tree. What differs is given as hooks:
// where the command's own output starts, how its tree is killed, and what is cleaned up.

import type * as pty from 'node-pty';
import { TerminalTextDecoder } from '../text/ansi';
import { DEFAULT_MAX_OUTPUT_BYTES, OutputCap } from './output-cap';
import type { ExecuteResult, LiveCommand } from '../backends/protocol';
import { spawnPty } from './spawn-pty';

/** After the tree was killed, how long to wait for the pty to report the exit. */
export const EXIT_WAIT_MS = 3000;

export interface PtyRunOptions {
  /** Seconds; 0 or less means no timeout. */
  timeoutS: number;
  signal?: AbortSignal;
  onData?: (chunk: string) => void;
  /** Default 100,000. */
  maxOutputBytes?: number;
  attach?: (live: LiveCommand) => void;
}

export interface CommandPty {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  /** The command's TERM (default xterm-256color). */
  term: string | undefined;
}

/** The command's pty at the size asked (120×30 unless given); a command that cannot start is the run's result, status 127. */
export function startCommandPty(spec: CommandPty, size: { cols?: number; rows?: number }): { proc: pty.IPty } | { failed: ExecuteResult } {
  try {
    return {
      proc: spawnPty({ role: 'command', file: spec.file, args: spec.args, name: spec.term ?? 'xterm-256color', cols: size.cols ?? 120, rows: size.rows ?? 30, cwd: spec.cwd, env: spec.env }),
    };
  } catch (err) {
    return { failed: { output: `Could not start ${spec.file}: ${err instanceof Error ? err.message : String(err)}`, exitCode: 127, truncated: false } };
  }
}

export type PtyExit = { exitCode: number; signal?: number };

export interface PtyRunHooks {
  /**
   * The wrapper's status report in the stream (DoneReportScanner-shaped): what of `chunk` is
   * the command's output, and the status once reported.
   */
  scan(chunk: string): { forward: string; status?: number };
  /** The nonce the wrapper waits for once it reported, so it exits. */
  nonce: string;
  /** Ends the command's process tree (Stop, the timeout). */
  killTree(): Promise<void>;
  /** Once the run is over: ends what may be left (the pty's process included when it has not exited). */
  cleanUp(end: { stopping: PtyRunEnd['stopping']; exited: PtyExit | undefined }): Promise<void>;
}

export interface PtyRunEnd {
  /** The command's output as plain text, capped. */
  text: string;
  truncated: boolean;
  /** Ended by the timeout or by Stop. */
  stopping?: 'timeout' | 'abort';
  /** The status the wrapper reported (everything the command printed was read by then). */
  reported?: number;
  exited?: PtyExit;
}

export function collectPtyRun(proc: pty.IPty, hooks: PtyRunHooks, opts: PtyRunOptions): Promise<PtyRunEnd> {
  const decoder = new TerminalTextDecoder();
  const cap = new OutputCap(opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);

  return new Promise<PtyRunEnd>((resolve) => {
    let reported: number | undefined;
    let exited: PtyExit | undefined;
    let onExited: (() => void) | undefined;
    let stopping: 'timeout' | 'abort' | undefined;
    let settled = false;
    let reportTimer: NodeJS.Timeout | undefined;

    const dataSub = proc.onData((chunk) => {
      if (settled || reported !== undefined) return;
      const { forward, status } = hooks.scan(chunk);
      if (forward.length > 0) {
        try {
          opts.onData?.(forward);
        } catch {
          // A failing viewer must not break the command.
        }
        cap.write(decoder.push(forward));
      }
      if (status === undefined) return;
      reported = status;
      try {
        proc.write(`${hooks.nonce}\n`);
      } catch {
        // the pty's process is already gone
      }
      // The wrapper exits on our answer; should it not, it is ended.
      reportTimer = setTimeout(() => void finish(), EXIT_WAIT_MS);
    });

    const exitSub = proc.onExit((event) => {
      exited = event;
      if (onExited) onExited();
      else if (!stopping) void finish();
    });

    const timer = opts.timeoutS > 0 && Number.isFinite(opts.timeoutS) ? setTimeout(() => void stop('timeout'), opts.timeoutS * 1000) : undefined;
    const onAbort = (): void => void stop('abort');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const live = (action: () => void): void => {
      if (settled || exited || reported !== undefined) return;
      try {
        action();
      } catch {
        // the pty is closing
      }
    };
    opts.attach?.({
      write: (data) => live(() => proc.write(data)),
      resize: (cols, rows) => live(() => proc.resize(cols, rows)),
      pause: () => live(() => proc.pause()),
      resume: () => live(() => proc.resume()),
    });

    async function stop(reason: 'timeout' | 'abort'): Promise<void> {
      if (stopping || exited || settled || reported !== undefined) return;
      stopping = reason;
      await hooks.killTree();
      if (!exited) {
        await new Promise<void>((res) => {
          const wait = setTimeout(res, EXIT_WAIT_MS);
          onExited = () => {
            clearTimeout(wait);
            res();
          };
        });
      }
      await finish();
    }

    async function finish(): Promise<void> {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      if (reportTimer) clearTimeout(reportTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      dataSub.dispose();
      exitSub.dispose();
      await hooks.cleanUp({ stopping, exited });
      cap.write(decoder.end());
      const capped = cap.finish();
      resolve({
        text: capped.text,
        truncated: capped.truncated,
        ...(stopping ? { stopping } : {}),
        ...(reported !== undefined ? { reported } : {}),
        ...(exited ? { exited } : {}),
      });
    }
  });
}

/** Ends a pty whose process never reported its exit (node-pty closed the fd of one that did). */
export function endPty(proc: pty.IPty, signal: 'SIGKILL' | 'SIGTERM'): void {
  proc.kill(signal);
  (proc as unknown as { destroy?: () => void }).destroy?.();
}
