// Issue 82: a window open on 20 finished threads, idle for 60 s. The CPU of `deepdesk serve`,
// its agent host and the page's main thread (Chromium's ThreadTime) over the minute, as a share
// of one core, and the page's timers: callbacks of setTimeout, setInterval and
// requestAnimationFrame fired meanwhile (more than one a second is a timer more often than
// once a second). Beside the same with 1 thread: an idle window's cost must not grow with them.

import { chromium, type Page } from 'playwright-core';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { progress, verdict, type Report } from './report';
import { builtCli, startServe } from './serve-process';
import { dataWithThreads, threadMessages } from './thread-fixture';
import { CHROMIUM, CHROMIUM_ARGS } from './window';

const IDLE_MS = 60_000;
/** The kernel's clock ticks a second (USER_HZ) that /proc counts CPU time in: 100 on Linux. */
const TICKS = 100;

/** Counts the page's timer callbacks from its start (installed before its own scripts). */
const TIMER_PROBE = `
  window.__timers = 0;
  for (const name of ['setTimeout', 'setInterval']) {
    const original = window[name];
    window[name] = function (callback, ...rest) {
      if (typeof callback !== 'function') return original.call(window, callback, ...rest);
      return original.call(window, function (...args) { window.__timers++; return callback.apply(this, args); }, ...rest);
    };
  }
  const raf = window.requestAnimationFrame;
  window.requestAnimationFrame = (callback) => raf.call(window, (t) => { window.__timers++; callback(t); });
`;

/** A process's user and system CPU so far, in ms (Linux: /proc). */
function cpuMs(pid: number | null): number {
  if (pid === null) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
  } catch {
    return 0;
  }
}

/**
 * The page's main-thread CPU so far, in ms (one CDP session: its counters start when it does).
 * Its CPU time, not its tasks' wall time, which on a loaded machine also holds the wait for a core.
 */
async function taskClock(page: Page): Promise<() => Promise<number>> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  return async () => ((await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ThreadTime')?.value ?? 0) * 1000;
}

interface Idle {
  serve: number;
  host: number;
  page: number;
  timers: number;
}

async function idleMinute(repo: string, threads: number): Promise<Idle> {
  const folder = mkdtempSync(path.join(tmpdir(), 'deepdesk-bench-idle-'));
  const serve = await startServe(repo, { folder, dataDir: dataWithThreads(folder, Array.from({ length: threads }, (_, i) => ({ id: `bench-idle-${i}`, messages: threadMessages(6) }))) });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  try {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    await context.addInitScript(TIMER_PROBE);
    const page = await context.newPage();
    await page.goto(serve.url);
    await page.getByRole('region', { name: 'Threads' }).getByRole('button', { name: /bench-idle-\d+/ }).nth(threads - 1).waitFor({ timeout: 30_000 });
    // What opening left to do settles first.
    await page.waitForTimeout(5_000);
    const host = serve.hostPid();
    const pageMs = await taskClock(page);
    const timersSoFar = () => page.evaluate(() => (window as unknown as { __timers: number }).__timers);
    const before = { serve: cpuMs(serve.pid), host: cpuMs(host), page: await pageMs(), timers: await timersSoFar() };
    await page.waitForTimeout(IDLE_MS);
    return { serve: cpuMs(serve.pid) - before.serve, host: cpuMs(host) - before.host, page: (await pageMs()) - before.page, timers: (await timersSoFar()) - before.timers };
  } finally {
    await browser.close();
    await serve.stop();
  }
}

const share = (ms: number): string => `${((ms / IDLE_MS) * 100).toFixed(2)}%`;

export async function benchIdleWindow(report: Report, repo: string): Promise<void> {
  const section = report.section('Issue 82 · an idle window on 20 finished threads (deepdesk serve, headless Chromium)');
  if (builtCli(repo) === null) {
    section.rows.push({ name: 'idle window', ours: 'not yet measurable: the app is not built (npm run build)' });
    return;
  }
  progress(`idle window: 20 finished threads, then 1, each idle ${IDLE_MS / 1000} s`);
  const many = await idleMinute(repo, 20);
  const one = await idleMinute(repo, 1);
  const total = (idle: Idle): number => idle.serve + idle.host + idle.page;
  section.rows.push({
    name: `idle window, 20 threads, ${IDLE_MS / 1000} s: serve + agent host + the page's main thread, of one core`,
    ours: `${share(total(many))} (${share(many.serve)} + ${share(many.host)} + ${share(many.page)})`,
    floor: `1 thread: ${share(total(one))}`,
    target: '≤ 1%',
    result: verdict(total(many) <= IDLE_MS / 100),
  });
  section.rows.push({
    name: `  the page's timer callbacks in ${IDLE_MS / 1000} s (setTimeout, setInterval, requestAnimationFrame)`,
    ours: `${many.timers}`,
    floor: `1 thread: ${one.timers}`,
    target: `≤ ${IDLE_MS / 1000} (once a second)`,
    result: verdict(many.timers <= IDLE_MS / 1000),
  });
}
