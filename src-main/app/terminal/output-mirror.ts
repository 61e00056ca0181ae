// The terminal's live mirror: output is coalesced into chunks (at most `chunkChars`, at
// most every `flushMs`), kept in a scrollback ring for windows that attach later, and
// delivered to listeners. Flow control: a listener that acknowledges what it rendered
// (`acks: true`) makes the mirror pause its source when too much is unacknowledged, and
// resume once the window caught up. With no acknowledging listener nothing ever pauses.
// Sizes count string length (UTF-16 code units), as a window would acknowledge them.

export interface OutputMirrorOptions {
  pause: () => void;
  resume: () => void;
  /** Scrollback kept for snapshot(). Default 256 KiB. */
  scrollbackChars?: number;
  /** Largest chunk handed to listeners. Default 64 KiB. */
  chunkChars?: number;
  /** How long output is gathered before it is delivered. Default 16 ms. */
  flushMs?: number;
  /** Pause the source above this many unacknowledged characters. Default 512 KiB. */
  highWaterMark?: number;
  /** Resume below this. Default 128 KiB. */
  lowWaterMark?: number;
  /**
   * A window that acknowledged nothing for this long while the source was paused is
   * taken to be gone: flow control is suspended until it acknowledges again. Default 30 s.
   */
  stallResumeMs?: number;
}

/** `end`: how many characters the terminal has delivered, this chunk included (a snapshot's `written` says where it stands). */
export type MirrorListener = (data: string, end: number) => void;

export interface MirrorSubscribeOptions {
  /** The listener will call ack() for what it rendered. */
  acks?: boolean;
}

export class OutputMirror {
  private readonly scrollbackChars: number;
  private readonly chunkChars: number;
  private readonly flushMs: number;
  private readonly highWaterMark: number;
  private readonly lowWaterMark: number;
  private readonly stallResumeMs: number;
  private readonly listeners = new Map<MirrorListener, boolean>();
  private ackingListeners = 0;
  private pending = '';
  private timer: NodeJS.Timeout | undefined;
  private ring: string[] = [];
  private ringLength = 0;
  private unacked = 0;
  /** Characters delivered so far. */
  private delivered = 0;
  private isPaused = false;
  /** Set when a window stopped acknowledging; cleared by its next ack. */
  private suspended = false;
  private stallTimer: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(private readonly options: OutputMirrorOptions) {
    this.scrollbackChars = options.scrollbackChars ?? 256 * 1024;
    this.chunkChars = Math.max(16, options.chunkChars ?? 64 * 1024);
    this.flushMs = options.flushMs ?? 16;
    this.highWaterMark = options.highWaterMark ?? 512 * 1024;
    this.lowWaterMark = Math.min(options.lowWaterMark ?? 128 * 1024, this.highWaterMark);
    this.stallResumeMs = options.stallResumeMs ?? 30_000;
  }

  get paused(): boolean {
    return this.isPaused;
  }

  get unacknowledged(): number {
    return this.unacked;
  }

