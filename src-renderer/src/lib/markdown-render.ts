// What rendering Markdown may cost the page's main thread. The text comes from the model (answers,
// summaries) or from the folder (the file viewer: a command the agent ran can write any `.md`),
// and marked's emphasis and list handling, like some highlight.js grammars, can take time that
// grows much faster than the text (240 KB of `_a_a_a…` is minutes of parsing). So:
//
// - Small texts (LIMITS.syncChars) are rendered in place, as before: at that size even the worst
//   inputs we know parse in a few milliseconds, and a per-task budget (LIMITS.syncBudgetMs) caps
//   how many such parses one task does (a thread with a hundred answers mounts at once).
// - Larger texts are parsed in a Web Worker (markdown.worker.ts), which gets LIMITS.deadlineMs
//   per text; past it the worker is terminated (and started again for the next text) and the
//   text is shown as plain text with a note. A worker error (a stack overflow on 10,000 nested
//   quotes) ends the same way.
// - Sanitising needs a DOM, so DOMPurify stays in the page, but over the worker's HTML in parts
//   of whole top-level blocks (markdownChunks), a few milliseconds of work per slice
//   (LIMITS.sliceMs), yielding to the page between slices. Inserting the parts is bounded the
//   same way: LIMITS.revealChars of HTML per task; parts not yet inserted show their source as
//   plain text meanwhile. (The alternative, building React elements from a token tree made in
//   the worker, would drop DOMPurify from the path but duplicate every guarantee markdown.ts
//   gives its HTML: raw HTML as text, only the app's classes, file links. The sanitiser is linear.)
// - Texts over LIMITS.plainChars are shown as plain text unless the person asks for them
//   rendered (still through the worker, with the deadline).
// - Results are cached by text (LIMITS.cacheChars in all), so showing a thread again parses
//   nothing; a streaming answer re-renders at most every LIMITS.streamIntervalMs, block by block,
//   and once part of it ran out of time, what it grows into is shown as plain text too.
//
// Plain text itself is shown in parts with `content-visibility: auto`, so even 2 MB of it costs
// the page a few milliseconds until it is scrolled into view.

import { HIGHLIGHT_LANGUAGES, highlightCode } from './highlight';
import { renderMarkdown, sameHtml, sanitizeMarkdownHtml, type MarkdownChunk } from './markdown';

export const LIMITS = {
  /** Texts up to this long are parsed on the main thread (worst known inputs: ~10 ms). */
  syncChars: 1_500,
  /** Main-thread parsing one task may do, across every Markdown on the page. */
  syncBudgetMs: 16,
  /** Longer texts are shown as plain text unless the person asks for them rendered. */
  plainChars: 200_000,
  /** Worker time one text may take. */
  deadlineMs: 1_500,
  /** Main-thread time one slice of sanitising may take before yielding. */
  sliceMs: 8,
  /** Characters of HTML inserted into the page per task. */
  revealChars: 96_000,
  /** A streaming answer re-renders at most this often. */
  streamIntervalMs: 100,
  /** Code up to this long is highlighted on the main thread. */
  highlightSyncChars: 2_000,
  /** Longer code is never highlighted (shown as plain text). */
  highlightChars: 100_000,
  /** Text and HTML kept in the cache of renderings, in characters. */
  cacheChars: 8_000_000,
};

// ---------------------------------------------------------------- the worker's messages

/** `agree`: whether `text` renders as its `blocks` rendered one by one do (blocksAgree, over the HTML before sanitising). */
type RequestBody = { kind: 'markdown'; text: string } | { kind: 'highlight'; code: string; language: string } | { kind: 'agree'; text: string; blocks: string[] };
export type WorkerRequest = RequestBody & { id: number };
export type WorkerReply =
  | { id: number; ok: true; chunks: MarkdownChunk[] }
  | { id: number; ok: true; html: string }
  | { id: number; ok: true; agree: boolean }
  | { id: number; ok: false; error: string };

// --------------------------------------------------------------------------- renderings

/** Why a text is shown as plain text: too large to render unasked, out of time, or an error. */
export type PlainReason = 'large' | 'slow' | 'failed';

