import { describe, expect, it } from 'vitest';
import { AbortedError } from '../../core/models/errors';
import { defaultMaxConcurrentRuns, RunSlot, RunSlots } from './run-slots';

describe('run slots', () => {
  it('lets `limit` runs go, the rest wait in order, a stop ends a wait, a larger limit starts waiters', async () => {
    const slots = new RunSlots(1);
    const order: string[] = [];
    const first = await slots.acquire(new AbortController().signal);
    expect(slots.free()).toBe(false);
    const stop = new AbortController();
    const second = slots.acquire(new AbortController().signal).then((release) => (order.push('second'), release));
    const stopped = slots.acquire(stop.signal);
    const third = slots.acquire(new AbortController().signal).then((release) => (order.push('third'), release));
    stop.abort();
    await expect(stopped).rejects.toBeInstanceOf(AbortedError);
    first();
    first(); // a release twice frees one slot only
    const releaseSecond = await second;
    expect(order).toEqual(['second']);
    slots.setLimit(2);
    const releaseThird = await third;
    expect(order).toEqual(['second', 'third']);
    releaseSecond();
    releaseThird();
    expect(slots.free()).toBe(true);
  });

  it('a run’s slot goes to another while it waits for the person, and is taken again (queued if need be) after', async () => {
    const slots = new RunSlots(1);
    const told: string[] = [];
    const signal = new AbortController().signal;
    const first = new RunSlot(slots, (queued) => told.push(`first ${queued ? 'queued' : 'goes'}`));
    const second = new RunSlot(slots, (queued) => told.push(`second ${queued ? 'queued' : 'goes'}`));
    await first.take(signal);
    const secondTook = second.take(signal);
    first.pause();
    first.pause(); // two questions at once: one slot given back
    await secondTook;
    await first.resume(signal); // one question still open: nothing taken
    const firstBack = first.resume(signal);
    second.end();
    await firstBack;
    expect(told).toEqual(['second queued', 'second goes', 'first queued', 'first goes']);
    expect(slots.free()).toBe(false);
    first.end();
    first.end();
    expect(slots.free()).toBe(true);
  });

  it('defaults to two runs per core, at most one per GiB, never fewer than 4', () => {
    const GIB = 1024 ** 3;
    expect(defaultMaxConcurrentRuns(2, 23 * GIB)).toBe(4);
    expect(defaultMaxConcurrentRuns(8, 64 * GIB)).toBe(16);
    expect(defaultMaxConcurrentRuns(16, 6 * GIB)).toBe(6);
    expect(defaultMaxConcurrentRuns(1, 1 * GIB)).toBe(4);
  });
});
