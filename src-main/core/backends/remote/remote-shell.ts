// The remote folder as a ShellBackend (SPEC §13): RemoteBackend's files plus commands run
// on the remote in a pty (remote-exec.ts), inside the remote's bubblewrap when it has one.

import type { Sandbox } from '../../sandbox/types';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../../process/output-cap';
import type { ExecuteOptions, ExecuteResult, ShellBackend } from '../protocol';
import { DEFAULT_EXECUTE_TIMEOUT_S } from '../filesystem/local-shell';
import { RemoteBackend, type RemoteBackendOptions } from './remote-backend';
import { runRemoteCommand } from './remote-exec';
import { formatSshTarget } from './ssh-target';

export interface RemoteShellBackendOptions extends RemoteBackendOptions {
  /** Seconds, when execute() is given none. Default 120. */
  defaultTimeoutS?: number;
  maxOutputBytes?: number;
  /** Extra variables for every command. */
  env?: Record<string, string>;
  /** The remote's sandbox (createRemoteSandbox); commands run inside it unless execute() is told `sandbox: false`. */
  sandbox?: Sandbox;
}

export class RemoteShellBackend extends RemoteBackend implements ShellBackend {
  readonly id: string;
  readonly sandbox: Sandbox | undefined;
  private readonly defaultTimeoutS: number;
  private readonly maxOutputBytes: number;
  private readonly extraEnv: Record<string, string>;

  constructor(options: RemoteShellBackendOptions) {
    super(options);
    this.id = formatSshTarget(options.connection.target);
    this.sandbox = options.sandbox;
    this.defaultTimeoutS = options.defaultTimeoutS ?? DEFAULT_EXECUTE_TIMEOUT_S;
    this.maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    this.extraEnv = { ...options.env };
  }

  execute(command: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    // The rest of the options (signal, onData, attach, cols, rows, traceparent, attribution) go as they are.
    const { sandbox, ...rest } = options;
    return runRemoteCommand(this.connection, command, {
      ...rest,
      cwd: this.connection.target.path,
      env: { ...this.extraEnv, ...options.env },
      timeoutS: options.timeoutS ?? this.defaultTimeoutS,
      maxOutputBytes: this.maxOutputBytes,
      ...(this.sandbox && sandbox !== false ? { sandbox: this.sandbox } : {}),
    });
  }
}
