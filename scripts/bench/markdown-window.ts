// Issues 79 (M17) and 82: text the model or the folder controls has a bounded cost on the page's
// main thread. In headless Chromium against `deepdesk serve` and the scripted model, the
// pathological answers of markdown-cases (and 150 KB of `_a`, under the plain-text size limit)
// are streamed in and shown, shown again after switching threads, and a 400 KB pathological
// `.md` file is opened in the file viewer (as plain text, rendered on request, as source), as
// are 150 KB of `_a` as `.md` and 98 KB of `_a` as TypeScript, while Chromium's trace records
// the page's main-thread tasks. Each case's longest task, by its thread time (on a loaded
// machine a task's wall time also holds the wait for a core), beside the floor: the same page
// showing an ordinary short answer, in the same run. Goal: no task over 200 ms.

import { chromium, type Browser, type Page } from 'playwright-core';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { lastUserText, startScriptedServer, type RecordedRequest, type ScriptStep } from '../../src-main/core/models/testing/scripted-server';
import { ordinaryMarkdown, PATHOLOGICAL, pathologicalFile, UNDERSCORES_MID } from './markdown-cases';
import { formatMs } from './measure';
import { progress, verdict, type Report, type Section } from './report';
import { builtCli, startServe } from './serve-process';
import { CHROMIUM, CHROMIUM_ARGS, openApp } from './window';

/** The most main-thread work one task may do. */
const GOAL_MS = 200;
/** Generous: on a loaded machine rendering takes its time; what counts is what the trace measures. */
const WAIT_MS = 180_000;

interface Task {
  /** The longest main-thread task's thread (CPU) time: what keeps the page from answering. */
  blocked: number;
  /** The same task's wall-clock time. */
  wall: number;
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

/** The page's main-thread tasks from Chromium's trace, period by period. */
class TaskTrace {
  constructor(
    private readonly browser: Browser,
    private readonly page: Page,
  ) {}

  start(): Promise<void> {
    return this.browser.startTracing(this.page, { categories: ['disabled-by-default-devtools.timeline'] });
  }

  stop(): Promise<Buffer> {
    return this.browser.stopTracing();
  }

