// The fallback logic that bounds what rendering Markdown costs the page (markdown-render.ts):
// what renders in place, in the worker or as plain text; the worker's deadline, errors and
// restarts; slicing; the cache. A fake worker and fake timers stand in for the page's.
import { describe, expect, it, vi } from 'vitest';
import { markdownChunks, markdownHtml } from './markdown';
import {
  LIMITS,
  PLAIN_FAILED,
  PLAIN_LARGE,
  PLAIN_SLOW,
  RenderWorker,
  RenderingCache,
  Slicer,
  TaskBudget,
  createPipeline,
  planMarkdown,
  plainPieces,
  warmMarkdown,
  type Rendering,
  type WorkerLike,
  type WorkerReply,
  type WorkerRequest,
} from './markdown-render';

/** Timers run by hand: `advance(ms)` fires what is due. */
function fakeTimers() {
  let now = 0;
  let nextId = 1;
  const due = new Map<number, { at: number; fn: () => void }>();
  return {
    set(fn: () => void, ms: number): unknown {
      const id = nextId++;
      due.set(id, { at: now + ms, fn });
      return id;
    },
    clear(handle: unknown): void {
      due.delete(handle as number);
    },
    advance(ms: number): void {
      now += ms;
      for (const [id, timer] of [...due].sort((a, b) => a[1].at - b[1].at)) {
        if (timer.at > now) continue;
        due.delete(id);
        timer.fn();
      }
    },
    pending: () => due.size,
  };
}

/** A worker that answers when told, or errs. */
class FakeWorker implements WorkerLike {
  static all: FakeWorker[] = [];
  onmessage: ((event: { data: WorkerReply }) => void) | null = null;
  onerror: ((event: { preventDefault?(): void }) => void) | null = null;
  received: WorkerRequest[] = [];
  terminated = false;
  constructor() {
    FakeWorker.all.push(this);
  }
  postMessage(message: WorkerRequest): void {
    this.received.push(message);
  }
  terminate(): void {
    this.terminated = true;
  }
  answer(reply: Partial<WorkerReply> & { id?: number }): void {
    const id = reply.id ?? this.received.at(-1)!.id;
    this.onmessage?.({ data: { ok: true, html: '', ...reply, id } as WorkerReply });
  }
  fail(): void {
    this.onerror?.({});
  }
}

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe('planMarkdown', () => {
  it('renders small texts in place while the task has budget, larger ones in the worker', () => {
    expect(planMarkdown('**a**', { syncAllowed: true })).toBe('sync');
    expect(planMarkdown('a'.repeat(LIMITS.syncChars), { syncAllowed: true })).toBe('sync');
    expect(planMarkdown('a'.repeat(LIMITS.syncChars + 1), { syncAllowed: true })).toBe('worker');
    expect(planMarkdown('**a**', { syncAllowed: false })).toBe('worker');
  });

  it('shows texts over the size limit as plain text unless asked, and then uses the worker', () => {
    const large = '_a'.repeat(LIMITS.plainChars / 2 + 1);
    expect(planMarkdown(large, { syncAllowed: true })).toBe('large');
    expect(planMarkdown(large, { syncAllowed: true, force: true })).toBe('worker');
  });

  it('does not try again a text that grew from one that ran out of time', () => {
    const slow = '_a'.repeat(5_000);
    expect(planMarkdown(slow + '_a_a', { syncAllowed: true, slowTexts: [slow] })).toBe('slow');
    expect(planMarkdown('_b' + slow, { syncAllowed: true, slowTexts: [slow] })).toBe('worker');
  });
});

describe('plainPieces', () => {
  it('cuts after a line break near the size, else at the size, and loses nothing', () => {
    const text = Array.from({ length: 500 }, (_, i) => `line ${i} ${'x'.repeat(i % 37)}`).join('\n');
    const pieces = plainPieces(text, 1_000);
    expect(pieces.join('')).toBe(text);
    for (const piece of pieces.slice(0, -1)) {
      expect(piece.length).toBeLessThanOrEqual(1_000);
      expect(piece.endsWith('\n')).toBe(true);
    }
    const line = '_a'.repeat(5_000);
    expect(plainPieces(line, 1_000).map((p) => p.length)).toEqual(Array(10).fill(1_000));
    expect(plainPieces('😀'.repeat(1_000), 999).join('')).toBe('😀'.repeat(1_000));
    for (const piece of plainPieces('😀'.repeat(1_000), 999)) expect(piece).toMatch(/^(😀)+$/u);
  });
});

