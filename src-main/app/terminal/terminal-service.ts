// The window's terminals: one SharedTerminal per thread, created on first use, all in the
// project folder. Output of every terminal goes to the service's listeners with its thread.
import { SharedTerminal, type SharedTerminalOptions } from './shared-terminal';

export interface TerminalServiceOptions {
  rootDir: string;
  /** Passed to every terminal (rootDir excepted). */
  terminal?: Omit<SharedTerminalOptions, 'rootDir'>;
}

export type TerminalDataListener = (threadId: string, data: string) => void;

export interface TerminalListenOptions {
  /** The listener acknowledges what it rendered through ack(); enables flow control. */
  acks?: boolean;
}

interface Subscription {
  listener: TerminalDataListener;
  acks: boolean;
  /** Per thread, the terminal's unsubscribe function. */
  detach: Map<string, () => void>;
}

export class TerminalService {
  readonly rootDir: string;
  private readonly terminalOptions: Omit<SharedTerminalOptions, 'rootDir'>;
  private readonly terminals = new Map<string, SharedTerminal>();
  private readonly subscriptions = new Set<Subscription>();
  private disposed = false;

  constructor(options: TerminalServiceOptions) {
    this.rootDir = options.rootDir;
    this.terminalOptions = options.terminal ?? {};
  }

  /** The thread's terminal, created (not yet started) on first use. */
  terminalFor(threadId: string): SharedTerminal {
    const existing = this.terminals.get(threadId);
    if (existing) return existing;
    if (this.disposed) throw new Error('The terminal service was disposed');
    const terminal = new SharedTerminal({ ...this.terminalOptions, rootDir: this.rootDir });
    this.terminals.set(threadId, terminal);
    for (const sub of this.subscriptions) this.connect(sub, threadId, terminal);
    return terminal;
  }

  /** Starts the thread's shell if needed and returns its recent output for a window to show. */
  attach(threadId: string): string {
    const terminal = this.terminalFor(threadId);
    void terminal.start();
    return terminal.snapshot();
  }

  input(threadId: string, data: string): void {
    this.terminalFor(threadId).write(data);
  }

  resize(threadId: string, cols: number, rows: number): void {
    this.terminalFor(threadId).resize(cols, rows);
  }

  ack(threadId: string, chars: number): void {
    this.terminals.get(threadId)?.ack(chars);
  }

  /** Output of every terminal (present and future); returns the unsubscribe function. */
  onData(listener: TerminalDataListener, options: TerminalListenOptions = {}): () => void {
    const sub: Subscription = { listener, acks: options.acks === true, detach: new Map() };
    this.subscriptions.add(sub);
    for (const [threadId, terminal] of this.terminals) this.connect(sub, threadId, terminal);
    return () => {
      if (!this.subscriptions.delete(sub)) return;
      for (const detach of sub.detach.values()) detach();
      sub.detach.clear();
    };
  }

  /** Ends the thread's terminal (its shell and everything started in it). */
  async close(threadId: string): Promise<void> {
    const terminal = this.terminals.get(threadId);
    if (!terminal) return;
    this.terminals.delete(threadId);
    for (const sub of this.subscriptions) {
      sub.detach.get(threadId)?.();
      sub.detach.delete(threadId);
    }
    await terminal.dispose();
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.all([...this.terminals.keys()].map((threadId) => this.close(threadId)));
    this.subscriptions.clear();
  }

  private connect(sub: Subscription, threadId: string, terminal: SharedTerminal): void {
    const forward = (data: string): void => sub.listener(threadId, data);
    sub.detach.set(threadId, terminal.onData(forward, { acks: sub.acks }));
  }
}