/** One part of a rendering: sanitised HTML, or null to show its source as plain text. */
export interface RenderedPart {
  source: string;
  html: string | null;
}

export type Rendering = { kind: 'html'; parts: readonly RenderedPart[] } | { kind: 'plain'; reason: PlainReason };

export const PLAIN_LARGE: Rendering = Object.freeze({ kind: 'plain', reason: 'large' });
export const PLAIN_SLOW: Rendering = Object.freeze({ kind: 'plain', reason: 'slow' });
export const PLAIN_FAILED: Rendering = Object.freeze({ kind: 'plain', reason: 'failed' });

export type Plan = 'sync' | 'worker' | 'large' | 'slow';

/**
 * How a text not yet rendered is rendered: in place (small, and the task has budget left),
 * in the worker, or not at all (too large unless `force`d; or it extends a text that ran out
 * of time, as a streaming block does, where a longer text of the same kind is no faster).
 */
export function planMarkdown(text: string, options: { force?: boolean; syncAllowed: boolean; slowTexts?: readonly string[] }): Plan {
  if (text.length > LIMITS.plainChars && options.force !== true) return 'large';
  for (const slow of options.slowTexts ?? []) if (text.length > slow.length && text.startsWith(slow)) return 'slow';
  if (text.length <= LIMITS.syncChars && options.syncAllowed) return 'sync';
  return 'worker';
}

/** Plain text in pieces of about `size` characters, cut after a line break where one is near. */
export function plainPieces(text: string, size: number): string[] {
  if (text.length <= size) return [text];
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    if (end < text.length) {
      const newline = text.lastIndexOf('\n', end - 1);
      if (newline >= start + size / 2) end = newline + 1;
      else if (/[\uDC00-\uDFFF]/.test(text[end] ?? '')) end -= 1;
    }
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

// ------------------------------------------------------------------ the page's own budget

type Schedule = (fn: () => void) => void;
const defaultSchedule: Schedule = (fn) => void setTimeout(fn, 0);
const defaultNow = (): number => performance.now();

/** Main-thread work done in the current task; reset by a task scheduled after the first use. */
export class TaskBudget {
  private spentMs = 0;
  private revealed = 0;
  private resetting = false;

  constructor(private readonly schedule: Schedule = defaultSchedule) {}

  private touch(): void {
    if (this.resetting) return;
    this.resetting = true;
    this.schedule(() => {
      this.spentMs = 0;
      this.revealed = 0;
      this.resetting = false;
    });
  }

  canParse(): boolean {
    return this.spentMs < LIMITS.syncBudgetMs;
  }

  spend(ms: number): void {
    this.touch();
    this.spentMs += ms;
  }

  /** Whether `chars` of HTML may be inserted in this task (the first insertion always may). */
  takeReveal(chars: number): boolean {
    this.touch();
    if (this.revealed > 0 && this.revealed + chars > LIMITS.revealChars) return false;
    this.revealed += chars;
    return true;
  }
}

interface Step {
  /** Characters of HTML this step lets the page insert; absent for work done in the step. */
  reveal?: number;
  run(): void;
  cancelled?: boolean;
}

/** Runs steps in slices: timed work up to LIMITS.sliceMs, insertions within the task's budget. */
export class Slicer {
  private queue: Step[] = [];
  private scheduled = false;

  constructor(
    private readonly budget: TaskBudget,
    private readonly schedule: Schedule = defaultSchedule,
    private readonly now: () => number = defaultNow,
  ) {}

  add(step: Step): () => void {
    this.queue.push(step);
    this.wake();
    return () => {
      step.cancelled = true;
    };
  }

  private wake(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.schedule(() => {
      this.scheduled = false;
      this.slice();
    });
  }

  private slice(): void {
    const start = this.now();
    let ran = false;
    while (this.queue.length > 0) {
      const step = this.queue[0]!;
      if (step.cancelled) {
        this.queue.shift();
        continue;
      }
      if (step.reveal !== undefined) {
        if (!this.budget.takeReveal(step.reveal)) break;
      } else if (ran && this.now() - start >= LIMITS.sliceMs) break;
      this.queue.shift();
      ran = true;
      step.run();
    }
    if (this.queue.some((s) => !s.cancelled)) this.wake();
    else this.queue = [];
  }
}

// ------------------------------------------------------------------------- the worker

/** What the page needs of a Worker (a fake in the tests). */
export interface WorkerLike {
  postMessage(message: WorkerRequest): void;
  terminate(): void;
  onmessage: ((event: { data: WorkerReply }) => void) | null;
  onerror: ((event: { preventDefault?(): void }) => void) | null;
}

export type Outcome = { ok: true; reply: Extract<WorkerReply, { ok: true }> } | { ok: false; reason: 'slow' | 'failed' };

interface Job {
  id: number;
  body: RequestBody;
  resolve(outcome: Outcome): void;
  cancelled: boolean;
}

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const defaultTimers: Timers = { set: (fn, ms) => setTimeout(fn, ms), clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>) };

