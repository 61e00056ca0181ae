// One command's life in a pty, for a local command (pty-exec) and a remote one (remote-exec,
// whose pty is the local ssh client's): its output streamed to a live view and collected as
// capped plain text until its wrapper exits, its input and size from the view, and Stop and
// the timeout ending its process tree. What differs is given as hooks: where the command's
// own output starts, how its tree is killed, and what is cleaned up.
//
// The wrapper's report of the status (status-report.ts) is a point of synchronisation, not
// the end: the wrapper waits for our answer so that nothing it printed before is lost when it
// exits. The status itself is the wrapper's exit status, which the kernel (or ssh) gives and
// the command cannot write. A command that reads the nonce (an unsandboxed one can read its
// wrapper's command line) and prints a report of its own gets an answer too, and nothing
// else: its output goes on being collected, Stop and the timeout still end it, and its status
// is still the one it exits with.

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
  scan(chunk: string): { forward: string; status?: number; after?: string };
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
  /**
   * The status of the last report seen. Never the command's status on its own (a command can
   * print a report too): that is `exited`. A run with no report never reached its end.
   */
  reported?: number;
  exited?: PtyExit;
}

export function collectPtyRun(proc: pty.IPty, hooks: PtyRunHooks, opts: PtyRunOptions): Promise<PtyRunEnd> {
  const decoder = new TerminalTextDecoder();
  const cap = new OutputCap(opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
  const echoes = new AnswerEchoes(hooks.nonce);

  return new Promise<PtyRunEnd>((resolve) => {
    let reported: number | undefined;
    let exited: PtyExit | undefined;
    let onExited: (() => void) | undefined;
    let stopping: 'timeout' | 'abort' | undefined;
    let settled = false;
    let answerTimer: NodeJS.Timeout | undefined;

    const forward = (text: string): void => {
      if (text.length === 0) return;
      try {
        opts.onData?.(text);
      } catch {
        // A failing viewer must not break the command.
      }
      cap.write(decoder.push(text));
    };

    // Our answer to a report; again while the wrapper has not exited, in case something else
    // in the pty read it first (the wrapper reads lines until it sees the nonce).
    const answer = (): void => {
      if (settled || exited) return;
      try {
        proc.write(`${hooks.nonce}\n`);
        echoes.expect();
      } catch {
        // the pty's process is already gone
      }
      clearTimeout(answerTimer);
      answerTimer = setTimeout(answer, EXIT_WAIT_MS);
    };

    const dataSub = proc.onData((chunk) => {
      if (settled) return;
      let rest: string | undefined = echoes.filter(chunk);
      while (rest !== undefined && rest.length > 0) {
        const { forward: text, status, after } = hooks.scan(rest);
        forward(text);
        if (status === undefined) return;
        reported = status;
        answer();
        rest = after;
      }
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
      // After a report, what is typed would reach the wrapper's wait, not a command.
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
      if (stopping || exited || settled) return;
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
      clearTimeout(answerTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      dataSub.dispose();
      exitSub.dispose();
      await hooks.cleanUp({ stopping, exited });
      forward(echoes.end());
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

/**
 * The pty echoes our answers (a line of the nonce; `\r\n` or `\n` by the terminal's settings)
 * into the output: they are not the command's. Each answer's echo is dropped where it comes
 * next in the stream; should something else come first (the terminal does not echo, or a
 * command still running printed in between), nothing more is dropped.
 */
export class AnswerEchoes {
  private pending = 0;
  private held = '';
  private readonly forms: readonly string[];

  constructor(nonce: string) {
    this.forms = [`${nonce}\r\n`, `${nonce}\n`];
  }

  expect(): void {
    this.pending++;
  }

  filter(chunk: string): string {
    let text = this.held + chunk;
    this.held = '';
    while (this.pending > 0 && text.length > 0) {
      const echo = this.forms.find((form) => text.startsWith(form));
      if (echo !== undefined) {
        text = text.slice(echo.length);
        this.pending--;
        continue;
      }
      if (this.forms.some((form) => form.startsWith(text))) {
        this.held = text;
        return '';
      }
      this.pending = 0;
    }
    return text;
  }

  /** What was held as the start of an echo that never completed. */
  end(): string {
    const rest = this.held;
    this.held = '';
    return rest;
  }
}

/** Ends a pty whose process never reported its exit (node-pty closed the fd of one that did). */
export function endPty(proc: pty.IPty, signal: 'SIGKILL' | 'SIGTERM'): void {
  proc.kill(signal);
  (proc as unknown as { destroy?: () => void }).destroy?.();
}
