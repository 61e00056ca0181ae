// The window's terminals. Per thread: the person's own shell (`shell`, started on demand)
// and one view per command the agent ran (`cmd-N`, live while it runs, readable after).
// Terminals exist only for threads that exist (`isThread`), are bounded in number, and
// are closed with their thread and at shutdown.
//
// Flow control applies to the terminals a window shows: attach() marks one as shown (the
// window's acknowledgements then hold its pty back when the window falls behind),
// detach() ends that. Terminals nobody shows never pause.
import { ContractError } from '../contract';
import { CommandView, type CommandViewInfo } from './command-view';
import type { OutputMirrorOptions } from './output-mirror';
import { PersonShell, type PersonShellOptions } from './person-shell';

export const SHELL_TERMINAL_ID = 'shell';

export interface TerminalLimits {
  /** Person's shells running at once, all threads together; the least recently used idle one is closed. Default 8. */
  shells?: number;
  /** Finished command views kept per thread (the oldest go first). Default 30. */
  finishedPerThread?: number;
  /** Finished command views kept, all threads together. Default 200. */
  finishedTotal?: number;
}

export interface TerminalServiceOptions {
  rootDir: string;
  /** Whether a thread exists; terminals of others are refused. */
  isThread: (threadId: string) => boolean;
  shell?: Omit<PersonShellOptions, 'rootDir' | 'onExit' | 'mirror'>;
  mirror?: Omit<OutputMirrorOptions, 'pause' | 'resume'>;
  limits?: TerminalLimits;
}

/** A terminal's size in character cells. */
export interface TerminalSize {
  cols: number;
  rows: number;
}

/** Before any window showed a terminal: about what a Terminal panel holds. */
export const DEFAULT_COMMAND_SIZE: TerminalSize = { cols: 100, rows: 24 };

export type TerminalInfo =
  | { id: typeof SHELL_TERMINAL_ID; kind: 'shell'; running: boolean; sandboxed: false }
  | ({ kind: 'command' } & CommandViewInfo);

/** `end`: the terminal's characters delivered so far, this chunk included (attach's `at` is where its buffer ends). */
export type TerminalDataListener = (threadId: string, terminalId: string, data: string, end: number) => void;
export type TerminalChangeListener = (threadId: string) => void;

interface Shown {
  acks: boolean;
  off: () => void;
}

interface Terminal {
  snapshot(): string;
  /** Characters delivered so far (after snapshot(): where its text ends). */
  written(): number;
  write(data: string): void;
  resize(cols: number, rows: number): void;
  ack(chars: number): void;
  onData(listener: (data: string, end: number) => void, options?: { acks?: boolean }): () => void;
}

interface ThreadTerminals {
  shell?: PersonShell;
  shellUsedAt: number;
  commands: CommandView[];
}

/** The recorder an agent command reports to; see WindowShellBackend. */
export interface CommandRecorder {
  readonly view: CommandView;
  done(): void;
}

export class TerminalService {
  readonly rootDir: string;
  private readonly threads = new Map<string, ThreadTerminals>();
  private readonly connections = new Map<string, Shown>();
  private readonly attached = new Set<string>();
  private readonly dataListeners = new Set<TerminalDataListener>();
  private readonly changeListeners = new Set<TerminalChangeListener>();
  private readonly limits: Required<TerminalLimits>;
  private nextCommand = 0;
  /** The size the window's Terminal panel last reported: an agent command's pty starts at it. */
  private panelSize: TerminalSize = DEFAULT_COMMAND_SIZE;
  private disposed = false;

  constructor(private readonly options: TerminalServiceOptions) {
    this.rootDir = options.rootDir;
    this.limits = { shells: 8, finishedPerThread: 30, finishedTotal: 200, ...options.limits };
  }

  /** The thread's terminals: its shell first, then its command views, oldest first. */
  list(threadId: string): TerminalInfo[] {
    this.requireThread(threadId);
    const entry = this.threads.get(threadId);
    return [
      { id: SHELL_TERMINAL_ID, kind: 'shell', running: entry?.shell?.running ?? false, sandboxed: false },
      ...(entry?.commands ?? []).map((c) => ({ kind: 'command' as const, ...c.info() })),
    ];
  }

