// Issue 82: a 10,000-message thread in the window. `deepdesk serve` on a data folder holding
// it and a short thread; in headless Chromium the long one is opened from the thread list ten
// times, the short one between: the time from the click to its last message on screen, the
// longest frame meanwhile (requestAnimationFrame intervals), and the page's JS heap after a
// collection following each open, and of it the page's objects without V8's compiled code
// (which grows as more functions get hot): flat, the tenth beside the first. Its floor is the
// same open of the 6-message thread. Then, open, it is gone up to its first message (page by page,
// at the top with `Show earlier messages`) and the thread list is searched for its last
// message: the longest frame of each; at the first message, ten screens down and back.

import { chromium, type Page } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatMs, median } from './measure';
import { progress, verdict, type Report } from './report';
import { builtCli, startServe } from './serve-process';
import { dataWithThreads, threadMessages } from './thread-fixture';
import { CHROMIUM, CHROMIUM_ARGS, intervals, openApp, startFrames, stopFrames } from './window';

const MESSAGES = 10_000;
const OPENS = 10;

/** A thread of `count` messages whose last one is the marker its open waits for. */
const endingWith = (id: string, count: number) => ({ id, messages: [...threadMessages(count - 1), { role: 'user' as const, content: `END-OF-${id}` }] });

interface Open {
  ms: number;
  longestFrame: number;
}

/** The thread list (found before frames are recorded: finding by role walks the whole page, thousands of rows of a long thread too). */
const THREADS = 'section[aria-label="Threads"]';

async function open(page: Page, id: string): Promise<Open> {
  const button = (await page.locator(THREADS).getByRole('button', { name: new RegExp(id) }).first().elementHandle())!;
  await startFrames(page);
  const start = performance.now();
  await button.click();
  await page.waitForFunction((marker) => (document.querySelector('[role="log"]')?.textContent ?? '').includes(marker), `END-OF-${id}`, { timeout: 60_000, polling: 'raf' });
  const ms = performance.now() - start;
  return { ms, longestFrame: Math.max(0, ...intervals(await stopFrames(page))) };
}

/** Goes up the open thread's log to its first message, page by page, until no earlier page is left: its longest frame, and how long it took. */
async function scrollToTop(page: Page): Promise<{ ms: number; longestFrame: number; rows: number; onPage: number }> {
  await startFrames(page);
  const start = performance.now();
  await page.waitForFunction(
    () => {
      const log = document.querySelector('[role="log"]')!;
      const button = log.querySelector<HTMLButtonElement>('.earlier-row button');
      if (button === null) return true;
      // At the top, as the person is; a scroll to where it already is asks for nothing, the button does.
      log.scrollTop = 0;
      if (!button.disabled) button.click();
      return false;
    },
    undefined,
    { timeout: 600_000, polling: 100 },
  );
  const ms = performance.now() - start;
  const longestFrame = Math.max(0, ...intervals(await stopFrames(page)));
  return { ms, longestFrame, ...(await rowsOf(page)) };
}

/** The log's rows: loaded (those on the page, and those a spacer stands for), and on the page. */
const rowsOf = (page: Page): Promise<{ rows: number; onPage: number }> =>
  page.evaluate(() => {
    const log = document.querySelector('[role="log"]')!;
    const onPage = log.querySelectorAll(':scope > .conversation-row').length;
    const spaced = [...log.querySelectorAll<HTMLElement>(':scope > .conversation-spacer')].reduce((n, s) => n + Number(s.dataset.rows), 0);
    return { rows: onPage + spaced, onPage };
  });

/** Scrolls the log down `screens` screens and back up, one 200 px step a frame, as a wheel does: the longest frame. */
async function scrollScreens(page: Page, screens: number): Promise<number> {
  await startFrames(page);
  await page.evaluate(
    (count) =>
      new Promise<void>((done) => {
        const log = document.querySelector('[role="log"]')!;
        const steps = Math.ceil((count * log.clientHeight) / 200);
        let step = 0;
        const next = (): void => {
          if (step === 2 * steps) return done();
          log.scrollTop += step++ < steps ? 200 : -200;
          requestAnimationFrame(next);
        };
        requestAnimationFrame(next);
      }),
    screens,
  );
  return Math.max(0, ...intervals(await stopFrames(page)));
}

/** Searches the thread list for `text` (a message's, found by the server) until the thread shows it: the longest frame. */
async function search(page: Page, text: string): Promise<number> {
  const box = (await page.locator(THREADS).getByRole('searchbox', { name: 'Search threads' }).elementHandle())!;
  await startFrames(page);
  await box.fill(text);
  await page.waitForFunction(([list, found]) => (document.querySelector(list)?.textContent ?? '').includes(found), [THREADS, text] as const, { timeout: 60_000, polling: 'raf' });
  const frame = Math.max(0, ...intervals(await stopFrames(page)));
  await box.fill('');
  return frame;
}

