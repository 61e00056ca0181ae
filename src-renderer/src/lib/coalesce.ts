// Runs `work` once for a burst of requests: the first request waits `delayMs` for the rest; a
// request while `work` runs makes it run once more afterwards (never two at a time).

export interface Coalesced {
  /** Asks for a run. */
  request(): void;
  /** Runs now (no wait), or once more after the one under way. */
  now(): void;
  /** No more runs; one under way finishes. */
  stop(): void;
}

export function coalesce(work: () => Promise<void>, delayMs: number): Coalesced {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  let again = false;
  let stopped = false;
  const run = (): void => {
    timer = undefined;
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    void work()
      .catch(() => undefined)
      .finally(() => {
        running = false;
        if (again && !stopped) {
          again = false;
          run();
        }
      });
  };
  return {
    request() {
      if (stopped || timer !== undefined) return;
      if (running) {
        again = true;
        return;
      }
      timer = setTimeout(run, delayMs);
    },
    now() {
      if (timer !== undefined) clearTimeout(timer);
      run();
    },
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