  /** A window shows this terminal: the person's shell starts if needed; returns the output so far. */
  /**
   * The window shows this terminal: its scrollback, and `at`, where that ends in the stream of
   * onData (a chunk may reach the window before this answer does; what of it is past `at` is new).
   */
  attach(threadId: string, terminalId: string): { buffer: string; at: number } {
    const terminal = this.terminal(threadId, terminalId, true);
    const key = keyOf(threadId, terminalId);
    this.attached.add(key);
    this.connect(threadId, terminalId, terminal);
    const buffer = terminal.snapshot();
    return { buffer, at: terminal.written() };
  }

  detach(threadId: string, terminalId: string): void {
    this.requireThread(threadId);
    const key = keyOf(threadId, terminalId);
    if (!this.attached.delete(key)) return;
    const terminal = this.terminal(threadId, terminalId, false);
    this.connect(threadId, terminalId, terminal);
  }

  input(threadId: string, terminalId: string, data: string): void {
    this.terminal(threadId, terminalId, true).write(data);
  }

  /**
   * A window's view of this terminal has this size. Also the size the next agent command's
   * pty starts at (the Terminal panel is as wide for every terminal; the window reports its
   * size for the person's shell even while the panel is collapsed, see TerminalPanel).
   */
  resize(threadId: string, terminalId: string, cols: number, rows: number): void {
    const terminal = this.terminal(threadId, terminalId, false);
    this.panelSize = { cols, rows };
    terminal.resize(cols, rows);
  }

  /** The size an agent command's pty starts at: the window's Terminal panel's. */
  commandSize(): TerminalSize {
    return { ...this.panelSize };
  }

  /** The window rendered this many characters (string length) of the terminal's data. */
  ack(threadId: string, terminalId: string, chars: number): void {
    this.terminal(threadId, terminalId, false).ack(chars);
  }

  onData(listener: TerminalDataListener): () => void {
    this.dataListeners.add(listener);
    return () => this.dataListeners.delete(listener);
  }

  /** A thread's list of terminals changed (a command started or ended, a shell started or closed). */
  onChange(listener: TerminalChangeListener): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** An agent command starts in the thread: its view shows it live. */
  startCommand(threadId: string, command: string, sandboxed: boolean): CommandRecorder {
    const entry = this.entry(threadId);
    const view = new CommandView(`cmd-${++this.nextCommand}`, command, sandboxed, this.options.mirror);
    entry.commands.push(view);
    this.connect(threadId, view.id, view);
    this.prune();
    this.changed(threadId);
    return {
      view,
      done: () => {
        this.prune();
        this.changed(threadId);
      },
    };
  }

  /** Closes one terminal: the person's shell (with everything in it) or a finished command's view. */
  async closeTerminal(threadId: string, terminalId: string): Promise<void> {
    this.requireThread(threadId);
    const entry = this.threads.get(threadId);
    if (!entry) return;
    if (terminalId === SHELL_TERMINAL_ID) {
      const shell = entry.shell;
      entry.shell = undefined;
      this.disconnect(threadId, terminalId);
      this.changed(threadId);
      await shell?.dispose();
      return;
    }
    const view = entry.commands.find((c) => c.id === terminalId);
    if (!view) throw new ContractError(`no terminal '${terminalId}' in this thread`, 'not_found');
    if (view.running) throw new ContractError('that command is still running; stop the run to end it', 'failed');
    this.dropView(threadId, entry, view);
    this.changed(threadId);
  }

  /** Ends every terminal of the thread (its shell and everything started in it). */
  async close(threadId: string): Promise<void> {
    const entry = this.threads.get(threadId);
    if (!entry) return;
    this.threads.delete(threadId);
    for (const key of [...this.connections.keys()]) {
      if (key.startsWith(`${threadId}\0`)) {
        this.connections.get(key)?.off();
        this.connections.delete(key);
        this.attached.delete(key);
      }
    }
    for (const view of entry.commands) view.dispose();
    await entry.shell?.dispose();
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.all([...this.threads.keys()].map((threadId) => this.close(threadId)));
    this.dataListeners.clear();
    this.changeListeners.clear();
  }

  /** Process ids of the running person's shells (for tests and diagnostics). */
  shellPids(): number[] {
    return [...this.threads.values()].flatMap((t) => (t.shell?.pid !== undefined ? [t.shell.pid] : []));
  }

  private requireThread(threadId: string): void {
    if (!this.options.isThread(threadId)) throw new ContractError(`thread '${threadId}' not found`, 'not_found');
  }