describe('RenderWorker', () => {
  it('hands one job at a time to the worker and answers each in order', async () => {
    FakeWorker.all = [];
    const timers = fakeTimers();
    const worker = new RenderWorker(() => new FakeWorker(), timers);
    const a = worker.run({ kind: 'markdown', text: 'a' });
    const b = worker.run({ kind: 'markdown', text: 'b' });
    const w = FakeWorker.all[0]!;
    expect(w.received.map((r) => r.kind === 'markdown' && r.text)).toEqual(['a']);
    w.answer({ chunks: [{ source: 'a', html: '<p>a</p>' }] });
    expect(await a.promise).toEqual({ ok: true, reply: { id: 1, ok: true, html: '', chunks: [{ source: 'a', html: '<p>a</p>' }] } });
    expect(w.received.map((r) => r.kind === 'markdown' && r.text)).toEqual(['a', 'b']);
    w.answer({ chunks: [] });
    expect((await b.promise).ok).toBe(true);
    expect(timers.pending()).toBe(0);
  });

  it('past the deadline, terminates the worker, fails the job as slow and starts a new worker for the next', async () => {
    FakeWorker.all = [];
    const timers = fakeTimers();
    const worker = new RenderWorker(() => new FakeWorker(), timers);
    const slow = worker.run({ kind: 'markdown', text: '_a'.repeat(100_000) });
    const next = worker.run({ kind: 'markdown', text: 'next' });
    timers.advance(LIMITS.deadlineMs - 1);
    expect(FakeWorker.all[0]!.terminated).toBe(false);
    timers.advance(1);
    expect(await slow.promise).toEqual({ ok: false, reason: 'slow' });
    expect(FakeWorker.all[0]!.terminated).toBe(true);
    expect(FakeWorker.all).toHaveLength(2);
    FakeWorker.all[1]!.answer({ chunks: [] });
    expect((await next.promise).ok).toBe(true);
  });

  it('fails a job the worker reports an error for, or dies on, and goes on', async () => {
    FakeWorker.all = [];
    const timers = fakeTimers();
    const worker = new RenderWorker(() => new FakeWorker(), timers);
    const a = worker.run({ kind: 'markdown', text: 'a' });
    FakeWorker.all[0]!.onmessage?.({ data: { id: 1, ok: false, error: 'Maximum call stack size exceeded' } });
    expect(await a.promise).toEqual({ ok: false, reason: 'failed' });
    const b = worker.run({ kind: 'markdown', text: 'b' });
    FakeWorker.all[0]!.fail();
    expect(await b.promise).toEqual({ ok: false, reason: 'failed' });
    expect(FakeWorker.all[0]!.terminated).toBe(true);
    const c = worker.run({ kind: 'markdown', text: 'c' });
    FakeWorker.all[1]!.answer({ chunks: [] });
    expect((await c.promise).ok).toBe(true);
  });

  it('gives up on workers that cannot start, failing at once instead of waiting, and says so', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const timers = fakeTimers();
    const throwing = new RenderWorker(() => {
      throw new Error('no workers here');
    }, timers);
    expect(await throwing.run({ kind: 'markdown', text: 'a' }).promise).toEqual({ ok: false, reason: 'failed' });
    expect(throwing.broken).toBe(true);
    FakeWorker.all = [];
    const erring = new RenderWorker(() => new FakeWorker(), timers);
    for (let i = 0; i < 3; i++) {
      const job = erring.run({ kind: 'markdown', text: `t${i}` });
      FakeWorker.all.at(-1)!.fail();
      expect(await job.promise).toEqual({ ok: false, reason: 'failed' });
    }
    expect(erring.broken).toBe(true);
    expect(await erring.run({ kind: 'markdown', text: 'later' }).promise).toEqual({ ok: false, reason: 'failed' });
    expect(FakeWorker.all).toHaveLength(3);
    expect(warn).toHaveBeenCalledTimes(2);
    warn.mockRestore();
  });

  it('drops a cancelled job that has not started', async () => {
    FakeWorker.all = [];
    const timers = fakeTimers();
    const worker = new RenderWorker(() => new FakeWorker(), timers);
    const a = worker.run({ kind: 'markdown', text: 'a' });
    const b = worker.run({ kind: 'markdown', text: 'b' });
    const c = worker.run({ kind: 'markdown', text: 'c' });
    b.cancel();
    FakeWorker.all[0]!.answer({ chunks: [] });
    await a.promise;
    expect(FakeWorker.all[0]!.received.map((r) => r.kind === 'markdown' && r.text)).toEqual(['a', 'c']);
    FakeWorker.all[0]!.answer({ chunks: [] });
    expect((await c.promise).ok).toBe(true);
  });
});

