// A protocol run's stream parts (SPEC §19), each with an SSE id, kept for `join` and a rejoin
// after a `Last-Event-ID`. Every run's kept parts share one byte budget; what a run's events
// become as parts is event-translator.ts's.

import { ProtocolHttpError, type SseEvent } from './http';

/** What `stream_mode` may ask (the reference's list); the translator says which it produces. */
export const STREAM_MODES = ['values', 'messages', 'messages-tuple', 'updates', 'events', 'tasks', 'checkpoints', 'debug', 'custom', 'tools'] as const;
export type StreamMode = (typeof STREAM_MODES)[number];

/**
 * The bytes (UTF-8, as sent) of parts all runs keep together for joins and rejoins. A run over
 * a long thread sends the whole thread in each `values` part: past this the oldest ended runs'
 * parts go first, then the oldest of going runs' (each keeps its newest), so no number of runs
 * holds the host's memory. A rejoin from before what is kept starts at the oldest kept.
 */
export const KEPT_STREAM_BYTES = 256 * 1024 * 1024;

/** SSE followers one run's stream serves at once (a join, rejoins); the next is answered 429. */
export const FOLLOWERS_PER_RUN = 8;

/** The one byte budget every run's kept parts share. */
export class KeptPartsBudget {
  private used = 0;
  /** Every stream with parts, oldest first. */
  private readonly streams = new Set<RunStream>();
  /** The ended ones, in the order they ended: their parts go first. */
  private readonly ended: RunStream[] = [];

  constructor(readonly limit: number) {}

  get bytes(): number {
    return this.used;
  }

  /** @internal RunStream's accounting. */
  grew(stream: RunStream, bytes: number): void {
    this.streams.add(stream);
    this.used += bytes;
    if (this.used > this.limit) this.trim();
  }

  /** @internal */
  shrank(bytes: number): void {
    this.used -= bytes;
  }

  /** @internal */
  endedNow(stream: RunStream): void {
    if (this.streams.has(stream)) this.ended.push(stream);
  }

  /** @internal A stream that had ended goes on (a run waiting for the person, answered). */
  reopened(stream: RunStream): void {
    const at = this.ended.indexOf(stream);
    if (at >= 0) this.ended.splice(at, 1);
  }

  /** @internal A stream gone for good (its parts already dropped). */
  forget(stream: RunStream): void {
    this.streams.delete(stream);
    this.reopened(stream);
  }

  private trim(): void {
    while (this.used > this.limit && this.ended.length > 0) {
      const oldest = this.ended[0]!;
      if (!oldest.dropOldest(0)) this.forget(oldest);
    }
    for (const stream of this.streams) {
      while (this.used > this.limit && stream.dropOldest(1));
      if (this.used <= this.limit) return;
    }
  }
}

/** The host's budget: one host, one set of runs. */
const HOST_BUDGET = new KeptPartsBudget(KEPT_STREAM_BYTES);

interface KeptPart {
  id: string;
  event: string;
  json: string;
  bytes: number;
}

/** One run's parts, kept (each written as JSON once); followers read from any id on and wait for more until it ends. */
export class RunStream {
  private readonly parts: KeptPart[] = [];
  /** The id of parts[0] (ids count every part pushed, kept or not). */
  private first = 0;
  private readonly wakers = new Set<() => void>();
  private ended = false;
  /** Ended at an interrupt, the run waiting for the person: it may go on (reopen) or not (unpause). */
  private paused = false;
  private followers = 0;
  private lastValue: unknown = null;
  private lastLazy: (() => unknown) | undefined;
  /** Told when a client is sent a part from `from` on, or the last state by `wait` or `join` (until the run goes on): what was delivered, not only pushed. */
  private delivery: { from: number; onRead: () => void } | undefined;

  constructor(
    private readonly budget: KeptPartsBudget = HOST_BUDGET,
    private readonly maxFollowers = FOLLOWERS_PER_RUN,
  ) {}

  /** Whether a client follows the stream now. */
  get followed(): boolean {
    return this.followers > 0;
  }

  /** The last full state (or `{__interrupt__}` / `{__error__}`) a `wait` or `join` answers. */
  get last(): unknown {
    if (this.lastLazy !== undefined) {
      this.lastValue = this.lastLazy();
      this.lastLazy = undefined;
    }
    this.delivery?.onRead();
    return this.lastValue;
  }

