// A test's way to show that something does not wait for a timer: while `work` runs no timer
// set with setTimeout fires, so whatever ends it is not a bound nor a back-off.

import { vi } from 'vitest';

export async function withClockStopped<T>(work: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  try {
    return await work();
  } finally {
    vi.useRealTimers();
  }
}
