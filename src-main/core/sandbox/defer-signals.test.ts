// Overlapping critical sections (many layers applied back to back): one listener per signal,
// so no MaxListenersExceededWarning (a signal's delivery: write-layer.test.ts).
import { describe, expect, it } from 'vitest';
import { withSignalsDeferred } from './defer-signals';

const settle = async (): Promise<void> => {
  for (let i = 0; i < 4; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('withSignalsDeferred', () => {
  it('adds one listener for any number of sections at once, and removes it after the last', async () => {
    const before = process.listenerCount('SIGHUP');
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 30; i++) withSignalsDeferred(() => i);
      expect(process.listenerCount('SIGHUP')).toBe(before + 1);
      await settle();
      expect(process.listenerCount('SIGHUP')).toBe(before);
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