  set last(value: unknown) {
    this.lastValue = value;
    this.lastLazy = undefined;
  }

  /** The last state, built only when a `wait` or `join` reads it. */
  lastFrom(build: () => unknown): void {
    this.lastLazy = build;
  }

  /** What is pushed from now on (and the last state) tells `onRead` once a client is sent it. */
  deliveredBy(onRead: () => void): void {
    this.delivery = { from: this.first + this.parts.length, onRead };
  }

  push(event: string, data: unknown): void {
    if (this.ended) return;
    const json = JSON.stringify(data ?? null);
    const bytes = Buffer.byteLength(json);
    this.parts.push({ id: String(this.first + this.parts.length), event, json, bytes });
    this.budget.grew(this, bytes);
    this.wake();
  }

  /** `paused`: at an interrupt the run may go on from (a follower rejoining after what it saw waits for that). */
  end(options: { paused?: boolean } = {}): void {
    if (this.ended) return;
    this.ended = true;
    this.paused = options.paused === true;
    this.budget.endedNow(this);
    this.wake();
  }

  /** The run goes on after it had ended (paused at an interrupt, then answered): new parts follow the old ones' ids. */
  reopen(): void {
    if (!this.ended) return;
    this.ended = false;
    this.paused = false;
    this.delivery = undefined;
    this.budget.reopened(this);
  }

  /** The pause is over without the run going on (its wait ended unanswered): followers waiting through it end. */
  unpause(): void {
    if (!this.paused) return;
    this.paused = false;
    this.wake();
  }

  /** Drops every kept part: the run is forgotten (a join then answers from its record and thread). */
  dispose(): void {
    this.unpause();
    while (this.dropOldest(0));
    this.budget.forget(this);
  }

  /** @internal The budget's: drops the oldest part while more than `keep` are kept; false when none was. */
  dropOldest(keep: number): boolean {
    if (this.parts.length <= keep) return false;
    this.budget.shrank(this.parts.shift()!.bytes);
    this.first += 1;
    return true;
  }

  /**
   * The parts after `lastEventId` (all without one), then each new one, until the run ends or
   * `signal` aborts. Counted as a follower from this call until the iteration ends (429 past
   * FOLLOWERS_PER_RUN): the caller iterates it, or calls its `return()`.
   */
  follow(lastEventId: string | undefined, signal?: AbortSignal): AsyncIterable<SseEvent> {
    if (this.followers >= this.maxFollowers) {
      throw new ProtocolHttpError(429, `This run already has ${this.maxFollowers} stream followers: close one (or join when the run has ended).`);
    }
    this.followers += 1;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.followers -= 1;
    };
    const parts = this.parts_(lastEventId, signal);
    return {
      [Symbol.asyncIterator]: () => ({
        next: async () => {
          try {
            const result = await parts.next();
            if (result.done === true) release();
            return result;
          } catch (err) {
            release();
            throw err;
          }
        },
        return: async () => {
          release();
          return parts.return(undefined);
        },
      }),
    };
  }

  private async *parts_(lastEventId: string | undefined, signal: AbortSignal | undefined): AsyncGenerator<SseEvent, void, undefined> {
    const after = lastEventId !== undefined && /^\d+$/.test(lastEventId) ? Number(lastEventId) : -1;
    let next = after + 1;
    while (!signal?.aborted) {
      for (;;) {
        next = Math.max(next, this.first);
        const part = this.parts[next - this.first];
        if (part === undefined) break;
        next += 1;
        yield { id: part.id, event: part.event, json: part.json };
        // Asked for the next: this one was written to the client.
        if (this.delivery !== undefined && Number(part.id) >= this.delivery.from) this.delivery.onRead();
      }
      // A rejoin (Last-Event-ID: it saw the parts so far) follows a run paused at an interrupt on: it waits for the rest.
      if (this.ended && !(this.paused && lastEventId !== undefined)) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          this.wakers.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        this.wakers.add(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** Resolves once the run has ended. */
  async finished(): Promise<void> {
    while (!this.ended) await new Promise<void>((resolve) => this.wakers.add(() => resolve()));
  }

  private wake(): void {
    const wakers = [...this.wakers];
    this.wakers.clear();
    for (const wake of wakers) wake();
  }
}
