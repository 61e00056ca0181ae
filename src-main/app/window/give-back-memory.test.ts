// Start-up work's garbage is given back to the system by one collection, and no context made
// afterwards has a `gc`.
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { giveBackMemory } from './give-back-memory';

describe('giveBackMemory', () => {
  it("gives back the pages start-up work's garbage used, and leaves no gc to any context", () => {
    // ~100 MB of objects, as a big folder's walk makes, let go when the walk returns.
    const walk = (): number => Array.from({ length: 600_000 }, (_, i) => ({ i, s: `path/to/file-${i}.ts`.repeat(4) })).length;
    expect(walk()).toBe(600_000);
    const held = process.memoryUsage().heapTotal;
    giveBackMemory();
    expect(process.memoryUsage().heapTotal).toBeLessThan(held - 50 * 1024 * 1024);
    expect(runInNewContext('typeof gc')).toBe('undefined');
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe('undefined');
    // Again: the collector taken once is used again.
    giveBackMemory();
  });
});
