// The window's terminals: one SharedTerminal per thread, created on first use, all in the
// project folder. Output of every terminal goes to the service's listeners with its thread.
//
// Flow control applies to the terminals a window shows: attach(threadId) marks the thread's
// terminal as shown (its acknowledging listeners then hold the pty when the window falls
// behind), detach(threadId) ends that. Terminals nobody shows never pause.
import { SharedTerminal, type SharedTerminalOptions } from './shared-terminal';

export interface TerminalServiceOptions {
  rootDir: string;
  /** Passed to every terminal (rootDir excepted). */
  terminal?: Omit<SharedTerminalOptions, 'rootDir'>;
}

export type TerminalDataListener = (threadId: string, data: string) => void;

export interface TerminalListenOptions {
  /** The listener acknowledges what it rendered through ack(); enables flow control for attached threads. */
  acks?: boolean;
}

interface Connection {
  forward: (data: string) => void;
  off: () => void;
}

interface Subscription {
  listener: TerminalDataListener;
  acks: boolean;
  connections: Map<string, Connection>;
}

export class TerminalService {
  readonly rootDir: string;
  private readonly terminalOptions: Omit<SharedTerminalOptions, 'rootDir'>;
  private readonly terminals = new Map<string, SharedTerminal>();
  private readonly attached = new Set<string>();
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

  /**
   * A window shows the thread's terminal: starts its shell if needed and returns the recent
   * output to show; from now on the window's acknowledgements govern flow control.
   */
  attach(threadId: string): string {
    const terminal = this.terminalFor(threadId);
    if (!this.attached.has(threadId)) {
      this.attached.add(threadId);
      this.reconnect(threadId, terminal);
    }
    void terminal.start();
    return terminal.snapshot();
  }

  /** The window no longer shows the thread's terminal: it will not be paused for it. */
  detach(threadId: string): void {
    const terminal = this.terminals.get(threadId);
    if (!this.attached.delete(threadId) || !terminal) return;
    this.reconnect(threadId, terminal);
  }

  input(threadId: string, data: string): void {
    this.terminalFor(threadId).write(data);
  }

  resize(threadId: string, cols: number, rows: number): void {
    this.terminalFor(threadId).resize(cols, rows);
  }

  /** The window rendered this many characters (string length) of the thread's data. */
  ack(threadId: string, chars: number): void {
    this.terminals.get(threadId)?.ack(chars);
  }

  /** Output of every terminal (present and future); returns the unsubscribe function. */
  onData(listener: TerminalDataListener, options: TerminalListenOptions = {}): () => void {
    const sub: Subscription = { listener, acks: options.acks === true, connections: new Map() };
    this.subscriptions.add(sub);
    for (const [threadId, terminal] of this.terminals) this.connect(sub, threadId, terminal);
    return () => {
      if (!this.subscriptions.delete(sub)) return;
      for (const connection of sub.connections.values()) connection.off();
      sub.connections.clear();
    };
  }

  /** Ends the thread's terminal (its shell and everything started in it). */
  async close(threadId: string): Promise<void> {
    const terminal = this.terminals.get(threadId);
    if (!terminal) return;
    this.terminals.delete(threadId);
    this.attached.delete(threadId);
    for (const sub of this.subscriptions) {
      sub.connections.get(threadId)?.off();
      sub.connections.delete(threadId);
    }
    await terminal.dispose();
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.all([...this.terminals.keys()].map((threadId) => this.close(threadId)));
    this.subscriptions.clear();
  }

  private connect(sub: Subscription, threadId: string, terminal: SharedTerminal): void {
    const forward = sub.connections.get(threadId)?.forward ?? ((data: string): void => sub.listener(threadId, data));
    const off = terminal.onData(forward, { acks: sub.acks && this.attached.has(threadId) });
    sub.connections.set(threadId, { forward, off });
  }

  /** Subscribes the listeners again, with flow control as the thread's attachment now says. */
  private reconnect(threadId: string, terminal: SharedTerminal): void {
    for (const sub of this.subscriptions) if (sub.acks) this.connect(sub, threadId, terminal);
  }
}
