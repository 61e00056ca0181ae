// How many runs go at once in this process (SPEC §16, Settings `maxConcurrentRuns`): a run
// beyond the limit waits `Queued` for a slot, first come first served, and Stop ends the wait.
// One instance serves every folder's threads of the process (the desktop app, the agent host).

import { availableParallelism, totalmem } from 'node:os';
import { AbortedError } from '../../core/models/errors';

const GIB = 1024 ** 3;

/**
 * The default limit: two runs per core (a run mostly waits for the model; its commands —
 * builds, tests — are what take the machine), at most one per GiB of memory (a run's commands
 * and its tools' buffers), and never fewer than 4, so a small machine still runs a few agents.
 */
export function defaultMaxConcurrentRuns(cores = availableParallelism(), memoryBytes = totalmem()): number {
  return Math.max(4, Math.min(cores * 2, Math.floor(memoryBytes / GIB)));
}

/** A run waiting for a slot: given the slot's release once it may go. */
type Waiter = (release: () => void) => void;

export class RunSlots {
  private running = 0;
  private readonly waiting: Waiter[] = [];

  constructor(private limit = defaultMaxConcurrentRuns()) {}

  /** Changes the limit; runs waiting start at once when it grew (going ones are never stopped). */
  setLimit(limit: number): void {
    this.limit = Math.max(1, Math.floor(limit));
    this.next();
  }

  /** How many slots runs hold now, and how many there are (what a run waiting `Queued` is told). */
  usage(): { inUse: number; limit: number } {
    return { inUse: this.running, limit: this.limit };
  }

  /** Whether a run asking now would start at once. */
  free(): boolean {
    return this.running < this.limit && this.waiting.length === 0;
  }

  /** Resolves with the slot's release once the run may go; rejects with AbortedError when `signal` ends the wait. */
  acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(new AbortedError());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = (release) => {
        signal.removeEventListener('abort', onAbort);
        resolve(release);
      };
      const onAbort = (): void => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(new AbortedError());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
      this.next();
    });
  }

  private next(): void {
    while (this.running < this.limit && this.waiting.length > 0) {
      const waiter = this.waiting.shift()!;
      this.running += 1;
      let released = false;
      waiter(() => {
        if (released) return;
        released = true;
        this.running -= 1;
        this.next();
      });
    }
  }
}

/** The process's slots, shared by every folder's run queue (run-queue.ts). */
export const processRunSlots = new RunSlots();

/**
 * One run's hold on a slot: taken before the run's first step, given back while the run waits
 * for the person (a run that waits takes nothing from the machine) and taken again — perhaps
 * after waiting Queued — once the answer came, and given back for good when the run ends.
 */
export class RunSlot {
  private release: (() => void) | undefined;
  private paused = 0;
  private ended = false;

  constructor(
    private readonly slots: RunSlots,
    /** Told when the run starts or stops waiting for a slot. */
    private readonly onQueued: (queued: boolean) => void,
  ) {}

  /** Resolves once the run holds a slot (at once when one is free); rejects with AbortedError when `signal` ends the wait. */
  async take(signal: AbortSignal): Promise<void> {
    if (this.release !== undefined || this.paused > 0 || this.ended) return;
    const waits = !this.slots.free();
    if (waits) this.onQueued(true);
    let release: () => void;
    try {
      release = await this.slots.acquire(signal);
    } finally {
      if (waits) this.onQueued(false);
    }
    // Paused (or given another slot) meanwhile: this one goes back at once.
    if (this.release !== undefined || this.paused > 0 || this.ended) release();
    else this.release = release;
  }

  /** The run waits for the person: its slot goes to another run meanwhile. */
  pause(): void {
    this.paused += 1;
    this.release?.();
    this.release = undefined;
  }

  /** The person answered: the run takes a slot again before it goes on. */
  async resume(signal: AbortSignal): Promise<void> {
    this.paused = Math.max(0, this.paused - 1);
    if (this.paused === 0) await this.take(signal);
  }

  end(): void {
    this.ended = true;
    this.release?.();
    this.release = undefined;
  }
}
