// The remote folder as a ShellBackend: RemoteBackend's files plus commands on the remote.
// Commands (runRemoteCommand, remote-exec.ts) are Part R2 of issue 21 and join here at the
// merge; until then execute() rejects, saying so.

import type { ExecuteOptions, ExecuteResult, ShellBackend } from '../protocol';
import { RemoteBackend, type RemoteBackendOptions } from './remote-backend';
import { formatSshTarget } from './ssh-target';

export class RemoteShellBackend extends RemoteBackend implements ShellBackend {
  readonly id: string;

  constructor(options: RemoteBackendOptions) {
    super(options);
    this.id = formatSshTarget(options.connection.target);
  }

  // TODO(issue 21, merge with R2): run through runRemoteCommand(this.connection, command, options).
  execute(command: string, options?: ExecuteOptions): Promise<ExecuteResult> {
    void command;
    void options;
    return Promise.reject(new Error(`commands on remote folders are not available yet (${this.label})`));
  }
}
