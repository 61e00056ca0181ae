// The project folder with execute() running in the window's shared terminal, so the agent's
// commands show up (and can be interrupted) in the terminal the person sees.
import { randomBytes } from 'node:crypto';
import { FilesystemBackend, type FilesystemBackendOptions } from '../../core/backends/filesystem';
import { DEFAULT_EXECUTE_TIMEOUT_S } from '../../core/backends/local-shell';
import type { ExecuteOptions, ExecuteResult, ShellBackend } from '../../core/backends/protocol';
import type { SharedTerminal } from './shared-terminal';

export interface TerminalShellBackendOptions extends FilesystemBackendOptions {
  terminal: SharedTerminal;
  /** Seconds, when execute() is given none. Default 120. */
  defaultTimeoutS?: number;
}

export class TerminalShellBackend extends FilesystemBackend implements ShellBackend {
  readonly id = `terminal-${randomBytes(4).toString('hex')}`;
  readonly terminal: SharedTerminal;
  private readonly defaultTimeoutS: number;

  constructor(options: TerminalShellBackendOptions) {
    super(options);
    this.terminal = options.terminal;
    this.defaultTimeoutS = options.defaultTimeoutS ?? DEFAULT_EXECUTE_TIMEOUT_S;
  }

  execute(command: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    return this.terminal.run(command, {
      timeoutS: options.timeoutS ?? this.defaultTimeoutS,
      signal: options.signal,
      onData: options.onData,
    });
  }
}
