// Timing helpers: repeated runs with a warm-up and a time budget, medians, deadlines.

export interface RunPlan {
  /** Timed runs wanted. */
  runs: number;
  /** Untimed runs first (default 1). */
  warmup?: number;
  /** Stop adding runs once the timed ones took this long in total (at least one run is kept). */
  budgetMs?: number;
  /** Untimed preparation before every run (warm-up included). */
  before?: () => Promise<void> | void;
}

/** Wall-clock milliseconds of each timed run of `fn`. */
export async function timeRuns(fn: () => Promise<unknown>, plan: RunPlan): Promise<number[]> {
  const budget = plan.budgetMs ?? 20_000;
  for (let i = 0; i < (plan.warmup ?? 1); i++) {
    await plan.before?.();
    await fn();
  }
  const times: number[] = [];
  let spent = 0;
  while (times.length < plan.runs && (times.length === 0 || spent < budget)) {
    await plan.before?.();
    const start = performance.now();
    await fn();
    const ms = performance.now() - start;
    times.push(ms);
    spent += ms;
  }
  return times;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

/** Rejects with `what timed out` after `ms`; the timer never keeps the process alive. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${Math.round(ms / 1000)} s`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  if (ms < 1) return `${ms.toFixed(3)} ms`;
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(1)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

export function formatMb(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}

/** `a / b` as `×1.23`. */
export function formatRatio(a: number, b: number): string {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return '—';
  const r = a / b;
  return `×${r < 10 ? r.toFixed(2) : r.toFixed(1)}`;
}

export function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const line = text.split('\n')[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}

export interface Contender {
  /** One call; returns a short description of its result (e.g. "12 matches"). */
  run: () => Promise<string>;
  /** Untimed preparation before each call. */
  before?: () => void;
}

export interface ContenderResult {
  times: number[];
  detail: string;
  error?: string;
}

/**
 * Times several implementations of the same operation in rounds (one call of each per
 * round, after one untimed round), so that load from elsewhere on the machine falls on
 * all of them alike. One that fails is dropped with its error.
 */
export async function timeInterleaved(contenders: Record<string, Contender>, plan: { runs: number; budgetMs?: number; callTimeoutMs?: number }): Promise<Record<string, ContenderResult>> {
  const results: Record<string, ContenderResult> = {};
  for (const name of Object.keys(contenders)) results[name] = { times: [], detail: '' };
  const budget = plan.budgetMs ?? 30_000;
  const timeout = plan.callTimeoutMs ?? 120_000;
  let spent = 0;
  for (let round = 0; round <= plan.runs && (round <= 1 || spent < budget); round++) {
    for (const [name, contender] of Object.entries(contenders)) {
      const result = results[name]!;
      if (result.error !== undefined) continue;
      contender.before?.();
      const start = performance.now();
      try {
        result.detail = await withTimeout(contender.run(), timeout, name);
      } catch (err) {
        result.error = errorText(err);
        continue;
      }
      const ms = performance.now() - start;
      if (round > 0) {
        result.times.push(ms);
        spent += ms;
      }
    }
  }
  return results;
}
