// Text the model or the folder controls has a bounded cost on the page's main thread: in
// headless Chromium against `deepdesk serve` and the scripted model, generated pathological
// Markdown (a 240 KB `_a_a_a…` answer streamed in, deep nested lists, `*a**a***a…`, long runs
// of `[`, `(` and backticks, 10,000-level blockquotes, a 400 KB `.md` file in the folder) is
// sent, shown, shown again after switching threads, and opened in the file viewer, while
// Chromium's trace records the page's main-thread tasks. No task may do more than 200 ms of
// main-thread work (its thread time: the wait for a core on a loaded machine does not count).
// Ordinary Markdown still renders (headings, lists, code blocks), large or not.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { lastUserText, type RecordedRequest, type ScriptStep } from '../src-main/core/models/testing/scripted-server';
import { conversation, openApp, screenshot, sendMessage, useE2ESession } from './harness';

const e2e = useE2ESession();

/** The most main-thread work one task may do. */
const BUDGET_MS = 200;

// ------------------------------------------------------------------ the page's main thread

interface Period {
  /** The longest main-thread task, in the thread's own (CPU) time: what keeps the page from answering. */
  blocked: number;
  /** The same task's wall-clock time (on a loaded machine it also counts the wait for a core). */
  task: number;
}

/**
 * Main-thread tasks from Chromium's trace, period by period. A task counts by its thread time
 * (`tdur`), not its wall time: on a loaded machine a task's wall time also holds the time the
 * page waited for a core, which is the machine's doing, not the page's.
 */
class TaskTrace {
  constructor(private readonly page: Page) {}

  private get browser() {
    return this.page.context().browser()!;
  }

  /** Starts tracing until the test ends. */
  async start(): Promise<void> {
    await this.trace();
    onTestFinished(async () => {
      await this.browser.stopTracing();
    });
  }

  private trace(): Promise<void> {
    return this.browser.startTracing(this.page, { categories: ['disabled-by-default-devtools.timeline'] });
  }

