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
  /** The remote's sandbox (createRemoteSandbox); commands run inside it unless execute() is told `sandbox: false`. */
  sandbox?: Sandbox;
}

export class RemoteShellBackend extends RemoteBackend implements ShellBackend {
  readonly id: string;
  readonly sandbox: Sandbox | undefined;

  constructor(options: RemoteShellBackendOptions) {
    super(options);
    this.id = formatSshTarget(options.connection.target);
    this.sandbox = options.sandbox;
  }

  execute(command: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    // The rest of the options (signal, onData, attach, cols, rows, traceparent, attribution) go as they are.
    const { sandbox, ...rest } = options;
    return runRemoteCommand(this.connection, command, {
      ...rest,
      cwd: this.connection.target.path,
      env: { ...options.env },
      timeoutS: options.timeoutS ?? DEFAULT_EXECUTE_TIMEOUT_S,
      maxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES,
      ...(this.sandbox && sandbox !== false ? { sandbox: this.sandbox } : {}),
    });
  }
}
