import { describe, it, expect } from 'vitest';
import { AckBatcher } from './ack-batcher';

function manualTimers() {
  const pending: Array<{ fn: () => void; cleared: boolean }> = [];
  return {
    setTimer: (fn: () => void) => {
      const t = { fn, cleared: false };
      pending.push(t);
      return t;
    },
    clearTimer: (t: unknown) => {
      (t as { cleared: boolean }).cleared = true;
    },
    fire: () => {
      for (const t of pending.splice(0)) if (!t.cleared) t.fn();
    },
  };
}

describe('AckBatcher', () => {
  it('sends one ack per batch after the delay', () => {
    const sent: number[] = [];
    const timers = manualTimers();
    const b = new AckBatcher((n) => sent.push(n), { maxBytes: 100, setTimer: timers.setTimer, clearTimer: timers.clearTimer });
    b.add(10);
    b.add(20);
    expect(sent).toEqual([]);
    timers.fire();
    expect(sent).toEqual([30]);
  });

  it('sends at once when the batch is full', () => {
    const sent: number[] = [];
    const timers = manualTimers();
    const b = new AckBatcher((n) => sent.push(n), { maxBytes: 100, setTimer: timers.setTimer, clearTimer: timers.clearTimer });
    b.add(60);
    b.add(50);
    expect(sent).toEqual([110]);
    timers.fire();
    expect(sent).toEqual([110]);
  });

  it('flushes and discards on demand, ignoring empty adds', () => {
    const sent: number[] = [];
    const timers = manualTimers();
    const b = new AckBatcher((n) => sent.push(n), { setTimer: timers.setTimer, clearTimer: timers.clearTimer });
    b.add(0);
    b.flush();
    expect(sent).toEqual([]);
    b.add(5);
    b.flush();
    b.add(7);
    b.discard();
    timers.fire();
    expect(sent).toEqual([5]);
  });
});
