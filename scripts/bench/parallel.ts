// Issue 40: threads at the same time. 1, 4 and 8 threads of one folder running at once
// against the scripted server: the harness's own cost per step (each thread's time from one
// model call to its next, the server answering at once), and the window's longest frame in
// headless Chromium while that many threads stream with all of them in the Agents view.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { createApp } from '../../src-main/app/window/folder-app';
import { FileSecretStore } from '../../src-main/app/settings/file-secret-store';
import { lastUserText, startScriptedServer, type ScriptStep, type ScriptedServer } from '../../src-main/core/models/testing/scripted-server';
import { HostWindow } from '../../src-main/clients/host-client/host-window';
import { formatMs, formatRatio, median, withTimeout } from './measure';
import type { BenchOptions } from './options';
import { progress, verdict, type Report } from './report';
import { builtCli, startServe } from './serve-process';
import { CHROMIUM, CHROMIUM_ARGS, FRAME_MS, frameOnTime, intervals, openApp, probe, resetProbe, startFrames, stopFrames } from './window';

const COUNTS = [1, 4, 8] as const;
/** Tool-calling steps per thread; one more model call answers with text. */
const STEPS = 30;
const STEP_RATIO_TARGET = 2;
/** What each thread streams in the window row: tokens at this pace. */
const STREAM_TOKENS = 1_500;
const STREAM_TOKENS_PER_SECOND = 300;

/** Answers any thread at once: `ls` for STEPS calls (counted from its tool results), then text; records when each thread's calls came. */
function instantSteps(server: ScriptedServer, arrivals: Map<string, number[]>, threads: number): void {
  const step: ScriptStep = (request) => {
    const who = lastUserText(request);
    const times = arrivals.get(who) ?? [];
    times.push(performance.now());
    arrivals.set(who, times);
    const done = request.messages.filter((m) => m.role === 'tool').length;
    if (done >= STEPS) return { text: 'Done.' };
    return { toolCalls: [{ name: 'ls', args: { path: done % 2 === 0 ? '/' : '/src' } }] };
  };
  server.push(...Array.from({ length: threads * (STEPS + 1) }, () => step));
}

interface HarnessRound {
  /** The machine's time per step: from the first model call to the last, over every thread's steps. */
  costMs: number;
  /** A thread's own step: from one of its model calls to its next. */
  latencyMs: number;
}

