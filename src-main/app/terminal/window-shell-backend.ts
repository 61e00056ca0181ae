// The project folder for a thread in the window: commands run as LocalShellBackend runs
// them (each in a pty of its own, in the sandbox when there is one), and each is shown
// live in a command view of the thread's Terminal region, where the person can type into it.
import { LocalShellBackend, type LocalShellBackendOptions } from '../../core/backends/local-shell';
import type { ExecuteOptions, ExecuteResult } from '../../core/backends/protocol';
import type { TerminalService } from './terminal-service';

export interface WindowShellBackendOptions extends LocalShellBackendOptions {
  threadId: string;
  terminals: TerminalService;
}

export class WindowShellBackend extends LocalShellBackend {
  private readonly threadId: string;
  private readonly terminals: TerminalService;
  private readonly sandboxed: boolean;

  constructor(options: WindowShellBackendOptions) {
    super(options);
    this.threadId = options.threadId;
    this.terminals = options.terminals;
    this.sandboxed = options.sandbox !== undefined;
  }

  override async execute(command: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    let recorder;
    try {
      recorder = this.terminals.startCommand(this.threadId, command, this.sandboxed && options.sandbox !== false);
    } catch {
      // The thread is gone or the app shuts down: run it unseen rather than not at all.
      return super.execute(command, options);
    }
    const { view } = recorder;
    let result: ExecuteResult = { output: '', exitCode: null, truncated: false };
    try {
      result = await super.execute(command, {
        ...options,
        attach: (live) => view.attach(live),
        onData: (chunk) => {
          options.onData?.(chunk);
          view.output(chunk);
        },
      });
      return result;
    } finally {
      view.finish(result);
      recorder.done();
    }
  }
}
