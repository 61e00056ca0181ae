// issue 9 §3 in a real browser: after opening Deepdesk, another server on 127.0.0.1 that
// the browser visits receives the cookie, and that cookie opens nothing; a reload of the
// tab keeps working; two serve instances in one browser keep their own sessions.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { WebSocket } from 'ws';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { launchBrowser, repo, startServe, type ServeHandle } from './harness';

let browser: Browser;
const serves: ServeHandle[] = [];
let devServer: Server | undefined;

beforeAll(async () => {
  if (!existsSync(join(repo, 'out/renderer/index.html'))) throw new Error('run `npm run build` before the end-to-end tests (npm test does)');
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  for (const s of serves.splice(0)) await s.stop();
  await new Promise<void>((done) => (devServer ? devServer.close(() => done()) : done()));
  devServer = undefined;
});

async function answers(page: Page, text: string, reply: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
  await expect.poll(() => page.getByRole('log', { name: 'Conversation' }).innerText(), { timeout: 60_000 }).toContain(reply);
}

function upgradeStatus(url: string, headers: Record<string, string>, protocols: string[]): Promise<number> {
  return new Promise((done) => {
    const ws = new WebSocket(url, protocols, { headers });
    ws.once('unexpected-response', (_req, res) => done(res.statusCode ?? 0));
    ws.once('open', () => {
      ws.close();
      done(101);
    });
    ws.once('error', () => undefined);
  });
}

it('a dev server on another port gets the cookie and still cannot drive Deepdesk; reload keeps working', async () => {
  const serve = await startServe({ script: [{ text: 'first answer' }, { text: 'after reload' }] });
  serves.push(serve);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(serve.url);
  await answers(page, 'hello', 'first answer');
  // The token left the address bar (kept in the tab's sessionStorage).
  expect(page.url()).not.toContain('token');

  await page.reload();
  await answers(page, 'again', 'after reload');

  const received: string[] = [];
  devServer = createServer((req, res) => {
    received.push(req.headers.cookie ?? '');
    res.setHeader('Content-Type', 'text/html');
    res.end('<title>dev</title>');
  });
  await new Promise<void>((done) => devServer!.listen(0, '127.0.0.1', done));
  const devPort = (devServer.address() as AddressInfo).port;
  const devPage = await context.newPage();
  await devPage.goto(`http://127.0.0.1:${devPort}/`);
  const stolen = received.join('; ');
  expect(stolen).toContain('deepdesk_session_');
  const token = new URL(serve.url).searchParams.get('token')!;
  expect(stolen).not.toContain(token);
  // The dev server's own page cannot read Deepdesk's sessionStorage either.
  expect(await devPage.evaluate(() => JSON.stringify({ ...sessionStorage }))).not.toContain(token);

  const wsUrl = `${serve.origin.replace('http', 'ws')}/ws`;
  const forged = { Origin: serve.origin, Cookie: stolen };
  expect(await upgradeStatus(wsUrl, forged, [])).toBe(401);
  expect(await upgradeStatus(wsUrl, forged, ['deepdesk'])).toBe(401);
  for (const value of stolen.split(';').map((c) => c.trim().split('=')[1] ?? '')) {
    expect(await upgradeStatus(wsUrl, forged, ['deepdesk', `deepdesk.token.${value}`])).toBe(401);
  }
  await context.close();
});

it('two serve instances in one browser keep their own sessions across reloads', async () => {
  const a = await startServe({ script: [{ text: 'from A' }, { text: 'A again' }] });
  serves.push(a);
  const b = await startServe({ script: [{ text: 'from B' }] });
  serves.push(b);
  const context = await browser.newContext();
  const pageA = await context.newPage();
  await pageA.goto(a.url);
  const pageB = await context.newPage();
  await pageB.goto(b.url);
  await answers(pageB, 'hi B', 'from B');
  await pageA.reload();
  await answers(pageA, 'hi A', 'from A');
  await pageA.reload();
  await answers(pageA, 'hi A again', 'A again');
  await context.close();
});