  /** The longest task since the last call (or start), and starts a new period. */
  async take(): Promise<Task> {
    const trace = JSON.parse((await this.stop()).toString('utf8')) as { traceEvents: TraceEvent[] };
    await this.start();
    const main = new Set(trace.traceEvents.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
    let longest: Task = { blocked: 0, wall: 0 };
    for (const e of trace.traceEvents) {
      if (e.name !== 'RunTask' || e.ph !== 'X' || !main.has(`${e.pid}:${e.tid}`)) continue;
      const cpu = (e.tdur ?? e.dur ?? 0) / 1000;
      if (cpu > longest.blocked) longest = { blocked: cpu, wall: (e.dur ?? 0) / 1000 };
    }
    return longest;
  }
}

/** Until the last finished answer includes `marker` and no Markdown is still being rendered. */
async function answerShown(page: Page, marker: string): Promise<void> {
  await page.waitForFunction(
    (m) => {
      const messages = document.querySelectorAll('.msg-assistant:not(.streaming)');
      return (messages[messages.length - 1]?.textContent?.includes(m) ?? false) && document.querySelector('.markdown[aria-busy="true"]') === null;
    },
    marker,
    { timeout: WAIT_MS, polling: 100 },
  );
}

/** Until the file viewer shows `marker` and nothing in it is still being rendered or highlighted. */
async function viewerShown(page: Page, marker: string): Promise<void> {
  await page.waitForFunction(
    (m) => (document.querySelector('.viewer-body')?.textContent?.includes(m) ?? false) && document.querySelector('.viewer-body [aria-busy="true"]') === null,
    marker,
    { timeout: WAIT_MS, polling: 100 },
  );
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

/** What the page shows a text as: rendered, or plain text and why (its note). */
const shownAs = async (page: Page, selector: string): Promise<string> => {
  const note = await page.evaluate((s) => {
    const all = document.querySelectorAll(s);
    return all[all.length - 1]?.querySelector('[role="note"]')?.textContent ?? '';
  }, selector);
  if (/too large/i.test(note)) return 'plain text: too large';
  if (/too long/i.test(note)) return 'plain text: out of time';
  return /could not be rendered/i.test(note) ? 'plain text: parse error' : 'rendered';
};

export async function benchMarkdownWindow(report: Report, repo: string): Promise<void> {
  const section = report.section('Issues 79 and 82 · the page while pathological Markdown renders (deepdesk serve, headless Chromium)');
  if (builtCli(repo) === null) {
    section.rows.push({ name: 'Markdown in the window', ours: 'not yet measurable: the app is not built (npm run build)' });
    return;
  }
  const answers: Record<string, { text: string; pace?: boolean }> = {
    warm: { text: ordinaryMarkdown(2, 1_000) },
    short: { text: ordinaryMarkdown(2, 2_000) },
    underscores: { text: PATHOLOGICAL.underscores, pace: true },
    underscoresMid: { text: UNDERSCORES_MID },
    nestedLists: { text: PATHOLOGICAL.nestedLists },
    nestedListLines: { text: PATHOLOGICAL.nestedListLines },
    stars: { text: PATHOLOGICAL.stars },
    openers: { text: PATHOLOGICAL.openers },
    blockquotes: { text: PATHOLOGICAL.blockquotes },
    ordinary: { text: ordinaryMarkdown(300), pace: true },
  };
  progress(`Markdown in the window: ${Object.keys(answers).length - 2} answers and 4 files, the page's longest main-thread task each`);
  // Each answer by the message asking for it: the thread grows past the context budget, and
  // the summaries the app asks for in between get a short text of their own.
  const answer = (request: RecordedRequest): ScriptStep => {
    const asked = lastUserText(request).trim();
    const name = asked.replace(/^Show case /, '');
    const found = asked === name ? undefined : answers[name];
    if (found) return { text: `${found.text}\n\nEND-OF-${name}`, ...(found.pace ? { pace: { chunkChars: 4_000, chunksPerSecond: 40 } } : {}) };
    if (asked === 'Something else') return { text: 'A **short** answer elsewhere.\n\nEND-OF-else' };
    return { text: 'Earlier messages, summarized.' };
  };
  const folder = mkdtempSync(path.join(tmpdir(), 'deepdesk-bench-markdown-'));
  writeFileSync(path.join(folder, 'big.md'), pathologicalFile());
  writeFileSync(path.join(folder, 'mid.md'), `# Mid\n\n${UNDERSCORES_MID}\n\nEND-OF-MID\n`);
  writeFileSync(path.join(folder, 'slow.ts'), `${'_a'.repeat(49_000)}\n// END-OF-CODE\n`);
  writeFileSync(path.join(folder, 'short.md'), `${ordinaryMarkdown(2)}\n\nEND-OF-SHORT\n`);
  const model = await startScriptedServer(Array.from({ length: 60 }, () => answer));
  const serve = await startServe(repo, { modelUrl: model.url, folder });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  try {
    const page = await openApp(browser, serve.url);
    const trace = new TaskTrace(browser, page);
    // A first answer, not measured: the page's first render of a message is no floor.
    await send(page, 'Show case warm');
    await answerShown(page, 'END-OF-warm');
    await trace.start();
    await trace.take();
    await send(page, 'Show case short');
    await answerShown(page, 'END-OF-short');
    const floor = await trace.take();
    const row = (name: string, task: Task, shown?: string): void => {
      section.rows.push({
        name: `  ${name}${shown ? ` (${shown})` : ''}`,
        ours: `${formatMs(task.blocked)} (wall ${formatMs(task.wall)})`,
        floor: `short answer: ${formatMs(floor.blocked)}`,
        target: `≤ ${GOAL_MS} ms`,
        result: verdict(task.blocked <= GOAL_MS),
      });
    };
    section.rows.push({ name: 'the longest main-thread task (thread time) while each is shown', ours: '' });

    for (const name of Object.keys(answers).filter((n) => n !== 'warm' && n !== 'short')) {
      progress(`Markdown in the window: answer ${name}`);
      await send(page, `Show case ${name}`);
      await answerShown(page, `END-OF-${name}`);
      row(`answer: ${name}, ${Math.round(answers[name]!.text.length / 1000)} KB`, await trace.take(), await shownAs(page, '.msg-assistant'));
    }

    // Away to another thread and back: shown again without parsing again.
    const threads = page.getByRole('region', { name: 'Threads' });
    await threads.getByRole('button', { name: 'New thread' }).click();
    await send(page, 'Something else');
    await answerShown(page, 'END-OF-else');
    await trace.take();
    for (const again of ['back', 'back again']) {
      await threads.getByRole('button', { name: /Show case warm/ }).first().click();
      await answerShown(page, 'END-OF-ordinary');
      row(`the thread of all these answers, switched ${again}`, await trace.take());
      await threads.getByRole('button', { name: /Something else/ }).first().click();
      await answerShown(page, 'END-OF-else');
      await trace.take();
    }

    await viewerCases(page, trace, row, section);
    await trace.stop();
  } finally {
    await browser.close();
    await serve.stop();
    await model.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

async function viewerCases(page: Page, trace: TaskTrace, row: (name: string, task: Task, shown?: string) => void, section: Section): Promise<void> {
  const files = page.getByRole('region', { name: 'Files' });
  const viewer = page.getByRole('region', { name: 'File viewer' });
  const open = async (file: string, marker: string): Promise<void> => {
    progress(`Markdown in the window: file ${file}`);
    await files.getByRole('treeitem', { name: file }).click();
    await viewerShown(page, marker);
  };
  await open('short.md', 'END-OF-SHORT');
  await trace.take();
  await open('mid.md', 'END-OF-MID');
  row('file viewer: mid.md, 150 KB of `_a`', await trace.take(), await shownAs(page, '.viewer-body'));
  await open('big.md', 'END-OF-FILE');
  row('file viewer: big.md, 400 KB, opened', await trace.take(), await shownAs(page, '.viewer-body'));
  await viewer.getByRole('button', { name: 'Render Markdown' }).click();
  // Rendered, or past the worker's deadline or its error, the note no longer says it is too large.
  await page.waitForFunction(() => !/too large/i.test(document.querySelector('.viewer-body [role="note"]')?.textContent ?? ''), undefined, { timeout: WAIT_MS, polling: 100 });
  await viewerShown(page, 'END-OF-FILE');
  row('file viewer: big.md, Render Markdown', await trace.take(), await shownAs(page, '.viewer-body'));
  await viewer.getByRole('button', { name: 'Show source' }).click();
  await viewerShown(page, 'END-OF-FILE');
  row('file viewer: big.md, Show source', await trace.take());
  await open('slow.ts', 'END-OF-CODE');
  const highlighted = await viewer.locator('.code-text [class^="hljs-"]').count();
  row('file viewer: slow.ts, 98 KB of `_a` as TypeScript', await trace.take(), highlighted === 0 ? 'plain' : 'highlighted');
  section.notes.push(`each answer and file in one page, in this order; the floor is a second ordinary 1 KB answer after a first; load ${os.loadavg()[0]!.toFixed(1)}`);
}
