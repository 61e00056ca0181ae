// One agent command in the shared terminal: its captured output (escape-stripped and
// capped exactly like LocalShellBackend's results) and the ways it can end.
import { TerminalTextDecoder } from '../../core/backends/ansi';
import { DEFAULT_MAX_OUTPUT_BYTES, OutputCap } from '../../core/backends/output-cap';
import type { ExecuteResult } from '../../core/backends/protocol';
import { CANCELLED_NOTE, TIMEOUT_EXIT_CODE, composeOutput, timeoutNote } from '../../core/backends/pty-exec';

export interface TerminalRunOptions {
  /** Seconds, counted from the moment the command is next in line; 0 or absent: none. */
  timeoutS?: number;
  signal?: AbortSignal;
  /** The command's raw output as the terminal shows it (markers removed). */
  onData?: (chunk: string) => void;
}

/** queued: waiting its turn; sent: typed into the shell; running: its start marker came. */
export type CommandPhase = 'queued' | 'sent' | 'running' | 'done';

export const NOT_RUN_CANCELLED_NOTE = '[Command was cancelled before it ran]';
export const SHELL_EXITED_NOTE = "[The terminal's shell exited while the command ran]";
export const TERMINAL_CLOSED_NOTE = '[The terminal was closed]';
export const LINE_LOST_NOTE = "[The terminal's shell did not take the command; it was not run]";

export function busyTimeoutNote(timeoutS: number): string {
  return `[Command timed out after ${timeoutS} second${timeoutS === 1 ? '' : 's'} waiting for the terminal, which was busy; it was not run]`;
}

export class AgentCommand {
  phase: CommandPhase = 'queued';
  /** Typed in again (under a new id) after the shell lost its line this many times. */
  retypes = 0;
  /** The subshell's pid, from the start marker. */
  pid: number | undefined;
  stopping: 'timeout' | 'abort' | undefined;
  /** The kill of its process tree, once started. */
  killing: Promise<void> | undefined;
  /** Whether the timeout clock was started (when the command became next in line). */
  clockStarted = false;
  readonly timers: NodeJS.Timeout[] = [];
  readonly result: Promise<ExecuteResult>;
  private resolveResult!: (result: ExecuteResult) => void;
  private readonly decoder = new TerminalTextDecoder();
  private readonly cap: OutputCap;

  constructor(
    /** Carried by its start and end markers; renewed when its line is typed in again. */
    public id: number,
    readonly command: string,
    readonly options: TerminalRunOptions,
    maxOutputBytes = DEFAULT_MAX_OUTPUT_BYTES,
  ) {
    this.cap = new OutputCap(maxOutputBytes);
    this.result = new Promise((resolve) => {
      this.resolveResult = resolve;
    });
  }

  get timeoutS(): number {
    const t = this.options.timeoutS;
    return t !== undefined && t > 0 && Number.isFinite(t) ? t : 0;
  }

  get settled(): boolean {
    return this.phase === 'done';
  }

  capture(raw: string): void {
    if (this.phase !== 'running') return;
    try {
      this.options.onData?.(raw);
    } catch {
      // A failing viewer must not break the command.
    }
    this.cap.write(this.decoder.push(raw));
  }

  /** The end marker came with the shell's status for the command. */
  ended(status: number): void {
    if (this.stopping) this.stopped();
    else this.settle(undefined, status);
  }

  /** Timed out or aborted after it was sent: whatever it printed, and the note. */
  stopped(): void {
    if (this.stopping === 'timeout') this.settle(timeoutNote(this.timeoutS), TIMEOUT_EXIT_CODE, true);
    else this.settle(CANCELLED_NOTE, null);
  }

  /** Timed out (after `waitedS`) or aborted before it started in the shell. */
  notRun(reason: 'timeout' | 'abort', waitedS = this.timeoutS): void {
    if (reason === 'timeout') this.settle(busyTimeoutNote(waitedS), TIMEOUT_EXIT_CODE, true);
    else this.settle(NOT_RUN_CANCELLED_NOTE, null);
  }

  failed(note: string, exitCode: number | null = null): void {
    this.settle(note, exitCode);
  }

  private settle(note: string | undefined, exitCode: number | null, timedOut = false): void {
    if (this.phase === 'done') return;
    this.phase = 'done';
    for (const timer of this.timers.splice(0)) clearTimeout(timer);
    this.cap.write(this.decoder.end());
    const capped = this.cap.finish();
    const result: ExecuteResult = { output: composeOutput(capped.text, note), exitCode, truncated: capped.truncated };
    if (timedOut) result.timedOut = true;
    this.resolveResult(result);
  }
}