async function harnessRound(server: ScriptedServer, threads: number): Promise<HarnessRound> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-parallel-'));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-parallel-data-'));
  fs.mkdirSync(path.join(folder, 'src'));
  for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(folder, 'src', `f${i}.ts`), `export const x${i} = ${i};\n`);
  const app = await createApp({
    folder,
    dataDir,
    secrets: new FileSecretStore(dataDir),
    transport: 'web',
    overrides: { model: 'openai-compatible:scripted-model', baseUrl: server.url },
    env: { PATH: process.env.PATH ?? '', OPENAI_API_KEY: '' },
  });
  try {
    await app.handle('settings.update', { maxConcurrentRuns: 64 });
    const arrivals = new Map<string, number[]>();
    instantSteps(server, arrivals, threads);
    const ids: string[] = [];
    for (let i = 0; i < threads; i++) ids.push(((await app.handle('threads.create', {})) as { id: string }).id);
    await Promise.all(ids.map((threadId, i) => app.handle('threads.send', { threadId, text: `thread-${i}` })));
    await withTimeout(
      (async () => {
        for (;;) {
          const listed = (await app.handle('threads.list', {})) as Array<{ running: boolean }>;
          if (listed.every((t) => !t.running) && arrivals.size === threads) return;
          await new Promise((r) => setTimeout(r, 20));
        }
      })(),
      120_000,
      `${threads} threads to finish`,
    );
    // Each thread's step: from one of its model calls to its next (the server answers at once).
    const steps = [...arrivals.values()].flatMap((times) => intervals(times));
    if (steps.length < threads * STEPS) throw new Error(`only ${steps.length} steps were seen`);
    const all = [...arrivals.values()].flat();
    return { costMs: (Math.max(...all) - Math.min(...all)) / steps.length, latencyMs: median(steps) };
  } finally {
    await app.handle('settings.update', { maxConcurrentRuns: null }).catch(() => undefined);
    await app.close();
    fs.rmSync(folder, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function windowRound(browser: Browser, repo: string, threads: number, screenshot: string | null): Promise<{ frame: number; task: number }> {
  const server = await startScriptedServer();
  const serve = await startServe(repo, { modelUrl: server.url });
  let window: HostWindow | undefined;
  try {
    const page = await openApp(browser, serve.url);
    window = await HostWindow.open({
      connect: { dataDir: serve.dataDir, client: 'bench', version: '' },
      window: { folder: serve.folder, overrides: { model: 'openai-compatible:scripted-model', baseUrl: server.url }, mounts: [], mcpConfig: [], cwd: serve.folder, env: { PATH: process.env.PATH ?? '' } },
    });
    await window.handle('settings.update', { maxConcurrentRuns: 64 });
    const text = `${'tok '.repeat(STREAM_TOKENS)}BENCH_PARALLEL_END`;
    server.push(...Array.from({ length: threads }, () => ({ text, pace: { chunkChars: 4, chunksPerSecond: STREAM_TOKENS_PER_SECOND } })));
    const ids: string[] = [];
    for (let i = 0; i < threads; i++) ids.push(((await window.handle('threads.create', {})) as { id: string }).id);
    // The page settles (the new threads listed) before frames are counted.
    await page.waitForTimeout(1_000);
    await resetProbe(page);
    await startFrames(page);
    await Promise.all(ids.map((threadId, i) => window!.handle('threads.send', { threadId, text: `stream ${i}` })));
    // All of them in the Agents view while they stream.
    const agents = page.getByRole('region', { name: 'Agents' });
    await agents.getByText('Working').nth(threads - 1).waitFor({ timeout: 30_000 });
    for (;;) {
      const listed = (await window.handle('threads.list', {})) as Array<{ running: boolean }>;
      if (listed.every((t) => !t.running)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const frames = intervals(await stopFrames(page));
    const { longtasks } = await probe(page);
    if (screenshot) await page.screenshot({ path: screenshot });
    await page.context().close();
    return { frame: frames.reduce((m, f) => Math.max(m, f), 0), task: longtasks.reduce((m, t) => Math.max(m, t.duration), 0) };
  } finally {
    await window?.close();
    await serve.stop();
    await server.close();
  }
}

export async function benchParallel(report: Report, options: BenchOptions, repo: string): Promise<void> {
  const section = report.section('Issue 40 · threads at the same time');
  const server = await startScriptedServer();
  const perStep = new Map<number, HarnessRound>();
  try {
    for (const threads of COUNTS) {
      progress(`${threads} thread(s) at once: the harness's cost per step`);
      const rounds: HarnessRound[] = [];
      for (let i = 0; i < Math.max(3, Math.min(options.runs, 5)); i++) rounds.push(await harnessRound(server, threads));
      perStep.set(threads, { costMs: median(rounds.map((r) => r.costMs)), latencyMs: median(rounds.map((r) => r.latencyMs)) });
    }
  } finally {
    await server.close();
  }
  const one = perStep.get(1)!;
  for (const threads of COUNTS) {
    const { costMs } = perStep.get(threads)!;
    section.rows.push({
      name: `${threads} thread(s) running at once, ${STEPS} steps each: the harness's cost per step (first model call to last ÷ steps; the server answers at once)`,
      ours: formatMs(costMs),
      ...(threads === 1 ? {} : { floor: formatMs(one.costMs), ratio: formatRatio(costMs, one.costMs), target: `≤ ${STEP_RATIO_TARGET}× one thread's`, result: verdict(costMs <= one.costMs * STEP_RATIO_TARGET) }),
    });
  }
  for (const threads of COUNTS) {
    if (threads === 1) continue;
    const { latencyMs } = perStep.get(threads)!;
    section.rows.push({ name: `${threads} threads at once: one thread's own step (its model call to its next)`, ours: formatMs(latencyMs), floor: formatMs(one.latencyMs), ratio: formatRatio(latencyMs, one.latencyMs) });
  }
  section.notes.push(
    `The floor column is the same with one thread. The threads share this machine's ${os.availableParallelism()} cores and one event loop, so one thread's own step grows with the others' while the cost per step (the machine's time) stays flat: nothing serialises them.`,
  );

  if (builtCli(repo) === null || !fs.existsSync(CHROMIUM)) {
    section.rows.push({ name: "the window's longest frame with the threads in the Agents view", ours: 'skipped', result: 'not built, or no Chromium' });
    return;
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    for (const threads of COUNTS) {
      progress(`the window while ${threads} thread(s) stream`);
      const rounds: Array<{ frame: number; task: number }> = [];
      for (let i = 0; i < Math.max(2, Math.min(options.runs, 3)); i++) {
        rounds.push(await windowRound(browser, repo, threads, i === 0 && threads === 8 ? path.join(repo, '.bench', 'agents-view.png') : null));
      }
      const ms = median(rounds.map((r) => r.frame));
      const task = Math.max(...rounds.map((r) => r.task));
      section.rows.push({
        name: `the window's longest frame while ${threads} thread(s) stream ${STREAM_TOKENS.toLocaleString('en-US')} tokens each at ${STREAM_TOKENS_PER_SECOND}/s, all in the Agents view (median of ${rounds.length} runs' longest; worst ${formatMs(Math.max(...rounds.map((r) => r.frame)))}; longest page task ${task === 0 ? '< 50 ms' : formatMs(task)})`,
        ours: formatMs(ms),
        // Issue 82: every frame on time at 60 Hz, as for one chat's stream.
        floor: `${formatMs(FRAME_MS)} (60 Hz)`,
        ratio: formatRatio(ms, FRAME_MS),
        target: `≤ ${formatMs(FRAME_MS)}`,
        result: verdict(frameOnTime(ms)),
      });
    }
    section.notes.push('Frames are requestAnimationFrame intervals and long tasks of the page; screenshot .bench/agents-view.png (8 threads).');
  } finally {
    await browser.close();
  }
}