/**
 * One worker, one job at a time, each with LIMITS.deadlineMs from when it is handed over:
 * past it, or on an error, the worker is terminated, the job fails, and the next job gets a
 * new worker. When workers cannot start at all (three failures in a row before any answer),
 * every job fails at once.
 */
export class RenderWorker {
  private worker: WorkerLike | null = null;
  private queue: Job[] = [];
  private current: Job | null = null;
  private timer: unknown = null;
  private nextId = 1;
  private failedStarts = 0;
  private answered = false;

  constructor(
    private readonly create: () => WorkerLike,
    private readonly timers: Timers = defaultTimers,
  ) {}

  get broken(): boolean {
    return this.failedStarts >= 3;
  }

  run(body: RequestBody): { promise: Promise<Outcome>; cancel(): void } {
    let job!: Job;
    const promise = new Promise<Outcome>((resolve) => {
      job = { id: this.nextId++, body, resolve, cancelled: false };
    });
    if (this.broken) job.resolve({ ok: false, reason: 'failed' });
    else {
      this.queue.push(job);
      this.next();
    }
    return {
      promise,
      cancel: () => {
        job.cancelled = true;
        const at = this.queue.indexOf(job);
        if (at >= 0) this.queue.splice(at, 1);
      },
    };
  }

  private next(): void {
    if (this.current !== null) return;
    const job = this.queue.shift();
    if (job === undefined) return;
    if (this.broken) {
      job.resolve({ ok: false, reason: 'failed' });
      this.next();
      return;
    }
    let worker: WorkerLike;
    try {
      worker = this.worker ?? this.start();
    } catch (err) {
      console.warn('deepdesk: the Markdown worker cannot start; larger Markdown is shown as plain text', err);
      this.failedStarts = 3;
      job.resolve({ ok: false, reason: 'failed' });
      for (const rest of this.queue.splice(0)) rest.resolve({ ok: false, reason: 'failed' });
      return;
    }
    this.current = job;
    this.timer = this.timers.set(() => this.finish(job, { ok: false, reason: 'slow' }, true), LIMITS.deadlineMs);
    worker.postMessage({ id: job.id, ...job.body });
  }

  private start(): WorkerLike {
    const worker = this.create();
    this.answered = false;
    worker.onmessage = (event) => {
      const job = this.current;
      if (job === null || event.data.id !== job.id) return;
      this.answered = true;
      this.failedStarts = 0;
      this.finish(job, event.data.ok ? { ok: true, reply: event.data } : { ok: false, reason: 'failed' }, false);
    };
    worker.onerror = (event) => {
      event.preventDefault?.();
      if (!this.answered) this.failedStarts += 1;
      if (this.broken) console.warn('deepdesk: the Markdown worker does not start; larger Markdown is shown as plain text');
      const job = this.current;
      if (job !== null) this.finish(job, { ok: false, reason: 'failed' }, true);
      else this.stop();
    };
    this.worker = worker;
    return worker;
  }

  private stop(): void {
    this.worker?.terminate();
    this.worker = null;
  }