async function heapAfterGc(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  await cdp.detach();
  return usedSize;
}

/**
 * The page's objects after a collection, from a heap snapshot: every node's own size but V8's
 * compiled code (`code` nodes: instruction streams, feedback and bytecode arrays), which grows
 * as functions are optimized, open after open, and is bounded by the page's code, not its data.
 */
async function objectsAfterGc(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  const chunks: string[] = [];
  cdp.on('HeapProfiler.addHeapSnapshotChunk', (event) => chunks.push(event.chunk));
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  await cdp.detach();
  const snapshot = JSON.parse(chunks.join('')) as { snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }; nodes: number[] };
  const fields = snapshot.snapshot.meta.node_fields;
  const type = fields.indexOf('type');
  const size = fields.indexOf('self_size');
  const code = snapshot.snapshot.meta.node_types[0].indexOf('code');
  let bytes = 0;
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) if (snapshot.nodes[i + type] !== code) bytes += snapshot.nodes[i + size]!;
  return bytes;
}

const mb = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MB`;

export async function benchLongThreadWindow(report: Report, repo: string): Promise<void> {
  const section = report.section('Issue 82 · a 10,000-message thread in the window (deepdesk serve, headless Chromium)');
  if (builtCli(repo) === null) {
    section.rows.push({ name: 'long thread in the window', ours: 'not yet measurable: the app is not built (npm run build)' });
    return;
  }
  progress(`long thread: a ${MESSAGES.toLocaleString('en-US')}-message thread opened ${OPENS} times in the window, a short one between`);
  const folder = mkdtempSync(path.join(tmpdir(), 'deepdesk-bench-long-window-folder-'));
  const serve = await startServe(repo, { folder, dataDir: dataWithThreads(folder, [endingWith('bench-long', MESSAGES), endingWith('bench-short', 6)]) });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  try {
    const page = await openApp(browser, serve.url);
    const long: Open[] = [];
    const short: Open[] = [];
    const heaps: number[] = [];
    const objects: number[] = [];
    for (let i = 0; i < OPENS; i++) {
      long.push(await open(page, 'bench-long'));
      heaps.push(await heapAfterGc(page));
      if (i === 0 || i === OPENS - 1) objects.push(await objectsAfterGc(page));
      short.push(await open(page, 'bench-short'));
    }
    const ms = median(long.map((o) => o.ms));
    const frame = Math.max(...long.map((o) => o.longestFrame));
    const growth = heaps.at(-1)! / heaps[0]!;
    const objectsGrowth = objects[1]! / objects[0]!;
    section.rows.push({
      name: `open a ${MESSAGES.toLocaleString('en-US')}-message thread from the list, to its last message on screen (${OPENS} opens)`,
      ours: formatMs(ms),
      floor: `6 messages: ${formatMs(median(short.map((o) => o.ms)))}`,
      target: '≤ 1 s',
      result: verdict(ms <= 1_000),
    });
    section.rows.push({ name: '  its longest frame while opening (all opens)', ours: formatMs(frame), floor: `6 messages: ${formatMs(Math.max(...short.map((o) => o.longestFrame)))}`, target: '≤ 50 ms', result: verdict(frame <= 50) });
    section.rows.push({
      name: `  the page's JS heap after a collection, after the 1st and the ${OPENS}th open`,
      ours: `${mb(heaps[0]!)} → ${mb(heaps.at(-1)!)} (×${growth.toFixed(2)})`,
      target: '—',
    });
    section.rows.push({
      name: `    of it the page's objects (V8's compiled code left out), after the 1st and the ${OPENS}th open`,
      ours: `${mb(objects[0]!)} → ${mb(objects[1]!)} (×${objectsGrowth.toFixed(2)})`,
      target: 'flat (≤ ×1.1)',
      result: verdict(objectsGrowth <= 1.1),
    });
    await open(page, 'bench-long');
    const top = await scrollToTop(page);
    section.rows.push({
      name: `  up to its first message, page by page (${formatMs(top.ms)}, ${top.rows.toLocaleString('en-US')} rows, ${top.onPage.toLocaleString('en-US')} on the page at the top): its longest frame`,
      ours: formatMs(top.longestFrame),
      target: '≤ 50 ms',
      result: verdict(top.longestFrame <= 50),
    });
    const wheel = await scrollScreens(page, 10);
    section.rows.push({ name: `  at its first message, ${top.rows.toLocaleString('en-US')} rows loaded: 10 screens down and back, 200 px a frame: its longest frame`, ours: formatMs(wheel), target: '≤ 50 ms', result: verdict(wheel <= 50) });
    const found = await search(page, 'END-OF-bench-long');
    section.rows.push({ name: '  the thread list searched for its last message: its longest frame', ours: formatMs(found), target: '≤ 50 ms', result: verdict(found <= 50) });
  } finally {
    await browser.close();
    await serve.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}
