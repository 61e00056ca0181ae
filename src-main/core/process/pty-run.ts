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
 * The pty echoes our answers (a line of the nonce) into the output: they are not the
 * command's. Once an answer was given, every line of the nonce is dropped wherever it comes,
 * and as often as it comes: an ssh client whose master connection writes the remote's output
 * before the client has set its own terminal raw leaves that terminal echoing too, so one
 * answer can come back twice (the local echo, then the remote one through the local
 * terminal's `\n` → `\r\n`). Only a line that is the nonce alone is dropped (a command that
 * read its wrapper's command line knows it; such a line it prints after the report is lost).
 */
export class AnswerEchoes {
  private answered = false;
  private held = '';
  /** The last character before what is held (or before the next chunk): '' at the start. */
  private before = '';

  constructor(private readonly nonce: string) {}

  expect(): void {
    this.answered = true;
  }

  filter(chunk: string): string {
    const text = this.held + chunk;
    this.held = '';
    if (!this.answered) {
      if (text.length > 0) this.before = text.at(-1)!;
      return text;
    }
    const { nonce } = this;
    const startsLine = (at: number): boolean => LINE_STARTS.has(at === 0 ? this.before : text[at - 1]!);
    let out = '';
    let from = 0;
    for (let at = text.indexOf(nonce); at !== -1; at = text.indexOf(nonce, at + 1)) {
      if (!startsLine(at)) continue;
      const after = text.slice(at + nonce.length);
      const ending = LINE_ENDS.find((end) => after.startsWith(end));
      if (ending !== undefined) {
        out += text.slice(from, at);
        from = at + nonce.length + ending.length;
        at = from - 1;
      } else if (LINE_ENDS.some((end) => end.startsWith(after))) {
        // The line's end has not come yet.
        return out + this.hold(text, from, at);
      }
    }
    // The start of a nonce at the very end of a line's start: held until what follows it comes.
    for (let keep = Math.min(text.length - from, nonce.length - 1); keep > 0; keep--) {
      const at = text.length - keep;
      if (startsLine(at) && nonce.startsWith(text.slice(at))) return out + this.hold(text, from, at);
    }
    if (text.length > 0) this.before = text.at(-1)!;
    return out + text.slice(from);
  }

  private hold(text: string, from: number, at: number): string {
    this.before = at === 0 ? this.before : text[at - 1]!;
    this.held = text.slice(at);
    return text.slice(from, at);
  }

  /** What was held as the start of an echo that never completed. */
  end(): string {
    const rest = this.held;
    this.held = '';
    return rest;
  }
}

/** Where an echoed line can start: the stream's start, a line's, or just after a report (its BEL). */
const LINE_STARTS = new Set(['', '\n', '\r', '\x07']);
/** How an echoed line ends: the pty's `\r\n`, a bare `\n`, or `\r\n` put through a terminal's `\n` → `\r\n` once more. */
const LINE_ENDS = ['\r\r\n', '\r\n', '\n'];

/** Ends a pty whose process never reported its exit (node-pty closed the fd of one that did). */
export function endPty(proc: pty.IPty, signal: 'SIGKILL' | 'SIGTERM'): void {
  proc.kill(signal);
  (proc as unknown as { destroy?: () => void }).destroy?.();
}
