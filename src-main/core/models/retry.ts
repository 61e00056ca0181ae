import { AbortedError, classifyError } from './errors';
import type { ModelError } from './errors';
import type { ProviderName } from './types';

export interface RetryInfo {
  /** The attempt that failed, 1-based. */
  attempt: number;
  /** How many attempts the policy allows in all. */
  maxAttempts: number;
  delayMs: number;
  error: ModelError;
}

export interface RetryPolicy {
  /** Retries after the first attempt (default 4, so 5 attempts). */
  maxRetries?: number;
  /** First backoff, doubled per retry (default 500 ms). */
  baseDelayMs?: number;
  /** Upper bound of any single wait, Retry-After included (default 20 s). */
  maxDelayMs?: number;
  /** Called before each wait, e.g. to show "retrying in 2 s". */
  onRetry?: (info: RetryInfo) => void;
  /** Further narrows which retryable failures are retried (e.g. a connection test answers at once when nothing listens). */
  retryIf?: (error: ModelError) => boolean;
}

export const DEFAULT_RETRY: Required<Omit<RetryPolicy, 'onRetry' | 'retryIf'>> = { maxRetries: 4, baseDelayMs: 500, maxDelayMs: 20_000 };

/** Exponential backoff with jitter (50–100% of the step), or the server's Retry-After; both capped. */
export function retryDelay(retryIndex: number, policy: RetryPolicy, retryAfterMs?: number, random = Math.random): number {
  const base = policy.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs;
  const max = policy.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs;
  if (retryAfterMs !== undefined) return Math.min(Math.max(0, retryAfterMs), max);
  const step = Math.min(base * 2 ** retryIndex, max);
  return Math.round(step * (0.5 + random() * 0.5));
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new AbortedError());
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface RetryStreamOptions {
  /** Prefix of final error messages, e.g. 'openai-compatible:qwen3'. */
  label: string;
  provider?: ProviderName;
  policy?: RetryPolicy;
  signal?: AbortSignal;
  /** Called before each wait, besides the policy's own onRetry (e.g. per request). */
  onRetry?: (info: RetryInfo) => void;
}

/**
 * Runs `attempt` and re-runs it on retryable failures, but only while that attempt has not
 * yielded anything yet: once an event has gone out, a retry would duplicate streamed text.
 */
export async function* streamWithRetry<T>(attempt: () => AsyncIterable<T>, options: RetryStreamOptions): AsyncGenerator<T> {
  const policy = options.policy ?? {};
  const maxRetries = Math.max(0, policy.maxRetries ?? DEFAULT_RETRY.maxRetries);
  for (let attemptNo = 1; ; attemptNo++) {
    let emitted = false;
    try {
      for await (const event of attempt()) {
        emitted = true;
        yield event;
      }
      return;
    } catch (raw) {
      if (options.signal?.aborted) throw new AbortedError();
      const error = classifyError(raw, options.provider);
      if (error instanceof AbortedError) throw error;
      if (emitted || !error.retryable || attemptNo > maxRetries || policy.retryIf?.(error) === false) {
        throw attemptNo > 1
          ? error.withMessage(`${options.label} failed after ${attemptNo} attempts: ${error.message}`)
          : error.withMessage(`${options.label}: ${error.message}`);
      }
      const delayMs = retryDelay(attemptNo - 1, policy, error.retryAfterMs);
      const info: RetryInfo = { attempt: attemptNo, maxAttempts: maxRetries + 1, delayMs, error };
      policy.onRetry?.(info);
      options.onRetry?.(info);
      await sleep(delayMs, options.signal);
    }
  }
}
