// The project folder for a thread in the window: commands run as the folder's ShellBackend
// runs them (LocalShellBackend: each in a pty of its own, in the sandbox when there is one;
// RemoteShellBackend: in a remote pty over the folder's ssh connection), and each is shown
// live in a command view of the thread's Terminal region, where the person can type into it.
import { LocalShellBackend, type LocalShellBackendOptions } from '../../core/backends/filesystem/local-shell';
import type { ExecuteOptions, ExecuteResult, ShellBackend } from '../../core/backends/protocol';
import { RemoteShellBackend, type RemoteShellBackendOptions } from '../../core/backends/remote/remote-shell';
import type { TerminalService } from './terminal-service';

interface ShownIn {
  threadId: string;
  terminals: TerminalService;
}

export type WindowShellBackendOptions = LocalShellBackendOptions & ShownIn;

export class WindowShellBackend extends LocalShellBackend {
  private readonly shownIn: ShownIn;
  private readonly sandboxed: boolean;

  constructor(options: WindowShellBackendOptions) {
    super(options);
    this.shownIn = options;
    this.sandboxed = options.sandbox !== undefined;
  }

  override execute(command: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    return executeShown(this.shownIn, this.sandboxed && options.sandbox !== false, command, options, (o) => super.execute(command, o));
  }
}

export type WindowRemoteShellBackendOptions = RemoteShellBackendOptions & ShownIn;

/** A remote folder's commands (SPEC §13), shown live as a local folder's are. */
export class WindowRemoteShellBackend extends RemoteShellBackend {
  private readonly shownIn: ShownIn;

  constructor(options: WindowRemoteShellBackendOptions) {
    super(options);
    this.shownIn = options;
  }

  override execute(command: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    return executeShown(this.shownIn, this.sandbox !== undefined && options.sandbox !== false, command, options, (o) => super.execute(command, o));
  }
}

/**
 * A provider sandbox folder's commands (SPEC §18), shown live as a local folder's are: the
 * folder's own backend (its bring-back included) with each command's output mirrored into a
 * command view. A provider's command has no pty here to type into.
 */
export function shownShellBackend(inner: ShellBackend, shownIn: ShownIn): ShellBackend {
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'execute') return (command: string, options: ExecuteOptions = {}) => executeShown(shownIn, true, command, options, (o) => target.execute(command, o));
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

async function executeShown(
  { threadId, terminals }: ShownIn,
  sandboxed: boolean,
  command: string,
  options: ExecuteOptions,
  run: (options: ExecuteOptions) => Promise<ExecuteResult>,
): Promise<ExecuteResult> {
  let recorder;
  try {
    recorder = terminals.startCommand(threadId, command, sandboxed);
  } catch {
    // The thread is gone or the app shuts down: run it unseen rather than not at all.
    return run(options);
  }
  const { view } = recorder;
  let result: ExecuteResult = { output: '', exitCode: null, truncated: false };
  try {
    result = await run({
      ...options,
      // The pty is as wide as the view that shows it (pytest's `[100%]` must not wrap there).
      ...terminals.commandSize(),
      attach: (live) => view.attach(live),
      onData: (chunk) => {
        options.onData?.(chunk);
        view.output(chunk);
      },
    });
    return result;
  } catch (err) {
    // Failed before it answered (the place could not run it): its tab says why, not only a status.
    result = { output: `Error: ${err instanceof Error ? err.message : String(err)}`, exitCode: 1, truncated: false };
    throw err;
  } finally {
    view.finish(result);
    recorder.done();
  }
}