  private finish(job: Job, outcome: Outcome, stop: boolean): void {
    if (this.current !== job) return;
    this.timers.clear(this.timer);
    this.timer = null;
    this.current = null;
    if (stop) this.stop();
    job.resolve(outcome);
    this.next();
  }
}

// ------------------------------------------------------------------------------ the cache

/** Renderings by text, least recently used first out, within LIMITS.cacheChars. */
export class RenderingCache {
  private map = new Map<string, { rendering: Rendering; size: number }>();
  private size = 0;

  constructor(private readonly limit = LIMITS.cacheChars) {}

  get(text: string): Rendering | undefined {
    const hit = this.map.get(text);
    if (hit === undefined) return undefined;
    this.map.delete(text);
    this.map.set(text, hit);
    return hit.rendering;
  }

  set(text: string, rendering: Rendering): void {
    const size = text.length + (rendering.kind === 'html' ? rendering.parts.reduce((n, p) => n + (p.html?.length ?? 0), 0) : 0);
    if (size > this.limit / 4) return;
    const old = this.map.get(text);
    if (old !== undefined) {
      this.size -= old.size;
      this.map.delete(text);
    }
    this.map.set(text, { rendering, size });
    this.size += size;
    for (const [key, entry] of this.map) {
      if (this.size <= this.limit) break;
      this.map.delete(key);
      this.size -= entry.size;
    }
  }
}

// ------------------------------------------------------------------------ the pipeline

export interface Pipeline {
  /** A rendering already made for `text`, if any (nothing is rendered). */
  cached(text: string): Rendering | undefined;
  /** A rendering available now (cached, small, plain by size), or null: ask `request`. */
  immediate(text: string, force: boolean): Rendering | null;
  /** Renders `text` in the worker and sanitises it in slices; `cancel` when no longer shown. */
  request(text: string): { promise: Promise<Rendering>; cancel(): void };
  /** Reveals parts within the page's insertion budget: how many of `parts` from `from` fit now. */
  revealNow(parts: readonly RenderedPart[], from: number): number;
  /** Calls `shown(i + 1)` as each part from `from` on fits a later task's budget. */
  revealLater(parts: readonly RenderedPart[], from: number, shown: (count: number) => void): () => void;
  /** Highlighted HTML available now, null for plain text, undefined: ask `requestHighlight`. */
  immediateHighlight(code: string, language: string | undefined): string | null | undefined;
  requestHighlight(code: string, language: string): { promise: Promise<string | null>; cancel(): void };
  /**
   * Whether `text` as a whole renders what its `blocks` rendered one by one do, decided in the
   * worker (false past its deadline or on an error): a streamed answer that agrees keeps its
   * blocks, and its whole is never sanitised nor inserted in the page.
   */
  agree(text: string, blocks: readonly string[]): { promise: Promise<boolean>; cancel(): void };
}

export interface PipelineOptions {
  createWorker(): WorkerLike;
  timers?: Timers;
  schedule?: Schedule;
  now?: () => number;
  /** Markdown → sanitised HTML on the main thread (renderMarkdown). */
  renderSync?(text: string): string;
  /** The sanitiser for the worker's HTML (sanitizeMarkdownHtml). */
  sanitize?(html: string): string;
  highlightSync?(code: string, language: string): string;
}

