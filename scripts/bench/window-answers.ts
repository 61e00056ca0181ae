// Issue 82: the window never stops answering while pathological Markdown renders. A page of
// `deepdesk serve` in headless Chromium is sent the pathological answers of markdown-cases (240 KB of
// `_a`, 60,000 list markers, a list indented one level deeper each line, `*a**a***a…`, runs of
// openers, 10,000-level blockquotes), while a second client of the same serve asks `app.info`
// every 2 s. An answer that is not back before the next ask is missed. The floor is the same
// asking while the window is idle, in the same run.

import { chromium } from 'playwright-core';
import { WebSocket } from 'ws';
import { lastUserText, startScriptedServer, type RecordedRequest, type ScriptStep } from '../../src-main/core/models/testing/scripted-server';
import { PATHOLOGICAL } from './markdown-cases';
import { formatMs } from './measure';
import { progress, verdict, type Report } from './report';
import { builtCli, startServe } from './serve-process';
import { CHROMIUM, CHROMIUM_ARGS, openApp } from './window';

const ASK_EVERY_MS = 2_000;

const CASES: Record<string, string> = PATHOLOGICAL;

interface Asking {
  stop(): { asked: number; missed: number; longest: number };
}

/** Asks `app.info` every 2 s over a WebSocket of its own; an answer later than the next ask is missed. */
async function askEvery(url: string): Promise<Asking> {
  const link = new URL(url);
  const socket = new WebSocket(`ws://${link.host}/ws`, ['deepdesk', `deepdesk.token.${link.searchParams.get('token')}`], { origin: link.origin });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const sent = new Map<number, number>();
  const waits: number[] = [];
  socket.on('message', (data: Buffer) => {
    const { id } = JSON.parse(data.toString()) as { id?: number };
    const at = id === undefined ? undefined : sent.get(id);
    if (at === undefined) return;
    waits.push(performance.now() - at);
    sent.delete(id!);
  });
  let id = 1;
  const ask = (): void => {
    sent.set(id, performance.now());
    socket.send(JSON.stringify({ id: id++, method: 'app.info', params: {} }));
  };
  ask();
  const timer = setInterval(ask, ASK_EVERY_MS);
  return {
    stop() {
      clearInterval(timer);
      socket.close();
      const now = performance.now();
      const unanswered = [...sent.values()].map((at) => now - at);
      const all = [...waits, ...unanswered];
      return { asked: id - 1, missed: all.filter((ms) => ms > ASK_EVERY_MS).length, longest: Math.max(0, ...all) };
    },
  };
}

export async function benchWindowAnswers(report: Report, repo: string): Promise<void> {
  const section = report.section('Issue 82 · the window answers while pathological Markdown renders (deepdesk serve, headless Chromium)');
  if (builtCli(repo) === null) {
    section.rows.push({ name: 'window answers', ours: 'not yet measurable: the app is not built (npm run build)' });
    return;
  }
  const names = Object.keys(CASES);
  progress(`window answers: app.info every 2 s while ${names.length} pathological Markdown answers stream in and render`);
  const answer = (request: RecordedRequest): ScriptStep => {
    const name = lastUserText(request).trim().replace(/^Show case /, '');
    const text = CASES[name];
    return text === undefined ? { text: 'Earlier messages, summarized.' } : { text: `${text}\n\nEND-OF-${name}`, pace: { chunkChars: 4_000, chunksPerSecond: 40 } };
  };
  const model = await startScriptedServer(Array.from({ length: 4 * names.length }, () => answer));
  const serve = await startServe(repo, { modelUrl: model.url });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  try {
    const page = await openApp(browser, serve.url);
    const idle = await askEvery(serve.url);
    await page.waitForTimeout(3 * ASK_EVERY_MS);
    const floor = idle.stop();
    const busy = await askEvery(serve.url);
    for (const name of names) {
      await page.getByRole('textbox', { name: 'Message' }).fill(`Show case ${name}`);
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await page.waitForFunction(
        (marker) => {
          const messages = document.querySelectorAll('.msg-assistant:not(.streaming)');
          return (messages[messages.length - 1]?.textContent?.includes(marker) ?? false) && document.querySelector('.markdown[aria-busy="true"]') === null;
        },
        `END-OF-${name}`,
        { timeout: 180_000, polling: 250 },
      );
    }
    const during = busy.stop();
    section.rows.push({
      name: `window answers: app.info every 2 s while ${names.length} pathological Markdown answers render (${during.asked} asked)`,
      ours: `${during.missed} missed, longest ${formatMs(during.longest)}`,
      floor: `idle: ${floor.missed} missed, longest ${formatMs(floor.longest)}`,
      target: '0 missed',
      result: verdict(during.missed === 0),
    });
  } finally {
    await browser.close();
    await serve.stop();
    await model.close();
  }
}
