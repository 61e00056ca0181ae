// A thread's fan-out (SPEC §26): its caps (how many subagents it may start over its life, how
// many run at once), and the honest count of what its parts did — finished, failed, paused, never
// started — said in one line (`12 of 30 finished, 16 failed (quota), 2 not started`), to the model
// after the step and in the run's `done` event (`fanOut`).

import { rootRun, type RunContext } from './run-context';
import type { FanOutCounts, RunStopReason } from './types';

export interface FanOutLimits {
  /** Subagents (and candidates) a thread may start over its life (default 50). */
  maxSpawns?: number;
  /** Subagents of a thread running at once; the others wait their turn (default 8). */
  maxConcurrent?: number;
}

export const DEFAULT_MAX_SPAWNS = 50;
export const DEFAULT_MAX_CONCURRENT = 8;
/** One turn that would start more subagents than this (or a candidate set over it) asks first. */
export const LARGE_FAN_OUT = 15;

/** What one part of a fan-out came to: `failed` with why (`quota`…; none: an error). */
export type FanOutPart = { kind: 'finished' } | { kind: 'paused' } | { kind: 'failed'; why?: string } | { kind: 'not-started' };


/** A subagent's run end as a part of its fan-out. */
export function partOf(reason: RunStopReason): FanOutPart {
  switch (reason) {
    case 'completed':
      return { kind: 'finished' };
    case 'budget':
      return { kind: 'paused' };
    case 'error':
      return { kind: 'failed' };
    case 'aborted':
      return { kind: 'failed', why: 'stopped' };
    case 'max_steps':
      return { kind: 'failed', why: 'step limit' };
    case 'quota':
      return { kind: 'failed', why: 'quota' };
  }
}

/** The counts of `parts`, with their line. */
export function countParts(parts: readonly FanOutPart[]): FanOutCounts {
  const of = (kind: FanOutPart['kind']) => parts.filter((p) => p.kind === kind).length;
  const counts = { total: parts.length, finished: of('finished'), failed: of('failed'), paused: of('paused'), notStarted: of('not-started') };
  const whys = new Map<string, number>();
  for (const p of parts) if (p.kind === 'failed') whys.set(p.why ?? 'error', (whys.get(p.why ?? 'error') ?? 0) + 1);
  const failedWhy = whys.size === 1 ? (whys.has('error') ? '' : ` (${[...whys.keys()][0]})`) : ` (${[...whys].map(([why, n]) => `${n} ${why}`).join(', ')})`;
  const line = [
    `${counts.finished} of ${counts.total} finished`,
    ...(counts.failed > 0 ? [`${counts.failed} failed${failedWhy}`] : []),
    ...(counts.paused > 0 ? [`${counts.paused} paused`] : []),
    ...(counts.notStarted > 0 ? [`${counts.notStarted} not started`] : []),
  ].join(', ');
  return { ...counts, line };
}

/** What the model reads after a fan-out that did not all finish (none when every part did). */
export function fanOutNote(counts: FanOutCounts): string | undefined {
  if (counts.finished === counts.total) return undefined;
  const most = counts.finished * 2 < counts.total ? ' Most of them did not finish: say so, and do not report the result as complete.' : '';
  return `Subagents of this turn: ${counts.line}.${most}`;
}

const RUN_PARTS = new WeakMap<RunContext, FanOutPart[]>();

/** Adds one step's parts to what the run of the thread's own agent fanned out. */
export function recordFanOut(ctx: RunContext, parts: readonly FanOutPart[]): void {
  const root = rootRun(ctx);
  RUN_PARTS.set(root, [...(RUN_PARTS.get(root) ?? []), ...parts]);
}

/** The run's fan-out for its `done` event; nothing when it started no subagent. */
export function runFanOut(ctx: RunContext): { fanOut?: FanOutCounts } {
  const parts = RUN_PARTS.get(ctx);
  return parts === undefined || parts.length === 0 ? {} : { fanOut: countParts(parts) };
}

/** Turns to run, at most `limit()` at once; the others wait, first come first served. */
export class Turns {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: () => number) {}

  /** Runs `fn` once a turn is free (never, when `signal` ends the wait first: then `fn` is not run). */
  async run<T>(signal: AbortSignal, fn: () => Promise<T>, notRun: () => T): Promise<T> {
    if (this.running >= Math.max(1, this.limit())) {
      const go = await new Promise<boolean>((resolve) => {
        const start = () => {
          signal.removeEventListener('abort', stop);
          resolve(true);
        };
        const stop = () => {
          const at = this.waiting.indexOf(start);
          if (at >= 0) this.waiting.splice(at, 1);
          resolve(false);
        };
        this.waiting.push(start);
        if (signal.aborted) stop();
        else signal.addEventListener('abort', stop, { once: true });
      });
      if (!go) return notRun();
    } else this.running++;
    try {
      return await fn();
    } finally {
      // The turn passes to the next one waiting, else it is free.
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.running--;
    }
  }
}
