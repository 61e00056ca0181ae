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

export class LocalShellBackend extends FilesystemBackend implements ShellBackend {
  readonly id = `local-${randomBytes(4).toString('hex')}`;
  private readonly defaultTimeoutS: number;
  private readonly maxOutputBytes: number;
  private readonly extraEnv: Record<string, string>;
  readonly sandbox: Sandbox | undefined;

  constructor(options: LocalShellBackendOptions) {
    super(options);
    this.defaultTimeoutS = options.defaultTimeoutS ?? DEFAULT_EXECUTE_TIMEOUT_S;
    this.maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    this.extraEnv = { ...options.env };
    this.sandbox = options.sandbox;
  }

  async execute(command: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    const env = { ...(await buildCommandEnv()), ...this.extraEnv, ...options.env };
    // The rest of the options (attach, cols, rows, onData, traceparent, attribution) go as they are.
    const { sandbox, ...rest } = options;
    return runInPty(command, {
      ...rest,
      cwd: this.rootDir,
      env,
      timeoutS: options.timeoutS ?? this.defaultTimeoutS,
      maxOutputBytes: this.maxOutputBytes,
      ...(this.sandbox && sandbox !== false ? { sandbox: this.sandbox } : {}),
    });
  }
}