describe('TaskBudget and Slicer', () => {
  it('stops parsing in place once the task has spent its budget, until the next task', () => {
    const later: Array<() => void> = [];
    const budget = new TaskBudget((fn) => later.push(fn));
    expect(budget.canParse()).toBe(true);
    budget.spend(LIMITS.syncBudgetMs);
    expect(budget.canParse()).toBe(false);
    later.forEach((fn) => fn());
    expect(budget.canParse()).toBe(true);
  });

  it('does timed work in slices and inserts within the budget of each task', () => {
    // Each scheduled callback is a task of its own, run in order (as setTimeout's are).
    const later: Array<() => void> = [];
    const schedule = (fn: () => void) => void later.push(fn);
    let clock = 0;
    const budget = new TaskBudget(schedule);
    const slicer = new Slicer(budget, schedule, () => clock);
    const tasks: string[][] = [];
    let current: string[] = [];
    for (let i = 0; i < 5; i++) slicer.add({ run: () => ((clock += LIMITS.sliceMs / 2), current.push(`work${i}`)) });
    for (let i = 0; i < 3; i++) slicer.add({ reveal: LIMITS.revealChars / 2 + 1, run: () => current.push(`reveal${i}`) });
    while (later.length > 0) {
      current = [];
      later.shift()!();
      tasks.push(current);
    }
    const ran = tasks.flat();
    expect(ran).toEqual(['work0', 'work1', 'work2', 'work3', 'work4', 'reveal0', 'reveal1', 'reveal2']);
    for (const task of tasks) {
      // Up to LIMITS.sliceMs of work, and one insertion over half the budget, per task.
      expect(task.filter((r) => r.startsWith('work')).length).toBeLessThanOrEqual(2);
      expect(task.filter((r) => r.startsWith('reveal')).length).toBeLessThanOrEqual(1);
    }
  });
});

describe('RenderingCache', () => {
  it('keeps what fits, least recently used out first', () => {
    const cache = new RenderingCache(200);
    const html = (n: number): Rendering => ({ kind: 'html', parts: [{ source: '', html: 'x'.repeat(n) }] });
    for (const key of ['a', 'b', 'c']) cache.set(key, html(19));
    expect(cache.get('a')).toBeDefined();
    for (const key of ['d', 'e', 'f', 'g']) cache.set(key, html(40));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('c')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('g')).toBeDefined();
    // Larger than a quarter of the cache: not kept at all.
    cache.set('huge', html(60));
    expect(cache.get('huge')).toBeUndefined();
  });
});

