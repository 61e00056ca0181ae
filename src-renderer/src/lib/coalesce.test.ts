import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { coalesce } from './coalesce';

describe('coalesce', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs once for a burst, and once more for requests made while it ran', async () => {
    let release: () => void = () => undefined;
    const work = vi.fn(() => new Promise<void>((r) => (release = r)));
    const c = coalesce(work, 100);
    c.request();
    c.request();
    c.request();
    expect(work).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(100);
    expect(work).toHaveBeenCalledTimes(1);
    // While it runs: asked twice, run once after.
    c.request();
    c.request();
    await vi.advanceTimersByTimeAsync(500);
    expect(work).toHaveBeenCalledTimes(1);
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(work).toHaveBeenCalledTimes(2);
    release();
    await vi.advanceTimersByTimeAsync(500);
    expect(work).toHaveBeenCalledTimes(2);
  });

  it('now() runs without the wait; a failed run does not stop the next; stop() ends it', async () => {
    const work = vi.fn(() => Promise.reject(new Error('no')));
    const c = coalesce(work, 100);
    c.now();
    await vi.advanceTimersByTimeAsync(0);
    expect(work).toHaveBeenCalledTimes(1);
    c.request();
    await vi.advanceTimersByTimeAsync(100);
    expect(work).toHaveBeenCalledTimes(2);
    c.request();
    c.stop();
    await vi.advanceTimersByTimeAsync(200);
    expect(work).toHaveBeenCalledTimes(2);
  });
});
