// Batches terminal acknowledgements: xterm reports each written chunk, the main process
// wants to hear about them in bulk (every `maxBytes` or 100 ms, whichever comes first).

const DELAY_MS = 100;

export interface AckBatcherOptions {
  maxBytes?: number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

export class AckBatcher {
  private pending = 0;
  private timer: unknown = null;
  private readonly maxBytes: number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;

  constructor(private readonly send: (bytes: number) => void, options: AckBatcherOptions = {}) {
    this.maxBytes = options.maxBytes ?? 64 * 1024;
    this.setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = options.clearTimer ?? ((handle) => clearTimeout(handle as ReturnType<typeof setTimeout>));
  }

  add(bytes: number): void {
    if (!(bytes > 0)) return;
    this.pending += bytes;
    if (this.pending >= this.maxBytes) this.flush();
    else if (this.timer === null) this.timer = this.setTimer(() => this.flush(), DELAY_MS);
  }

  flush(): void {
    if (this.timer !== null) {
      this.clearTimer(this.timer);
      this.timer = null;
    }
    if (this.pending === 0) return;
    const bytes = this.pending;
    this.pending = 0;
    this.send(bytes);
  }

  /** Drops what is pending without sending (the terminal it counted for is gone). */
  discard(): void {
    if (this.timer !== null) this.clearTimer(this.timer);
    this.timer = null;
    this.pending = 0;
  }
}