describe('the pipeline', () => {
  function pipeline() {
    FakeWorker.all = [];
    const timers = fakeTimers();
    const later: Array<() => void> = [];
    let synced = 0;
    const p = createPipeline({
      createWorker: () => new FakeWorker(),
      timers,
      schedule: (fn) => void later.push(fn),
      now: () => 0,
      renderSync: (text) => {
        synced += 1;
        return `<p>${text}</p>`;
      },
      sanitize: (html) => `[${html}]`,
    });
    const runTasks = () => {
      for (let i = 0; i < 100 && later.length > 0; i++) later.splice(0).forEach((fn) => fn());
    };
    return { p, timers, runTasks, synced: () => synced };
  }

  it('renders small texts in place and remembers them', () => {
    const { p, synced } = pipeline();
    expect(p.immediate('**a**', false)).toEqual({ kind: 'html', parts: [{ source: '**a**', html: '<p>**a**</p>' }] });
    expect(p.immediate('**a**', false)).toEqual({ kind: 'html', parts: [{ source: '**a**', html: '<p>**a**</p>' }] });
    expect(synced()).toBe(1);
    expect(p.immediate('x'.repeat(LIMITS.plainChars + 1), false)).toBe(PLAIN_LARGE);
    expect(p.immediate('x'.repeat(LIMITS.syncChars + 1), false)).toBeNull();
  });

  it('renders larger texts in the worker, sanitises in slices, and shows them again without the worker', async () => {
    const { p, runTasks } = pipeline();
    const text = 'x'.repeat(LIMITS.syncChars + 1);
    const request = p.request(text);
    FakeWorker.all[0]!.answer({ chunks: [{ source: 'a', html: '<p>a</p>' }, { source: 'b' }] });
    await flush();
    runTasks();
    const rendering = await request.promise;
    expect(rendering).toEqual({ kind: 'html', parts: [{ source: 'a', html: '[<p>a</p>]' }, { source: 'b', html: null }] });
    expect(p.immediate(text, false)).toBe(rendering);
    expect(FakeWorker.all[0]!.received).toHaveLength(1);
  });

  it('asks the worker whether a whole agrees with its blocks, sanitising nothing; past the deadline or on an error, they differ', async () => {
    const { p, timers } = pipeline();
    const yes = p.agree('one\n\ntwo', ['one', 'two']);
    const w = FakeWorker.all[0]!;
    expect(w.received.at(-1)).toMatchObject({ kind: 'agree', text: 'one\n\ntwo', blocks: ['one', 'two'] });
    w.answer({ agree: true });
    expect(await yes.promise).toBe(true);
    const no = p.agree('- a\n\n- b', ['- a', '- b']);
    FakeWorker.all.at(-1)!.answer({ agree: false });
    expect(await no.promise).toBe(false);
    const slow = p.agree('_a'.repeat(LIMITS.syncChars), ['_a'.repeat(LIMITS.syncChars)]);
    timers.advance(LIMITS.deadlineMs);
    expect(await slow.promise).toBe(false);
    const failing = p.agree('>'.repeat(10_000), ['>'.repeat(10_000)]);
    FakeWorker.all.at(-1)!.fail();
    expect(await failing.promise).toBe(false);
  });

  it('shows a text as plain text past the deadline or on an error, and does not try it again', async () => {
    const { p, timers } = pipeline();
    const slow = '_a'.repeat(LIMITS.syncChars);
    const request = p.request(slow);
    timers.advance(LIMITS.deadlineMs);
    expect(await request.promise).toBe(PLAIN_SLOW);
    expect(p.immediate(slow, false)).toBe(PLAIN_SLOW);
    // What it grows into, streaming, is not handed to the worker again.
    expect(p.immediate(slow + '_a_a', false)).toBe(PLAIN_SLOW);
    const deep = '>'.repeat(10_000);
    const failing = p.request(deep);
    FakeWorker.all.at(-1)!.onmessage?.({ data: { id: FakeWorker.all.at(-1)!.received.at(-1)!.id, ok: false, error: 'Maximum call stack size exceeded' } });
    expect(await failing.promise).toBe(PLAIN_FAILED);
    expect(p.immediate(deep, false)).toBe(PLAIN_FAILED);
  });

  it('asks the worker once for a text shown in two places, and not at all once nobody shows it', async () => {
    const { p } = pipeline();
    const text = 'y'.repeat(LIMITS.syncChars + 1);
    const one = p.request(text);
    const two = p.request(text);
    expect(FakeWorker.all[0]!.received).toHaveLength(1);
    one.cancel();
    two.cancel();
    const other = p.request('z'.repeat(LIMITS.syncChars + 1));
    const gone = p.request('w'.repeat(LIMITS.syncChars + 1));
    gone.cancel();
    FakeWorker.all[0]!.answer({ chunks: [] });
    await flush();
    expect(FakeWorker.all[0]!.received.map((r) => r.kind === 'markdown' && r.text[0])).toEqual(['y', 'z']);
    void other;
  });

  it('reveals parts within the budget of each task', () => {
    const { p, runTasks } = pipeline();
    const part = (n: number) => ({ source: '', html: 'x'.repeat(n) });
    const parts = [part(LIMITS.revealChars / 2), part(LIMITS.revealChars / 2), part(LIMITS.revealChars / 2), part(10)];
    expect(p.revealNow(parts, 0)).toBe(2);
    const shown: number[] = [];
    p.revealLater(parts, 2, (count) => shown.push(count));
    runTasks();
    expect(shown).toEqual([3, 4]);
  });

  it('highlights small code at once, large code in the worker, and huge or slow code not at all', async () => {
    const { p, timers } = pipeline();
    expect(p.immediateHighlight('const a = 1;', 'ts')).toContain('hljs-keyword');
    expect(p.immediateHighlight('const a = 1;', undefined)).toBeNull();
    expect(p.immediateHighlight('x'.repeat(LIMITS.highlightChars + 1), 'ts')).toBeNull();
    const code = '_a'.repeat(LIMITS.highlightSyncChars);
    expect(p.immediateHighlight(code, 'ts')).toBeUndefined();
    const slow = p.requestHighlight(code, 'ts');
    timers.advance(LIMITS.deadlineMs);
    expect(await slow.promise).toBeNull();
    expect(p.immediateHighlight(code, 'ts')).toBeNull();
    const fine = p.requestHighlight('let b = 2;\n'.repeat(300), 'ts');
    FakeWorker.all.at(-1)!.answer({ html: '<span class="hljs-keyword">let</span>' });
    expect(await fine.promise).toBe('<span class="hljs-keyword">let</span>');
  });
});

