// Size and modifiedAt of the files a glob finds, gathered while the search is still
// listing. On a local disk an lstat is a few microseconds, and the asynchronous call costs
// about three times the CPU of the synchronous one (a hand-off to libuv's threads and back
// per file), which dominates a glob over tens of thousands of files. So files are stat'ed
// synchronously in short slices that yield to the event loop in between; a file system
// where one stat is slow (a network mount) switches the rest to asynchronous calls, where
// several can wait at once.

import fs from 'node:fs';
import type { FileInfo } from '../protocol';
import { sortByPath } from '../paths';

/** Longest stretch of synchronous stats before yielding to the event loop. */
const SLICE_MS = 4;
/**
 * Synchronous stats slower than this on average mean the file system is not a local disk.
 * Averaged over at least MIN_STATS_JUDGED calls' worth of time, so that the process being
 * descheduled once on a busy machine does not count as a slow disk.
 */
const SLOW_STAT_MS = 1;
const MIN_STATS_JUDGED = 16;
/** Synchronous stats between two looks at the clock. */
const CLOCK_EVERY = 8;
/** Asynchronous stats in flight once switched. */
const IN_FLIGHT = 32;

export interface GathererOptions {
  /** Overrides SLOW_STAT_MS (tests use 0 to take the asynchronous path). */
  slowStatMs?: number;
}

export class FileInfoGatherer {
  private readonly reals: string[] = [];
  private readonly paths: string[] = [];
  /** reals[next] is the next file to stat. */
  private next = 0;
  private async = false;
  private syncCount = 0;
  private syncMs = 0;
  private inFlight = 0;
  private scheduled = false;
  private finishing = false;
  private readonly infos: FileInfo[] = [];
  private settled: (() => void) | null = null;
  private readonly slowStatMs: number;

  constructor(options: GathererOptions = {}) {
    this.slowStatMs = options.slowStatMs ?? SLOW_STAT_MS;
  }

  /** Queues `real`, reported as `path`; a file gone by the time it is stat'ed is left out. */
  add(real: string, path: string): void {
    this.reals.push(real);
    this.paths.push(path);
    if (this.async) this.startAsync();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.runSlice());
    }
  }

  /** Every added file that still exists, sorted by path, once all are stat'ed. */
  async finish(): Promise<FileInfo[]> {
    this.finishing = true;
    if (!this.done()) await new Promise<void>((resolve) => (this.settled = resolve));
    return sortByPath(this.infos);
  }

  private done(): boolean {
    return this.next === this.reals.length && this.inFlight === 0 && !this.scheduled;
  }

  private checkSettled(): void {
    if (this.finishing && this.done()) this.settled?.();
  }

  private runSlice(): void {
    this.scheduled = false;
    const started = performance.now();
    let now = started;
    while (this.next < this.reals.length && now - started < SLICE_MS) {
      // The clock is read every few stats: reading it costs a fair part of one.
      const stop = Math.min(this.reals.length, this.next + CLOCK_EVERY);
      this.syncCount += stop - this.next;
      for (; this.next < stop; this.next++) this.record(this.next, statSync(this.reals[this.next]!));
      now = performance.now();
    }
    this.syncMs += now - started;
    if (this.syncMs > this.slowStatMs * Math.max(this.syncCount, MIN_STATS_JUDGED)) {
      this.async = true;
      this.startAsync();
    } else if (this.next < this.reals.length) {
      this.scheduled = true;
      setImmediate(() => this.runSlice());
    }
    this.checkSettled();
  }

  private startAsync(): void {
    while (this.inFlight < IN_FLIGHT && this.next < this.reals.length) {
      const i = this.next++;
      this.inFlight++;
      fs.lstat(this.reals[i]!, (err, st) => {
        this.inFlight--;
        this.record(i, err ? undefined : st);
        this.startAsync();
        this.checkSettled();
      });
    }
  }

  private record(i: number, st: fs.Stats | undefined): void {
    if (st) this.infos.push({ path: this.paths[i]!, size: st.size, modifiedAt: isoTime(st.mtimeMs) });
  }
}

const NO_THROW_IF_MISSING = { throwIfNoEntry: false } as const;

function statSync(real: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(real, NO_THROW_IF_MISSING);
  } catch {
    return undefined;
  }
}

const DAY_MS = 86_400_000;
/** 9999-12-31T23:59:59.999Z: later years (and years before 1970) go through Date. */
const LAST_PLAIN_MS = 253_402_300_799_999;
const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const MILLIS = Array.from({ length: 1000 }, (_, i) => `.${String(i).padStart(3, '0')}Z`);
/** 'YYYY-MM-DDT' of recent days: files of one tree mostly share a few days. */
const dayPrefixes = new Map<number, string>();

/**
 * What `Stats.mtime.toISOString()` gives (Node rounds mtimeMs to a Date), in a third of
 * the time: the date part comes from a cache by day, the time of day from tables.
 */
export function isoTime(mtimeMs: number): string {
  const ms = Math.round(mtimeMs);
  if (!(ms >= 0 && ms <= LAST_PLAIN_MS)) return new Date(ms).toISOString();
  const day = Math.floor(ms / DAY_MS);
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    if (dayPrefixes.size >= 1024) dayPrefixes.clear();
    prefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    dayPrefixes.set(day, prefix);
  }
  let rest = ms - day * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${prefix}${TWO_DIGITS[hours]!}:${TWO_DIGITS[minutes]!}:${TWO_DIGITS[seconds]!}${MILLIS[rest - seconds * 1000]!}`;
}
