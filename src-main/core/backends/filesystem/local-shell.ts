// LocalShellBackend (SPEC §2, §3 execute): the project folder on disk plus commands run
// in it through a pty, in the user's environment made non-interactive.
import { randomBytes } from 'node:crypto';
import type { Sandbox } from '../../sandbox/types';
import { FilesystemBackend, type FilesystemBackendOptions } from './filesystem';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../../process/output-cap';
import type { ExecuteOptions, ExecuteResult, ShellBackend } from '../protocol';
import { runInPty } from '../../process/pty-exec';
import { buildCommandEnv } from '../../process/shell-env';

export const DEFAULT_EXECUTE_TIMEOUT_S = 120;

export interface LocalShellBackendOptions extends FilesystemBackendOptions {
  /** Seconds, when execute() is given none. Default 120. */
  defaultTimeoutS?: number;
  /** The result's output is cut (head and tail kept) past this many bytes. Default 100,000. */
  maxOutputBytes?: number;
  /** Extra variables for every command (they win over the user's environment). */
  env?: Record<string, string>;
  /** Commands run inside it, unless execute() is told `sandbox: false`. */
  sandbox?: Sandbox;
}

/** One command's run, as told to output listeners. */
export interface ShellRun {
  id: string;
  command: string;
}

/** Receives the raw terminal bytes of every command (escapes included), e.g. for a terminal mirror. */
export type ShellOutputListener = (chunk: string, run: ShellRun) => void;

export class LocalShellBackend extends FilesystemBackend implements ShellBackend {
  readonly id = `local-${randomBytes(4).toString('hex')}`;
  private readonly defaultTimeoutS: number;
  private readonly maxOutputBytes: number;
  private readonly extraEnv: Record<string, string>;
  private readonly listeners = new Set<ShellOutputListener>();
  readonly sandbox: Sandbox | undefined;
  private runCount = 0;

  constructor(options: LocalShellBackendOptions) {
    super(options);
    this.defaultTimeoutS = options.defaultTimeoutS ?? DEFAULT_EXECUTE_TIMEOUT_S;
    this.maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    this.extraEnv = { ...options.env };
    this.sandbox = options.sandbox;
  }

  /** Subscribes to the raw output of every command; returns the unsubscribe function. */
  onOutput(listener: ShellOutputListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  async execute(command: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    const run: ShellRun = { id: `${this.id}-${++this.runCount}`, command };
    const env = { ...(await buildCommandEnv()), ...this.extraEnv, ...options.env };
    return runInPty(command, {
      cwd: this.rootDir,
      env,
      timeoutS: options.timeoutS ?? this.defaultTimeoutS,
      signal: options.signal,
      maxOutputBytes: this.maxOutputBytes,
      ...(options.attach ? { attach: options.attach } : {}),
      ...(options.cols !== undefined ? { cols: options.cols } : {}),
      ...(options.rows !== undefined ? { rows: options.rows } : {}),
      ...(options.traceparent !== undefined ? { traceparent: options.traceparent } : {}),
      ...(options.attribution ? { attribution: options.attribution } : {}),
      ...(options.reviewLayer ? { reviewLayer: options.reviewLayer } : {}),
      ...(this.sandbox && options.sandbox !== false ? { sandbox: this.sandbox } : {}),
      onData: (chunk) => {
        const receivers: Array<(chunk: string, run: ShellRun) => void> = [...this.listeners];
        if (options.onData) receivers.unshift(options.onData);
        for (const receive of receivers) {
          try {
            receive(chunk, run);
          } catch {
            // One broken viewer must not stop the others or the command.
          }
        }
      },
    });
  }
}
