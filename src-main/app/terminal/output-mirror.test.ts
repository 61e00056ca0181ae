import { afterEach, describe, expect, it, vi } from 'vitest';
import { OutputMirror, type OutputMirrorOptions } from './output-mirror';

const mirrors: OutputMirror[] = [];
afterEach(() => {
  for (const mirror of mirrors.splice(0)) mirror.dispose();
  vi.useRealTimers();
});

function makeMirror(options: Partial<OutputMirrorOptions> = {}) {
  const calls: string[] = [];
  const mirror = new OutputMirror({ pause: () => calls.push('pause'), resume: () => calls.push('resume'), ...options });
  mirrors.push(mirror);
  return { mirror, calls };
}

describe('OutputMirror', () => {
  it('says where each chunk ends in its stream, and a snapshot where it ends: past that, a chunk is new to whoever holds the snapshot', () => {
    const { mirror } = makeMirror({ chunkChars: 16, scrollbackChars: 40 });
    const ends: number[] = [];
    mirror.onData((data, end) => ends.push(end));
    mirror.push('x'.repeat(40));
    mirror.flush();
    expect(ends).toEqual([16, 32, 40]);
    mirror.push('tail');
    // Past the scrollback: the snapshot is cut, its end is still the stream's.
    expect(mirror.snapshot().endsWith('tail')).toBe(true);
    expect(mirror.written).toBe(44);
    expect(ends.at(-1)).toBe(44);
  });

  it('coalesces small writes into one delivery', () => {
    vi.useFakeTimers();
    const { mirror } = makeMirror({ flushMs: 16 });
    const got: string[] = [];
    mirror.onData((data) => got.push(data));
    mirror.push('a');
    mirror.push('b');
    mirror.push('c');
    vi.advanceTimersByTime(15);
    expect(got).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(got).toEqual(['abc']);
  });

  it('delivers big output at once in chunks of at most chunkChars, keeping surrogate pairs whole', () => {
    const { mirror } = makeMirror({ chunkChars: 16 });
    const got: string[] = [];
    mirror.onData((data) => got.push(data));
    const text = `${'x'.repeat(15)}😀${'y'.repeat(20)}`;
    mirror.push(text);
    mirror.flush();
    expect(got.join('')).toBe(text);
    expect(got.every((chunk) => chunk.length <= 16)).toBe(true);
    expect(got[0]).toBe('x'.repeat(15));
  });

  it('keeps a bounded scrollback that starts at a line boundary once cut', () => {
    const { mirror } = makeMirror({ scrollbackChars: 100, chunkChars: 16 });
    mirror.push('short\n');
    expect(mirror.snapshot()).toBe('short\n');
    for (let i = 0; i < 50; i++) mirror.push(`line ${i}\n`);
    const snapshot = mirror.snapshot();
    expect(snapshot.length).toBeLessThanOrEqual(100);
    expect(snapshot.endsWith('line 49\n')).toBe(true);
    expect(snapshot.startsWith('line ')).toBe(true);
  });

  it('pauses above the high-water mark for an acknowledging listener and resumes below the low one', () => {
    const { mirror, calls } = makeMirror({ highWaterMark: 100, lowWaterMark: 40, chunkChars: 50 });
    mirror.onData(() => undefined, { acks: true });
    mirror.push('x'.repeat(100));
    mirror.flush();
    expect(mirror.paused).toBe(false);
    mirror.push('x'.repeat(10));
    mirror.flush();
    expect(mirror.paused).toBe(true);
    expect(calls).toEqual(['pause']);
    mirror.ack(50);
    expect(mirror.paused).toBe(true);
    mirror.ack(30);
    expect(mirror.paused).toBe(false);
    expect(calls).toEqual(['pause', 'resume']);
    expect(mirror.unacknowledged).toBe(30);
  });

  it('never pauses without an acknowledging listener, and resumes when the last one leaves', () => {
    const { mirror, calls } = makeMirror({ highWaterMark: 10, lowWaterMark: 5 });
    mirror.onData(() => undefined);
    mirror.push('x'.repeat(1000));
    mirror.flush();
    expect(mirror.paused).toBe(false);
    const off = mirror.onData(() => undefined, { acks: true });
    mirror.push('x'.repeat(20));
    mirror.flush();
    expect(mirror.paused).toBe(true);
    off();
    expect(mirror.paused).toBe(false);
    expect(mirror.unacknowledged).toBe(0);
    expect(calls).toEqual(['pause', 'resume']);
  });

  it('suspends flow control when a paused window stops acknowledging', () => {
    vi.useFakeTimers();
    const { mirror } = makeMirror({ highWaterMark: 10, lowWaterMark: 5, stallResumeMs: 50 });
    mirror.onData(() => undefined, { acks: true });
    mirror.push('x'.repeat(20));
    mirror.flush();
    expect(mirror.paused).toBe(true);
    vi.advanceTimersByTime(49);
    expect(mirror.paused).toBe(true);
    vi.advanceTimersByTime(1);
    expect(mirror.paused).toBe(false);
    mirror.push('x'.repeat(100));
    mirror.flush();
    expect(mirror.paused).toBe(false);
    mirror.ack(1);
    mirror.push('x'.repeat(20));
    mirror.flush();
    expect(mirror.paused).toBe(true);
  });

  it('survives a listener that throws', () => {
    const { mirror } = makeMirror();
    const got: string[] = [];
    mirror.onData(() => {
      throw new Error('broken window');
    });
    mirror.onData((data) => got.push(data));
    mirror.push('hello');
    mirror.flush();
    expect(got).toEqual(['hello']);
  });
});