export function createPipeline(options: PipelineOptions): Pipeline {
  const now = options.now ?? defaultNow;
  const budget = new TaskBudget(options.schedule);
  const slicer = new Slicer(budget, options.schedule, now);
  const worker = new RenderWorker(options.createWorker, options.timers);
  const cache = new RenderingCache();
  const renderSync = options.renderSync ?? renderMarkdown;
  const sanitize = options.sanitize ?? sanitizeMarkdownHtml;
  const highlightSync = options.highlightSync ?? highlightCode;
  /** Texts that ran out of time, newest last (a streaming block grows from them). */
  const slowTexts: string[] = [];
  interface Inflight {
    promise: Promise<Rendering>;
    users: number;
    cancel(): void;
  }
  const inflight = new Map<string, Inflight>();
  const highlights = new RenderingCache(2_000_000);
  const highlightKey = (code: string, language: string): string => `${language}\n${code}`;

  function settle(text: string, rendering: Rendering): Rendering {
    cache.set(text, rendering);
    if (rendering === PLAIN_SLOW) {
      slowTexts.push(text);
      if (slowTexts.length > 8) slowTexts.shift();
    }
    return rendering;
  }

  function sanitizeInSlices(chunks: MarkdownChunk[], live: () => boolean): Promise<RenderedPart[] | null> {
    return new Promise((resolve) => {
      const parts: RenderedPart[] = [];
      const step = (i: number): void => {
        if (!live()) return resolve(null);
        if (i === chunks.length) return resolve(parts);
        const chunk = chunks[i]!;
        parts.push({ source: chunk.source, html: chunk.html === undefined ? null : sanitize(chunk.html) });
        slicer.add({ run: () => step(i + 1) });
      };
      slicer.add({ run: () => step(0) });
    });
  }

  return {
    cached(text) {
      return cache.get(text);
    },

    immediate(text, force) {
      const cached = cache.get(text);
      if (cached !== undefined) return cached;
      const plan = planMarkdown(text, { force, syncAllowed: budget.canParse(), slowTexts });
      if (plan === 'large') return PLAIN_LARGE;
      if (plan === 'slow') return PLAIN_SLOW;
      if (plan === 'worker') return null;
      const start = now();
      let rendering: Rendering;
      try {
        rendering = { kind: 'html', parts: [{ source: text, html: renderSync(text) }] };
      } catch {
        rendering = PLAIN_FAILED;
      }
      budget.spend(now() - start);
      return settle(text, rendering);
    },

    request(text) {
      const cached = cache.get(text);
      if (cached !== undefined) return { promise: Promise.resolve(cached), cancel: () => undefined };
      let entry = inflight.get(text);
      if (entry === undefined) {
        const job = worker.run({ kind: 'markdown', text });
        const created: Inflight = { users: 0, cancel: () => job.cancel(), promise: Promise.resolve(PLAIN_FAILED) };
        created.promise = job.promise.then(async (outcome) => {
          if (!outcome.ok) return settle(text, outcome.reason === 'slow' ? PLAIN_SLOW : PLAIN_FAILED);
          const chunks = 'chunks' in outcome.reply ? outcome.reply.chunks : [];
          // Nobody waiting any more (a streaming block grew): the sanitising stops.
          const parts = await sanitizeInSlices(chunks, () => created.users > 0);
          return parts === null ? PLAIN_FAILED : settle(text, { kind: 'html', parts });
        });
        void created.promise.finally(() => {
          if (inflight.get(text) === created) inflight.delete(text);
        });
        entry = created;
        inflight.set(text, entry);
      }
      const shared = entry;
      shared.users += 1;
      let cancelled = false;
      return {
        promise: shared.promise,
        cancel: () => {
          if (cancelled) return;
          cancelled = true;
          shared.users -= 1;
          if (shared.users === 0) {
            shared.cancel();
            inflight.delete(text);
          }
        },
      };
    },

    revealNow(parts, from) {
      let count = from;
      while (count < parts.length && budget.takeReveal(parts[count]!.html?.length ?? 0)) count += 1;
      return count;
    },

    revealLater(parts, from, shown) {
      const cancels = parts.slice(from).map((part, i) => slicer.add({ reveal: part.html?.length ?? 0, run: () => shown(from + i + 1) }));
      return () => cancels.forEach((cancel) => cancel());
    },

    immediateHighlight(code, language) {
      if (language === undefined || code.length > LIMITS.highlightChars) return null;
      const cached = highlights.get(highlightKey(code, language));
      if (cached !== undefined) return cached.kind === 'html' ? (cached.parts[0]?.html ?? null) : null;
      if (code.length > LIMITS.highlightSyncChars || !budget.canParse()) return undefined;
      const start = now();
      const html = highlightSync(code, language);
      budget.spend(now() - start);
      highlights.set(highlightKey(code, language), { kind: 'html', parts: [{ source: '', html }] });
      return html;
    },

    agree(text, blocks) {
      const job = worker.run({ kind: 'agree', text, blocks: [...blocks] });
      return { cancel: () => job.cancel(), promise: job.promise.then((outcome) => outcome.ok && 'agree' in outcome.reply && outcome.reply.agree) };
    },

    requestHighlight(code, language) {
      const job = worker.run({ kind: 'highlight', code, language });
      return {
        cancel: () => job.cancel(),
        promise: job.promise.then((outcome) => {
          const html = outcome.ok && 'html' in outcome.reply ? outcome.reply.html : null;
          highlights.set(highlightKey(code, language), html === null ? PLAIN_SLOW : { kind: 'html', parts: [{ source: '', html }] });
          return html;
        }),
      };
    },
  };
}