  push(text: string): void {
    if (this.disposed || text.length === 0) return;
    this.pending += text;
    if (this.pending.length >= this.chunkChars) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.flushMs);
  }

  /** Delivers everything gathered so far. */
  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.pending.length > 0) {
      let size = Math.min(this.chunkChars, this.pending.length);
      // Never split a surrogate pair.
      if (size < this.pending.length && isHighSurrogate(this.pending.charCodeAt(size - 1))) size -= 1;
      const chunk = this.pending.slice(0, size);
      this.pending = this.pending.slice(size);
      this.deliver(chunk);
    }
  }

  /** Characters delivered so far: after snapshot(), where its text ends in the stream listeners get. */
  get written(): number {
    return this.delivered;
  }

  /** The scrollback, starting at a line boundary when the ring has been cut. */
  snapshot(): string {
    this.flush();
    const text = this.ring.join('');
    if (this.ring.length > 1) this.ring = [text];
    if (this.ringLength < this.scrollbackChars) return text;
    const nl = text.indexOf('\n');
    return nl !== -1 && nl < 4096 ? text.slice(nl + 1) : text;
  }

  /** Adds a listener; returns its unsubscribe function. */
  onData(listener: MirrorListener, options: MirrorSubscribeOptions = {}): () => void {
    const acks = options.acks === true;
    const previous = this.listeners.get(listener);
    if (previous !== undefined) this.unsubscribe(listener);
    this.listeners.set(listener, acks);
    if (acks) this.ackingListeners += 1;
    return () => this.unsubscribe(listener);
  }

  ack(chars: number): void {
    if (!Number.isFinite(chars) || chars <= 0) return;
    this.suspended = false;
    this.unacked = Math.max(0, this.unacked - chars);
    if (this.isPaused) {
      if (this.unacked <= this.lowWaterMark) this.setPaused(false);
      else this.armStallTimer();
    }
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.timer = this.stallTimer = undefined;
    this.listeners.clear();
    this.ackingListeners = 0;
    this.pending = '';
  }

  private unsubscribe(listener: MirrorListener): void {
    const acks = this.listeners.get(listener);
    if (acks === undefined) return;
    this.listeners.delete(listener);
    if (!acks) return;
    this.ackingListeners -= 1;
    if (this.ackingListeners === 0) {
      this.unacked = 0;
      this.suspended = false;
      if (this.isPaused) this.setPaused(false);
    }
  }

  private deliver(chunk: string): void {
    this.delivered += chunk.length;
    this.ring.push(chunk);
    this.ringLength += chunk.length;
    while (this.ring.length > 1 && this.ringLength - (this.ring[0]?.length ?? 0) >= this.scrollbackChars) {
      this.ringLength -= this.ring.shift()?.length ?? 0;
    }
    if (this.ringLength > this.scrollbackChars) {
      const first = this.ring[0] ?? '';
      const cut = this.ringLength - this.scrollbackChars;
      this.ring[0] = first.slice(isLowSurrogate(first.charCodeAt(cut)) ? cut + 1 : cut);
      this.ringLength = this.ring.reduce((sum, part) => sum + part.length, 0);
    }
    const flowControlled = this.ackingListeners > 0 && !this.suspended;
    if (flowControlled) this.unacked += chunk.length;
    for (const listener of [...this.listeners.keys()]) {
      try {
        listener(chunk, this.delivered);
      } catch {
        // One broken window must not stop the others or the shell.
      }
    }
    if (flowControlled && !this.isPaused && this.unacked > this.highWaterMark) this.setPaused(true);
  }

  private setPaused(paused: boolean): void {
    this.isPaused = paused;
    if (paused) {
      this.options.pause();
      this.armStallTimer();
    } else {
      if (this.stallTimer) clearTimeout(this.stallTimer);
      this.stallTimer = undefined;
      this.options.resume();
    }
  }

  private armStallTimer(): void {
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.stallTimer = setTimeout(() => {
      this.stallTimer = undefined;
      if (!this.isPaused) return;
      this.suspended = true;
      this.unacked = 0;
      this.setPaused(false);
    }, this.stallResumeMs);
    this.stallTimer.unref?.();
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * A terminal a window follows through a mirror (an agent's command, the person's shell): what
 * the terminal service asks of each. The mirror pauses and resumes the terminal's output as the
 * window keeps up.
 */
export abstract class MirroredTerminal {
  protected readonly mirror: OutputMirror;

  constructor(options: Omit<OutputMirrorOptions, 'pause' | 'resume'> = {}) {
    this.mirror = new OutputMirror({ ...options, pause: () => this.pauseOutput(), resume: () => this.resumeOutput() });
  }

  protected abstract pauseOutput(): void;
  protected abstract resumeOutput(): void;

  snapshot(): string {
    return this.mirror.snapshot();
  }

  written(): number {
    return this.mirror.written;
  }

  onData(listener: MirrorListener, options?: MirrorSubscribeOptions): () => void {
    return this.mirror.onData(listener, options);
  }

  ack(chars: number): void {
    this.mirror.ack(chars);
  }
}
