import { describe, expect, it, vi } from 'vitest';
import { AbortedError, ContextOverflowError, ModelError } from './errors';
import { retryDelay, sleep, streamWithRetry } from './retry';

async function drain<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

const retryable = () => new ModelError('HTTP 503: busy', { status: 503, retryable: true });

describe('retryDelay', () => {
  it('doubles from the base with 50–100% jitter and caps at the maximum', () => {
    const policy = { baseDelayMs: 500, maxDelayMs: 20_000 };
    expect(retryDelay(0, policy, undefined, () => 1)).toBe(500);
    expect(retryDelay(0, policy, undefined, () => 0)).toBe(250);
    expect(retryDelay(3, policy, undefined, () => 1)).toBe(4000);
    expect(retryDelay(10, policy, undefined, () => 1)).toBe(20_000);
  });

  it('prefers Retry-After, capped', () => {
    expect(retryDelay(0, {}, 0)).toBe(0);
    expect(retryDelay(0, {}, 3000)).toBe(3000);
    expect(retryDelay(0, {}, 120_000)).toBe(20_000);
  });
});

describe('streamWithRetry', () => {
  it('retries failures before the first event and yields one set of events', async () => {
    let calls = 0;
    const seen: number[] = [];
    const out = await drain(
      streamWithRetry(
        async function* () {
          calls += 1;
          if (calls < 3) throw retryable();
          yield 'a';
          yield 'b';
        },
        { label: 'p:m', policy: { baseDelayMs: 1, onRetry: (info) => seen.push(info.attempt) } },
      ),
    );
    expect(out).toEqual(['a', 'b']);
    expect(calls).toBe(3);
    expect(seen).toEqual([1, 2]);
  });

  it('retries only what the policy’s retryIf allows (a connection test answers a refused connection at once)', async () => {
    let calls = 0;
    const refused = () => new ModelError('Network error: connect ECONNREFUSED 127.0.0.1:9', { retryable: true });
    const stream = streamWithRetry(
      async function* () {
        calls += 1;
        yield* [];
        throw refused();
      },
      { label: 'p:m', policy: { baseDelayMs: 1, retryIf: (error) => !error.message.includes('ECONNREFUSED') } },
    );
    await expect(drain(stream)).rejects.toThrow('p:m: Network error: connect ECONNREFUSED 127.0.0.1:9');
    expect(calls).toBe(1);
  });

  it('does not retry once something was yielded', async () => {
    let calls = 0;
    const out: string[] = [];
    const err = await (async () => {
      for await (const item of streamWithRetry(
        async function* () {
          calls += 1;
          yield 'partial';
          throw retryable();
        },
        { label: 'p:m', policy: { baseDelayMs: 1 } },
      )) {
        out.push(item);
      }
    })().catch((e: unknown) => e);
    expect(out).toEqual(['partial']);
    expect(calls).toBe(1);
    expect((err as Error).message).toBe('p:m: HTTP 503: busy');
  });

  it('stops after maxRetries with the attempt count in the message', async () => {
    let calls = 0;
    const err = await drain(
      streamWithRetry<never>(
        // eslint-disable-next-line require-yield
        async function* () {
          calls += 1;
          throw retryable();
        },
        { label: 'openai-compatible:x', policy: { baseDelayMs: 1, maxRetries: 2 } },
      ),
    ).catch((e: unknown) => e);
    expect(calls).toBe(3);
    expect((err as ModelError).message).toBe('openai-compatible:x failed after 3 attempts: HTTP 503: busy');
    expect((err as ModelError).status).toBe(503);
  });

  it('never retries context overflow or client errors', async () => {
    for (const error of [new ContextOverflowError('too long', { status: 400 }), new ModelError('HTTP 401: no', { status: 401 })]) {
      let calls = 0;
      const err = await drain(
        streamWithRetry<never>(
          // eslint-disable-next-line require-yield
          async function* () {
            calls += 1;
            throw error;
          },
          { label: 'p:m', policy: { baseDelayMs: 1 } },
        ),
      ).catch((e: unknown) => e);
      expect(calls).toBe(1);
      expect(err).toBeInstanceOf(error.constructor);
    }
  });

  it('can be aborted while waiting', async () => {
    const controller = new AbortController();
    const pending = drain(
      streamWithRetry<never>(
        // eslint-disable-next-line require-yield
        async function* () {
          throw retryable();
        },
        { label: 'p:m', policy: { baseDelayMs: 60_000, onRetry: () => queueMicrotask(() => controller.abort()) }, signal: controller.signal },
      ),
    );
    await expect(pending).rejects.toBeInstanceOf(AbortedError);
  });
});

describe('sleep', () => {
  it('rejects at once when the signal fires', async () => {
    // The clock stands still: only the signal can end the sleep.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const controller = new AbortController();
      const pending = sleep(60_000, controller.signal);
      controller.abort();
      await expect(pending).rejects.toBeInstanceOf(AbortedError);
    } finally {
      vi.useRealTimers();
    }
    await expect(sleep(1, AbortSignal.abort())).rejects.toBeInstanceOf(AbortedError);
  });
});