  /** The period since the last call (or start), and starts a new one. */
  async take(): Promise<Period> {
    const trace = JSON.parse((await this.browser.stopTracing()).toString('utf8')) as { traceEvents: TraceEvent[] };
    await this.trace();
    const main = new Set(trace.traceEvents.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
    let longest: Period = { blocked: 0, task: 0 };
    for (const e of trace.traceEvents) {
      if (e.name !== 'RunTask' || e.ph !== 'X' || !main.has(`${e.pid}:${e.tid}`)) continue;
      const cpu = (e.tdur ?? e.dur ?? 0) / 1000;
      if (cpu > longest.blocked) longest = { blocked: cpu, task: (e.dur ?? 0) / 1000 };
    }
    return longest;
  }
}

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

const show = (periods: Record<string, Period>): string =>
  Object.entries(periods)
    .map(([name, p]) => `${name}: blocked ${Math.round(p.blocked)} (wall ${Math.round(p.task)})`)
    .join('; ');

/** Waits, cheaply (no layout), until the last assistant message's text includes `marker`. */
async function waitForAnswer(page: Page, marker: string, timeout = 90_000): Promise<void> {
  await page.waitForFunction(
    (m) => {
      const messages = document.querySelectorAll('.msg-assistant:not(.streaming)');
      return messages[messages.length - 1]?.textContent?.includes(m) ?? false;
    },
    marker,
    { timeout, polling: 50 },
  );
}

/** Waits until no Markdown in the page is still being rendered (handed off, or shown in parts). */
// Generous: on a loaded machine the render takes its time; the budget is what the trace measures.
async function waitForRendered(page: Page, timeout = 90_000): Promise<void> {
  await page.waitForFunction(() => document.querySelector('.markdown[aria-busy="true"]') === null, undefined, { timeout, polling: 50 });
}

// -------------------------------------------------------------------- generated Markdown

const pathological = {
  /** 240 KB of `_a`: quadratic emphasis matching. */
  underscores: '_a'.repeat(120_000),
  /** 150 KB of `_a` (under the plain-text size limit: the parse deadline must catch it). */
  underscoresMid: '_a'.repeat(75_000),
  /** 60,000 nested list markers on one line. */
  nestedLists: '- '.repeat(60_000) + 'x',
  /** 600 lines, each indented one level deeper. */
  nestedListLines: Array.from({ length: 600 }, (_, i) => `${'  '.repeat(i)}- item ${i}`).join('\n'),
  /** Mixed emphasis delimiters. */
  stars: '*a**a***a'.repeat(16_000),
  /** Long runs of openers. */
  openers: '['.repeat(50_000) + '('.repeat(50_000) + '`'.repeat(50_000) + '[a]('.repeat(10_000),
  /** A 10,000-level blockquote, on one line and as a staircase of lines. */
  blockquotes: '>'.repeat(10_000) + ' deep\n\n' + Array.from({ length: 2_000 }, (_, i) => '>'.repeat(i + 1) + ' q').join('\n'),
};

/** About 120 KB of ordinary Markdown: headings, lists, emphasis, links, code blocks. */
function ordinary(): string {
  const parts: string[] = [];
  for (let i = 0; i < 300; i++) {
    parts.push(`## Section ${i}`, `Some **bold** text, some _emphasis_, a [link](https://example.com/${i}) and \`src/file${i}.ts\`.`);
    parts.push(`- first point ${i}\n- second point\n  - nested`, '```ts\n' + `const value${i} = compute(${i});\nexport function f${i}(x: number): number {\n  return x * ${i};\n}\n` + '```');
  }
  return parts.join('\n\n');
}

describe('Markdown rendering has a bounded cost on the main thread', () => {
  it('answers: pathological Markdown streamed in, shown, and shown again after switching threads', { timeout: 300_000 }, async () => {
    const cases: Array<{ name: string; text: string; pace?: boolean }> = [
      { name: 'underscores', text: pathological.underscores, pace: true },
      { name: 'underscoresMid', text: pathological.underscoresMid },
      { name: 'nestedLists', text: pathological.nestedLists },
      { name: 'nestedListLines', text: pathological.nestedListLines },
      { name: 'stars', text: pathological.stars },
      { name: 'openers', text: pathological.openers },
      { name: 'blockquotes', text: pathological.blockquotes },
      { name: 'ordinary', text: ordinary(), pace: true },
    ];
    // Each answer by the message asking for it: the thread grows past the context budget, and
    // the summaries the app asks for in between get a short text of their own.
    const answer = (request: RecordedRequest): ScriptStep => {
      const asked = lastUserText(request).trim();
      const found = cases.find(({ name }) => asked === `Show case ${name}`);
      if (found) return { text: `${found.text}\n\nEND-OF-${found.name}`, ...(found.pace ? { pace: { chunkChars: 4_000, chunksPerSecond: 40 } } : {}) };
      if (asked === 'Something else') return { text: 'A **short** answer elsewhere.' };
      return { text: 'Earlier messages, summarized.' };
    };
    const script: ScriptStep[] = Array.from({ length: 40 }, () => answer);
    const serve = await e2e.serve({ script });
    const page = await openApp(e2e.browser, serve.url);
    const trace = new TaskTrace(page);
    await trace.start();

    const periods: Record<string, Period> = {};
    for (const { name } of cases) {
      await trace.take();
      await sendMessage(page, `Show case ${name}`);
      await waitForAnswer(page, `END-OF-${name}`);
      await waitForRendered(page);
      periods[name] = await trace.take();
      console.log(`markdown-budget: ${name} shown: ${show({ [name]: periods[name]! })} (ms)`);
    }

    // The ordinary answer is rendered Markdown, not plain text.
    const last = conversation(page).locator('.msg-assistant').last();
    // Its `## Section` headings are h3: an answer's headings start below the thread title's h1.
    // Rendered in parts (the worker's, then the page's): counted once all are in.
    await expect.poll(() => last.locator('h3').count(), { timeout: 60_000 }).toBeGreaterThan(100);
    await expect.poll(() => last.locator('.code-block').count(), { timeout: 60_000 }).toBeGreaterThan(100);
    expect(await last.locator('strong').first().textContent()).toBe('bold');
    // The 240 KB answer is shown as plain text, and says so.
    const first = conversation(page).locator('.msg-assistant').first();
    expect(await first.getByRole('note').textContent()).toMatch(/plain text/i);
    await screenshot(page, 'markdown-budget-answers');

    // Away to another thread and back: shown again without parsing again.
    const threads = page.getByRole('region', { name: 'Threads' });
    await trace.take();
    await threads.getByRole('button', { name: 'New thread' }).click();
    await sendMessage(page, 'Something else');
    await conversation(page).getByText('A short answer elsewhere.').waitFor({ timeout: 60_000 });
    expect(await conversation(page).locator('strong').textContent()).toBe('short');
    await threads.getByRole('button', { name: /Show case underscores/ }).first().click();
    await waitForAnswer(page, 'END-OF-ordinary');
    await waitForRendered(page);
    periods.switchBack = await trace.take();
    await threads.getByRole('button', { name: /Something else/ }).first().click();
    await conversation(page).getByText('A short answer elsewhere.').waitFor({ timeout: 60_000 });
    await threads.getByRole('button', { name: /Show case underscores/ }).first().click();
    await waitForAnswer(page, 'END-OF-ordinary');
    await waitForRendered(page);
    periods.switchAgain = await trace.take();

    console.log(`markdown-budget answers (ms): ${show(periods)}`);
    for (const [name, period] of Object.entries(periods)) expect(period.blocked, name).toBeLessThanOrEqual(BUDGET_MS);
  });

  it('the file viewer: a 400 KB pathological .md file written into the folder, rendered on request', { timeout: 180_000 }, async () => {
    const serve = await e2e.serve();
    const big = [pathological.underscores, pathological.stars.slice(0, 60_000), pathological.openers.slice(0, 60_000), pathological.nestedLists.slice(0, 40_000)].join('\n\n') + '\n\nEND-OF-FILE\n';
    expect(big.length).toBeGreaterThan(400_000);
    writeFileSync(join(serve.folder, 'big.md'), big);
    writeFileSync(join(serve.folder, 'mid.md'), `# Mid\n\n${pathological.underscoresMid}\n\nEND-OF-MID\n`);
    writeFileSync(join(serve.folder, 'slow.ts'), `${'_a'.repeat(49_000)}\n// END-OF-CODE\n`);
    const page = await openApp(e2e.browser, serve.url);
    const trace = new TaskTrace(page);
    await trace.start();
    const files = page.getByRole('region', { name: 'Files' });
    const viewer = page.getByRole('region', { name: 'File viewer' });
    const viewerHas = (marker: string) =>
      page.waitForFunction((m) => document.querySelector('.viewer-body')?.textContent?.includes(m) ?? false, marker, { timeout: 30_000, polling: 50 });
    const periods: Record<string, Period> = {};

    // Under the size limit: rendered in the worker, which runs out of time.
    await trace.take();
    await files.getByRole('treeitem', { name: 'mid.md' }).click();
    await viewerHas('END-OF-MID');
    await expect.poll(() => viewer.getByRole('note').textContent(), { timeout: 30_000 }).toMatch(/took too long/i);
    await waitForRendered(page);
    periods.mid = await trace.take();

    await files.getByRole('treeitem', { name: 'big.md' }).click();
    await viewerHas('END-OF-FILE');
    await waitForRendered(page);
    periods.open = await trace.take();
    // Too large to render by default: plain text, with a way to render it anyway.
    expect(await viewer.getByRole('note').textContent()).toMatch(/too large/i);
    await screenshot(page, 'markdown-budget-viewer-large');

    await viewer.getByRole('button', { name: 'Render Markdown' }).click();
    // Past the worker's deadline, or its error (a stack overflow on the nested lists), whichever comes first.
    await expect.poll(() => viewer.getByRole('note').textContent(), { timeout: 30_000 }).toMatch(/took too long|could not be rendered/i);
    await viewerHas('END-OF-FILE');
    await waitForRendered(page);
    periods.renderAnyway = await trace.take();

    await viewer.getByRole('button', { name: 'Show source' }).click();
    await viewerHas('END-OF-FILE');
    periods.source = await trace.take();

    // Code the highlighter takes minutes over (98 KB of `_a` as TypeScript): plain text meanwhile and after.
    await files.getByRole('treeitem', { name: 'slow.ts' }).click();
    await viewerHas('END-OF-CODE');
    // Past the worker's deadline the view is no longer busy, and the code stays plain text.
    await page.waitForFunction(() => document.querySelector('.code-view:not([aria-busy])') !== null, undefined, { timeout: 30_000, polling: 50 });
    expect(await viewer.locator('.code-text .hljs-title, .code-text [class^="hljs-"]').count()).toBe(0);
    periods.code = await trace.take();
    await screenshot(page, 'markdown-budget-viewer');

    console.log(`markdown-budget viewer (ms): ${show(periods)}`);
    for (const [name, period] of Object.entries(periods)) expect(period.blocked, name).toBeLessThanOrEqual(BUDGET_MS);
  });
});