describe('markdownChunks', () => {
  const DOC = [
    '# Title',
    'Some **bold** and [a link][ref], a loose list:',
    '- one\n\n- two\n\n- three',
    '```ts\nconst a = 1;\n```',
    '> quote\n> more',
    '<div class="x">raw</div>',
    '| a | b |\n|---|---|\n| 1 | 2 |',
    '[ref]: https://example.com "t"',
  ].join('\n\n');

  it("joined, is markdownHtml's HTML, in parts of whole blocks", () => {
    const text = Array.from({ length: 400 }, (_, i) => DOC.replace('Title', `Title ${i}`)).join('\n\n');
    const chunks = markdownChunks(text);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.map((c) => c.html).join('')).toBe(markdownHtml(text));
    expect(chunks.map((c) => c.source).join('')).toBe(text);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.html!.length).toBeLessThanOrEqual(32_000);
    // The reference defined at the end applies to the links before it.
    expect(chunks[0]!.html).toContain('<a href="https://example.com" title="t">a link</a>');
  });

  it('shows a block too large to insert at once as plain text, and a huge code block without highlighting first', () => {
    const code = '```ts\n' + 'const a = 1;\n'.repeat(6_000) + '```';
    const [codeChunk] = markdownChunks(code);
    expect(codeChunk!.html).toContain('<div class="code-block">');
    expect(codeChunk!.html).not.toContain('hljs-keyword');
    const paragraph = '**b** '.repeat(30_000);
    const chunks = markdownChunks(`intro\n\n${paragraph}\n\noutro`);
    expect(chunks.map((c) => c.html === undefined)).toEqual([false, true, false]);
    expect(chunks[1]!.source).toContain('**b** **b**');
  });
});

describe('warming up', () => {
  it('compiles the grammars and runs the parser in idle time, one step an idle period, once a page', () => {
    const queued: Array<(deadline: { timeRemaining(): number }) => void> = [];
    const idle = (fn: (deadline: { timeRemaining(): number }) => void): void => void queued.push(fn);
    let ran = 0;
    const steps = Array.from({ length: 5 }, () => () => void (ran += 1));
    warmMarkdown(idle, steps);
    expect(queued).toHaveLength(1);
    expect(ran).toBe(0);
    // No idle time left: nothing runs, it asks again.
    queued.shift()!({ timeRemaining: () => 0 });
    expect(queued).toHaveLength(1);
    // A long idle period still runs one step: the next waits for the next period.
    for (let step = 1; step <= 5; step++) {
      queued.shift()!({ timeRemaining: () => 50 });
      expect(ran).toBe(step);
      expect(queued).toHaveLength(step < 5 ? 1 : 0);
    }
    warmMarkdown(idle, steps);
    expect(queued).toHaveLength(0);
    expect(ran).toBe(5);
  });
});