/**
 * Whether `rendering` (of a whole text) says what the renderings of its blocks say, so the
 * blocks a streamed answer was shown in may stay: no new element tree, no layout of the whole
 * answer when a stream ends. False when any block has no HTML rendering (`rendered` gives
 * what there is for a block).
 */
export function blocksAgree(rendering: Rendering, blocks: readonly string[], rendered: (text: string) => Rendering | undefined): boolean {
  if (rendering.kind !== 'html') return false;
  let whole = '';
  for (const part of rendering.parts) {
    if (part.html === null) return false;
    whole += part.html;
  }
  let joined = '';
  for (const block of blocks) {
    const own = rendered(block);
    if (own?.kind !== 'html') return false;
    for (const part of own.parts) {
      if (part.html === null) return false;
      joined += part.html;
    }
  }
  return sameHtml(whole, joined);
}

let pagePipeline: Pipeline | null = null;

/** The page's pipeline, with its worker (started on first use). */
export function markdownPipeline(): Pipeline {
  pagePipeline ??= createPipeline({
    createWorker: () => new Worker(new URL('./markdown.worker.ts', import.meta.url), { type: 'module', name: 'markdown' }) as unknown as WorkerLike,
  });
  return pagePipeline;
}

// ------------------------------------------------------------------------- warming up

/** Markdown of each kind an answer has, rendered once while the page is idle. */
const WARM_TEXT = [
  '## Heading',
  '',
  'Some *emphasis*, **strong**, `src/a.ts`, a [link](https://example.com) and [a file](docs/a.md).',
  '',
  '- one',
  '- [x] two',
  '',
  '1. three',
  '',
  '> quoted',
  '',
  '| a | b |',
  '| - | - |',
  '| 1 | 2 |',
  '',
  '```ts',
  'const x: number = 1;',
  '```',
].join('\n');

interface IdleDeadlineLike {
  timeRemaining(): number;
}
type Idle = (fn: (deadline: IdleDeadlineLike) => void) => void;

const defaultIdle: Idle | null = typeof requestIdleCallback === 'function' ? (fn) => void requestIdleCallback(fn) : null;
let warming = false;

function warmSteps(): Array<() => void> {
  return [...HIGHLIGHT_LANGUAGES.map((language) => () => void highlightCode('x', language)), () => void renderMarkdown(WARM_TEXT)];
}

/**
 * Compiles highlight.js's grammars (each one's first use compiles its patterns: ~10 ms for
 * TypeScript) and runs the parser and the sanitiser once, in idle time, one step an idle
 * period (a step can take several times its time on a busy machine, and a thread opening
 * meanwhile shares the frame): the first answer's frames then pay none of it. Once per page.
 */
export function warmMarkdown(idle: Idle | null = defaultIdle, work: ReadonlyArray<() => void> = warmSteps()): void {
  if (warming || idle === null) return;
  warming = true;
  const steps = [...work];
  const next = (deadline: IdleDeadlineLike): void => {
    if (steps.length > 0 && deadline.timeRemaining() >= 12) {
      try {
        steps.shift()!();
      } catch {
        // Only a head start: the same work is done, and its errors met, when an answer needs it.
      }
    }
    if (steps.length > 0) idle(next);
  };
  idle(next);
}