  private entry(threadId: string): ThreadTerminals {
    if (this.disposed) throw new ContractError('the app is shutting down', 'failed');
    this.requireThread(threadId);
    let entry = this.threads.get(threadId);
    if (!entry) {
      entry = { shellUsedAt: 0, commands: [] };
      this.threads.set(threadId, entry);
    }
    return entry;
  }

  private terminal(threadId: string, terminalId: string, startShell: boolean): Terminal {
    const entry = this.entry(threadId);
    if (terminalId === SHELL_TERMINAL_ID) {
      entry.shellUsedAt = Date.now();
      if (!entry.shell && startShell) {
        this.makeRoomForShell(threadId);
        const shell = new PersonShell({
          ...this.options.shell,
          rootDir: this.rootDir,
          ...(this.options.mirror ? { mirror: this.options.mirror } : {}),
          onExit: () => this.changed(threadId),
        });
        entry.shell = shell;
        this.connect(threadId, terminalId, shell);
        shell.start();
        this.changed(threadId);
      }
      return entry.shell ?? IDLE_SHELL;
    }
    const view = entry.commands.find((c) => c.id === terminalId);
    if (!view) throw new ContractError(`no terminal '${terminalId}' in this thread`, 'not_found');
    return view;
  }

  /** At most `limits.shells` person's shells: the least recently used one nobody shows goes first. */
  private makeRoomForShell(threadId: string): void {
    const open = [...this.threads.entries()].filter(([, t]) => t.shell !== undefined).sort(([, a], [, b]) => a.shellUsedAt - b.shellUsedAt);
    while (open.length >= this.limits.shells) {
      const index = Math.max(0, open.findIndex(([id]) => !this.attached.has(keyOf(id, SHELL_TERMINAL_ID))));
      const [id, entry] = open.splice(index, 1)[0]!;
      const shell = entry.shell;
      entry.shell = undefined;
      this.disconnect(id, SHELL_TERMINAL_ID);
      void shell?.dispose();
      if (id !== threadId) this.changed(id);
    }
  }

  /** Drops the oldest finished command views past the limits. */
  private prune(): void {
    for (const [threadId, entry] of this.threads) {
      const finished = entry.commands.filter((c) => !c.running);
      for (const view of finished.slice(0, Math.max(0, finished.length - this.limits.finishedPerThread))) this.dropView(threadId, entry, view);
    }
    const all = [...this.threads.entries()]
      .flatMap(([threadId, entry]) => entry.commands.filter((c) => !c.running).map((view) => ({ threadId, entry, view })))
      .sort((a, b) => a.view.startedAt.localeCompare(b.view.startedAt));
    for (const { threadId, entry, view } of all.slice(0, Math.max(0, all.length - this.limits.finishedTotal))) {
      this.dropView(threadId, entry, view);
      this.changed(threadId);
    }
  }

  private dropView(threadId: string, entry: ThreadTerminals, view: CommandView): void {
    entry.commands = entry.commands.filter((c) => c !== view);
    this.disconnect(threadId, view.id);
    view.dispose();
  }

  /** (Re)subscribes the service to a terminal's output, with flow control when a window shows it. */
  private connect(threadId: string, terminalId: string, terminal: Terminal): void {
    const key = keyOf(threadId, terminalId);
    const acks = this.attached.has(key);
    const current = this.connections.get(key);
    if (current && current.acks === acks) return;
    current?.off();
    const off = terminal.onData(
      (data, end) => {
        for (const listener of this.dataListeners) {
          try {
            listener(threadId, terminalId, data, end);
          } catch {
            // one broken window must not stop the others
          }
        }
      },
      { acks },
    );
    this.connections.set(key, { acks, off });
  }

  private disconnect(threadId: string, terminalId: string): void {
    const key = keyOf(threadId, terminalId);
    this.connections.get(key)?.off();
    this.connections.delete(key);
    this.attached.delete(key);
  }

  private changed(threadId: string): void {
    for (const listener of this.changeListeners) listener(threadId);
  }
}

/** A thread's shell that is not running: nothing to show, typing and acks go nowhere. */
const IDLE_SHELL: Terminal = { snapshot: () => '', written: () => 0, write: () => undefined, resize: () => undefined, ack: () => undefined, onData: () => () => undefined };

function keyOf(threadId: string, terminalId: string): string {
  return `${threadId}\0${terminalId}`;
}
