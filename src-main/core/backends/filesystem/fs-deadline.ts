// Ends a search early: after a time budget or when the caller's AbortSignal fires.

export class SearchDeadline {
  private stoppedNow = false;
  private readonly timer: ReturnType<typeof setTimeout> | undefined;
  private readonly listeners = new Set<() => void>();
  private readonly onAbort = () => this.stop();

  constructor(budgetMs: number, private readonly signal?: AbortSignal) {
    if (Number.isFinite(budgetMs)) {
      this.timer = setTimeout(() => this.stop(), Math.max(0, budgetMs));
      this.timer.unref?.();
    }
    if (signal?.aborted) this.stoppedNow = true;
    else signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  get stopped(): boolean {
    return this.stoppedNow;
  }

  /** Runs `listener` once when the deadline passes (at once if it already has). Returns an unsubscribe function. */
  onStop(listener: () => void): () => void {
    if (this.stoppedNow) {
      listener();
      return () => {};
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.onAbort);
    this.listeners.clear();
  }

  private stop(): void {
    if (this.stoppedNow) return;
    this.stoppedNow = true;
    for (const listener of [...this.listeners]) listener();
    this.listeners.clear();
  }
}
