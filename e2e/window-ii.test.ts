// Window II as a person meets it, in headless Chromium against `deepdesk serve` and the
// scripted model: the layout at 1400×900, 1024×700 and 800×600 (screenshots of each),
// inline approvals, truthful cards, conversation helpers, threads, and the keyboard.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptStep } from '../src-main/core/models/testing/scripted-server';
import { frameOf, launchBrowser, openRelayingCreates, printFailedPages, repo, screenshot, startServe, toolCard, type CreatesGate, type RelayOptions, type ServeHandle } from './harness';

let browser: Browser;
let serve: ServeHandle | undefined;
let context: BrowserContext | undefined;

beforeAll(async () => {
  if (!existsSync(join(repo, 'out/renderer/index.html'))) throw new Error('run `npm run build` before the end-to-end tests (npm test does)');
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async ({ task }) => {
  await printFailedPages(task, browser);
  await context?.close();
  context = undefined;
  await serve?.stop();
  serve = undefined;
});

async function open(url: string, width = 1400, height = 900, dark = false): Promise<Page> {
  context = await browser.newContext({ viewport: { width, height }, colorScheme: dark ? 'dark' : 'light' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
  const page = await context.newPage();
  page.on('pageerror', (err) => {
    throw err;
  });
  await page.goto(url);
  await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
  return page;
}

/** expect.poll with room for a loaded machine (its default is one second). */
const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000 });

const log = (page: Page): Locator => page.getByRole('log', { name: 'Conversation' });
const approvals = (page: Page): Locator => log(page).getByRole('group', { name: 'Approve tool call' });
const card = (page: Page, name: string): Locator => toolCard(page, name);

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

/** Three writes in one step (asked about together), then `text`. */
const threeWrites = (text: string): ScriptStep[] => [
  {
    toolCalls: [
      { name: 'write_file', args: { file_path: '/one.txt', content: 'first\n' } },
      { name: 'write_file', args: { file_path: '/two.txt', content: 'second\n' } },
      { name: 'write_file', args: { file_path: '/three.txt', content: 'third\n' } },
    ],
  },
  { text },
];

/** openRelayingCreates in this file's context (closed after each test). */
async function openRelaying(url: string, options: RelayOptions = {}): Promise<{ page: Page; gate: CreatesGate }> {
  const opened = await openRelayingCreates(browser, url, options);
  context = opened.context;
  return opened;
}

async function box(locator: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  const b = await locator.boundingBox();
  if (!b) throw new Error('not visible');
  return b;
}

describe('layout', () => {
  it('gives the conversation most of the window at 1024×700 and 1400×900, and fits 800×600', async () => {
    serve = await startServe({ script: [{ text: 'Ready.' }] });
    for (const [width, height] of [
      [1400, 900],
      [1024, 700],
    ] as const) {
      const page = await open(serve.url, width, height);
      const b = await box(log(page));
      expect(b.width, `${width}×${height}`).toBeGreaterThanOrEqual(560);
      expect(b.height, `${width}×${height}`).toBeGreaterThanOrEqual(380);
      for (const region of ['Threads', 'Files', 'Memories', 'Changes', 'Terminal']) await expect(page.getByRole('region', { name: region }).count()).resolves.toBe(1);
      await screenshot(page, `layout-${width}x${height}`);
      await context!.close();
    }

    const page = await open(serve.url, 800, 600);
    const sendButton = page.getByRole('button', { name: 'Send', exact: true });
    const s = await box(sendButton);
    expect(s.x + s.width).toBeLessThanOrEqual(800);
    expect(s.y + s.height).toBeLessThanOrEqual(600);
    expect(await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight])).toEqual([800, 600]);
    // The side panels are one switcher away.
    await page.getByRole('button', { name: 'Show Files' }).click();
    await poll(() => page.getByRole('region', { name: 'Files' }).isVisible()).toBe(true);
    await screenshot(page, 'layout-800x600-switcher');
    await page.keyboard.press('Escape');
    await poll(() => page.getByRole('region', { name: 'Files' }).isVisible()).toBe(false);
    await send(page, 'hello');
    await log(page).getByText('Ready.').waitFor({ timeout: 60_000 });
    await screenshot(page, 'layout-800x600');
  });

  it('collapses and resizes panels, and remembers them after a reload', async () => {
    serve = await startServe();
    const page = await open(serve.url, 1400, 900);
    const threads = page.getByRole('region', { name: 'Threads' });
    const files = page.getByRole('region', { name: 'Files' });
    const before = await box(files);
    // Resize the left column with the keyboard on its separator, then by dragging.
    const edge = page.getByRole('separator', { name: 'Resize left panels' });
    await edge.focus();
    await page.keyboard.press('Shift+ArrowRight');
    await poll(async () => (await box(files)).width).toBe(before.width + 64);
    const e = await box(edge);
    await page.mouse.move(e.x + e.width / 2, e.y + 200);
    await page.mouse.down();
    await page.mouse.move(e.x + e.width / 2 + 40, e.y + 200, { steps: 4 });
    await page.mouse.up();
    await poll(async () => (await box(files)).width).toBeGreaterThan(before.width + 64 + 30);
    const resized = (await box(files)).width;

    // Collapse Threads: only its head stays; Files grows.
    await poll(() => threads.getByRole('searchbox', { name: 'Search threads' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Collapse Threads' }).click();
    await poll(async () => (await box(threads)).height).toBeLessThan(60);
    await expect(threads.getByRole('searchbox', { name: 'Search threads' }).isVisible()).resolves.toBe(false);
    // The terminal too (it starts collapsed: the person opens it, then collapses it).
    const log0 = await box(log(page));
    await page.getByRole('button', { name: 'Expand Terminal' }).click();
    await poll(async () => (await box(log(page))).height).toBeLessThan(log0.height - 100);
    const log1 = await box(log(page));
    await page.getByRole('button', { name: 'Collapse Terminal' }).click();
    await poll(async () => (await box(log(page))).height).toBeGreaterThan(log1.height + 100);

    await page.reload();
    await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
    await poll(async () => (await box(page.getByRole('region', { name: 'Files' }))).width).toBe(resized);
    await expect(page.getByRole('button', { name: 'Expand Threads' }).getAttribute('aria-expanded')).resolves.toBe('false');
    await expect(page.getByRole('button', { name: 'Expand Terminal' }).count()).resolves.toBe(1);
    await screenshot(page, 'layout-collapsed');
    await page.getByRole('button', { name: 'Expand Threads' }).click();
    await poll(() => page.getByRole('region', { name: 'Threads' }).getByRole('searchbox', { name: 'Search threads' }).isVisible()).toBe(true);
  });

  it('opens the terminal by itself when the agent runs a command, unless the person closed it', async () => {
    serve = await startServe({
      script: [{ toolCalls: [{ name: 'execute', args: { command: 'echo opened-$((2+3))' } }] }, { text: 'First ran.' }, { toolCalls: [{ name: 'execute', args: { command: 'echo again' } }] }, { text: 'Second ran.' }],
    });
    const page = await open(serve.url, 1024, 640);
    const terminal = page.getByRole('region', { name: 'Terminal' });
    // The terminal starts folded (at every size: e2e/window-iii-layout.test.ts).
    await expect(page.getByRole('button', { name: 'Expand Terminal' }).count()).resolves.toBe(1);
    await send(page, 'run it');
    await approvals(page).getByRole('button', { name: 'Approve' }).click({ timeout: 60_000 });
    await expect.poll(() => terminal.innerText(), { timeout: 60_000 }).toContain('opened-5');
    await expect(page.getByRole('button', { name: 'Collapse Terminal' }).count()).resolves.toBe(1);
    await log(page).getByText('First ran.').waitFor({ timeout: 60_000 });
    await screenshot(page, 'terminal-auto-open-1024x640');
    await page.getByRole('button', { name: 'Collapse Terminal' }).click();
    await send(page, 'again');
    await approvals(page).getByRole('button', { name: 'Approve' }).click({ timeout: 60_000 });
    await log(page).getByText('Second ran.').waitFor({ timeout: 60_000 });
    await expect(page.getByRole('button', { name: 'Expand Terminal' }).count()).resolves.toBe(1);
  });
});

describe('approvals inline', () => {
  it('asks for several calls in order at the calls, keeps the window usable, and keeps the diff after approval', async () => {
    serve = await startServe({ script: threeWrites('Wrote what you allowed.') });
    writeFileSync(join(serve.folder, 'existing.md'), '# Existing\n');
    const page = await open(serve.url);
    await send(page, 'write three files');
    await expect.poll(() => approvals(page).count(), { timeout: 60_000 }).toBe(3);
    const texts = await approvals(page).allInnerTexts();
    expect(texts[0]).toContain('1 of 3 waiting');
    expect(texts[1]).toContain('2 of 3 waiting');
    expect(texts[2]).toContain('3 of 3 waiting');
    expect(texts[2]).toContain('/three.txt');
    // Keyboard first: the first Approve has focus.
    await poll(() => page.evaluate(() => document.activeElement?.closest('[role="group"]') === document.querySelector('[role="log"] [role="group"][aria-label="Approve tool call"]') && (document.activeElement?.textContent ?? '').startsWith('Approve'))).toBe(true);
    // Not modal: no dialog, and the file tree still opens files.
    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.getByRole('region', { name: 'Files' }).getByRole('treeitem', { name: /existing\.md/ }).click();
    // The file as the viewer shows it for good (rendered), not a state it may pass through.
    await page.getByRole('region', { name: 'File viewer' }).getByRole('heading', { name: 'Existing', exact: true }).waitFor();
    await screenshot(page, 'approvals-three-1400x900');

    // 1 approves the focused card.
    await approvals(page).first().getByRole('button', { name: 'Approve' }).focus();
    await page.keyboard.press('1');
    await poll(() => approvals(page).count()).toBe(2);
    // Esc, a reason, Enter: rejected with that message.
    await approvals(page).first().getByRole('button', { name: 'Approve' }).focus();
    await page.keyboard.press('Escape');
    await page.keyboard.type('not this one');
    await page.keyboard.press('Enter');
    await poll(() => approvals(page).count()).toBe(1);
    await approvals(page).getByRole('button', { name: 'Approve' }).click();
    await log(page).getByText('Wrote what you allowed.').waitFor({ timeout: 60_000 });

    expect(readFileSync(join(serve.folder, 'one.txt'), 'utf8')).toBe('first\n');
    expect(existsSync(join(serve.folder, 'two.txt'))).toBe(false);
    expect(readFileSync(join(serve.folder, 'three.txt'), 'utf8')).toBe('third\n');
    const results = serve.model.requests.at(-1)!.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(results[1]).toMatch(/rejected.*not this one/);
    // The approved writes keep their diff; the rejected one says so.
    await expect(card(page, 'write_file').nth(0).getByRole('figure', { name: 'Changes to /one.txt' }).count()).resolves.toBe(1);
    await expect(card(page, 'write_file').nth(1).innerText()).resolves.toContain('Rejected');
    await screenshot(page, 'approvals-decided-1400x900');
  });

  it('edits a command as text, shows plain-text reasons and invisible characters, and runs the edited command', async () => {
    serve = await startServe({
      // An inert command (no redirection), so that "always allow" is offered for it.
      script: [{ toolCalls: [{ name: 'execute', args: { command: 'echo "safe\u202Etxt.sh"' } }] }, { text: 'Edited command ran.' }],
    });
    const page = await open(serve.url, 1024, 700);
    await send(page, 'run');
    const group = approvals(page);
    await group.waitFor({ timeout: 60_000 });
    const shown = await group.innerText();
    expect(shown).toContain('⟨U+202E⟩');
    expect(shown).not.toContain('\u202E');
    // The card's title shows the command as code with its escape; the reason does not repeat
    // it and is plain text, never Markdown (e2e/hostile-cards.test.ts); "always allow" is said once.
    expect(await card(page, 'execute').locator('.tool-title-code').innerText()).toBe('echo "safe⟨U+202E⟩txt.sh"');
    expect(await group.locator('.approval-reason').innerText()).not.toContain('echo');
    expect(await group.locator('.approval-reason code').count()).toBe(0);
    const always = group.getByRole('checkbox');
    expect((await group.locator('label.always-allow').innerText()).match(/always allow/gi)).toHaveLength(1);
    await screenshot(page, 'approval-command-1024x700');
    expect(await always.isChecked()).toBe(false);

    await group.getByRole('button', { name: 'Edit' }).click();
    const editor = group.getByRole('textbox', { name: 'Command' });
    expect(await editor.inputValue()).toBe('echo "safe\u202Etxt.sh"');
    await editor.fill('printf "edited\\n" > out.txt');
    await group.getByRole('button', { name: 'Approve' }).click();
    await log(page).getByText('Edited command ran.').waitFor({ timeout: 60_000 });
    expect(readFileSync(join(serve.folder, 'out.txt'), 'utf8')).toBe('edited\n');
    await expect(card(page, 'execute').innerText()).resolves.toContain('printf "edited\\n" > out.txt');
  });
});

describe('cards', () => {
  it('tells failed, timed-out and stopped commands apart, and shows the last lines and the elapsed time', async () => {
    const marker = `${300 + Math.floor(Math.random() * 500)}.5`;
    serve = await startServe({
      script: [
        { toolCalls: [{ name: 'execute', args: { command: 'for i in $(seq 1 30); do echo line-$i; done; echo the-error >&2; exit 3' } }] },
        { toolCalls: [{ name: 'execute', args: { command: 'sleep 5', timeout: 1 } }] },
        { toolCalls: [{ name: 'execute', args: { command: `echo started-long-$((40+2)); sleep ${marker}` } }] },
        { text: 'unused' },
      ] as ScriptStep[],
    });
    const page = await open(serve.url);
    await send(page, 'run three commands');
    for (let i = 0; i < 3; i++) {
      await expect.poll(() => approvals(page).count(), { timeout: 60_000 }).toBe(1);
      await approvals(page).getByRole('button', { name: 'Approve' }).click();
      await expect.poll(() => approvals(page).count(), { timeout: 60_000 }).toBe(0);
    }
    const cards = card(page, 'execute');
    await expect.poll(() => cards.nth(0).locator('.tool-status').innerText(), { timeout: 60_000 }).toBe('Failed · exit 3');
    const failed = await cards.nth(0).innerText();
    expect(failed).toContain('the-error');
    expect(failed).toContain('line-30');
    expect(failed).not.toContain('line-1\n');
    await expect.poll(() => cards.nth(1).locator('.tool-status').innerText(), { timeout: 60_000 }).toBe('Timed out');
    // Running, with the elapsed time ticking.
    await expect.poll(async () => (await cards.nth(2).locator('.tool-status').textContent())?.replace(/\s+/g, ' ').trim(), { timeout: 60_000 }).toMatch(/^Running · [1-9]\d* s$/);
    // A live tail of its output while it runs.
    await expect.poll(() => cards.nth(2).innerText(), { timeout: 60_000 }).toContain('started-long-42');
    await screenshot(page, 'cards-running-1400x900');
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => cards.nth(2).locator('.tool-status').innerText(), { timeout: 60_000 }).toBe('Stopped');
    await screenshot(page, 'cards-statuses-1400x900');
    // The full output is one named expand button away, and can be copied.
    await cards.nth(0).getByRole('button', { name: /^Show all \d+ lines of output/ }).click();
    await poll(() => cards.nth(0).innerText()).toContain('line-1\n');
    await cards.nth(0).getByRole('button', { name: 'Copy output' }).first().click();
    await poll(() => page.evaluate(() => navigator.clipboard.readText())).toContain('line-30');
    expect(sleeping(marker)).toBe(false);
  });

  it('shows reads in one line, and opens paths and relative links in the viewer; code blocks can be copied', async () => {
    serve = await startServe({
      script: [
        { toolCalls: [{ name: 'read_file', args: { file_path: '/README.md' } }, { name: 'grep', args: { pattern: 'beta' } }] },
        { text: 'See `docs/guide.md` and [the readme](README.md).\n\n```sh\nnpm run build\n```' },
      ],
    });
    writeFileSync(join(serve.folder, 'README.md'), 'alpha\nbeta\ngamma\n');
    execFileSync('mkdir', ['-p', join(serve.folder, 'docs')]);
    writeFileSync(join(serve.folder, 'docs', 'guide.md'), 'The guide text.\n');
    const page = await open(serve.url);
    await send(page, 'look around');
    await log(page).getByText('See').waitFor({ timeout: 60_000 });
    await expect(card(page, 'read_file').innerText()).resolves.toMatch(/Read README\.md · 3 lines/);
    await expect(card(page, 'grep').innerText()).resolves.toMatch(/Searched for "beta" · 1 file/);
    const toggle = card(page, 'read_file').getByRole('button', { name: 'Show details of Read README.md · 3 lines' });
    await toggle.click();
    await poll(() => card(page, 'read_file').innerText()).toContain('gamma');
    await screenshot(page, 'cards-oneline-1400x900');

    await card(page, 'read_file').getByRole('link', { name: 'README.md' }).click();
    await page.getByRole('region', { name: 'File viewer' }).getByText('gamma').waitFor();
    await log(page).getByRole('link', { name: 'docs/guide.md' }).click();
    await page.getByRole('region', { name: 'File viewer' }).getByText('The guide text.').waitFor();
    await log(page).getByRole('link', { name: 'the readme' }).click();
    await page.getByRole('region', { name: 'File viewer' }).getByText('alpha').waitFor();

    // The language tag sits above the code, never over it.
    const code = log(page).locator('.code-block pre');
    const tag = log(page).locator('.code-block .code-lang');
    expect((await box(tag)).y + (await box(tag)).height).toBeLessThanOrEqual((await box(code)).y + 1);
    await log(page).getByRole('button', { name: 'Copy code' }).click();
    await poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe('npm run build');
    await log(page).getByRole('button', { name: 'Copy message' }).last().click();
    await poll(() => page.evaluate(() => navigator.clipboard.readText())).toContain('See `docs/guide.md`');
  });
});

/**
 * A long answer streamed in: its first 16 paragraphs, short, fill the log at 1024×700 (a line
 * each, whatever their length); the 44 longer ones after them keep it streaming a while.
 */
const LONG_ANSWER = Array.from({ length: 60 }, (_, i) => `Paragraph ${i + 1} ${i < 16 ? 'in.' : 'of a long answer that keeps streaming in.'}`).join('\n\n');

describe('conversation', () => {
  it('offers Jump to latest when scrolled up, and scrolls to a sent message', async () => {
    serve = await startServe({ script: [{ text: LONG_ANSWER, pace: { chunkChars: 20, chunksPerSecond: 20 } }, { text: 'Short reply.' }] });
    const page = await open(serve.url, 1024, 700);
    await send(page, 'write a lot');
    await log(page).getByText('Paragraph 16 ').waitFor({ timeout: 60_000 });
    await log(page).evaluate((el) => el.scrollTo({ top: 0 }));
    const jump = page.getByRole('button', { name: 'Jump to latest' });
    await jump.waitFor({ timeout: 60_000 });
    await screenshot(page, 'jump-to-latest-1024x700');
    await jump.click();
    await poll(() => log(page).evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeLessThan(80);
    await log(page).getByText('Paragraph 60 ').waitFor({ timeout: 60_000 });
    await log(page).evaluate((el) => el.scrollTo({ top: 0 }));
    await send(page, 'and now briefly');
    await poll(() => log(page).getByText('and now briefly').isVisible()).toBe(true);
    await poll(async () => {
      const m = await box(log(page).getByText('and now briefly'));
      const l = await box(log(page));
      return m.y >= l.y && m.y + m.height <= l.y + l.height;
    }).toBe(true);
  });

  it('scrolls to a message queued during a run, wherever the person had scrolled', async () => {
    serve = await startServe({ script: [{ text: LONG_ANSWER, pace: { chunkChars: 20, chunksPerSecond: 10 } }, { text: 'Queued reply.' }] });
    const page = await open(serve.url, 1024, 700);
    await send(page, 'write a lot');
    await log(page).getByText('Paragraph 16 ').waitFor({ timeout: 60_000 });
    await log(page).evaluate((el) => el.scrollTo({ top: 0 }));
    await page.getByRole('button', { name: 'Jump to latest' }).waitFor({ timeout: 60_000 });
    await send(page, 'meanwhile, this');
    const queued = page.getByRole('listitem', { name: 'Queued message' });
    await queued.waitFor({ timeout: 60_000 });
    await poll(async () => {
      const m = await box(queued);
      const l = await box(log(page));
      return m.y >= l.y && m.y + m.height <= l.y + l.height;
    }).toBe(true);
  });

  it('shows a provider retry countdown, and a failed run offers Retry', async () => {
    serve = await startServe({
      script: [
        { error: { status: 503, headers: { 'retry-after': '3' }, body: { error: { message: 'overloaded' } } } },
        { text: 'Answer after the wait.' },
        { error: { status: 400, body: { error: { message: 'this request is bad' } } } },
        { text: 'Answer on retry.' },
      ],
    });
    const page = await open(serve.url);
    await send(page, 'first');
    await expect.poll(() => log(page).innerText(), { timeout: 60_000 }).toMatch(/Retrying in [1-3] s, attempt 2 of 5/);
    // The message sent right after the window opened is shown, not lost to the thread's first load.
    expect(await log(page).getByText('first', { exact: true }).count()).toBe(1);
    await screenshot(page, 'retry-countdown-1400x900');
    await log(page).getByText('Answer after the wait.').waitFor({ timeout: 60_000 });
    expect(await log(page).innerText()).not.toMatch(/Retrying in/);

    await send(page, 'second');
    const retry = log(page).getByRole('button', { name: 'Retry' });
    await retry.waitFor({ timeout: 60_000 });
    expect(await log(page).innerText()).toContain('this request is bad');
    await screenshot(page, 'retry-button-1400x900');
    await retry.click();
    await log(page).getByText('Answer on retry.').waitFor({ timeout: 60_000 });
    await poll(() => retry.count()).toBe(0);
    expect(serve.model.requests.at(-1)!.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['first', 'second']);
  });

  it('gives the keyboard to the oldest approval when a newer one reaches the window first (parallel calls are asked about in any order)', async () => {
    serve = await startServe({ script: threeWrites('Wrote them.') });
    context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    // The window reads the waiting approvals (threads.get) when told they changed. Until all
    // three wait, it is answered that none does; then that only the newest does; then, told
    // again, all three: the newest card comes first and takes the keyboard by itself.
    type Approval = { createdAt: string };
    type Reply = { id?: unknown; result?: { thread?: { id?: string }; approvals?: Approval[] } };
    const gets: unknown[] = [];
    let stage: 'none' | 'newest' | 'all' = 'none';
    let tellAll: (() => void) | undefined;
    await context.routeWebSocket(/.*/, (ws) => {
      const server = ws.connectToServer();
      ws.onMessage((m) => {
        const call = frameOf<{ id?: unknown; method?: unknown }>(m);
        if (call?.method === 'threads.get') gets.push(call.id);
        server.send(m);
      });
      server.onMessage((m) => {
        const reply = frameOf<Reply>(m);
        const waiting = reply?.result?.approvals;
        if (stage === 'all' || reply?.id === undefined || !gets.includes(reply.id) || waiting === undefined || waiting.length === 0) {
          ws.send(m);
          return;
        }
        if (waiting.length < 3) {
          ws.send(JSON.stringify({ ...reply, result: { ...reply.result, approvals: [] } }));
          return;
        }
        // The newest as the window orders them (by createdAt; the list's order where equal).
        const newest = [...waiting].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0)).at(-1)!;
        stage = 'newest';
        ws.send(JSON.stringify({ ...reply, result: { ...reply.result, approvals: [newest] } }));
        tellAll = () => {
          stage = 'all';
          ws.send(JSON.stringify({ event: 'approvals.changed', payload: { threadId: reply.result?.thread?.id } }));
        };
      });
    });
    const page = await context.newPage();
    page.on('pageerror', (err) => {
      throw err;
    });
    await page.goto(serve.url);
    await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
    await send(page, 'write three files');
    const focusedApprove = () => page.evaluate(() => document.activeElement?.closest('[role="group"]') === document.querySelector('[role="log"] [role="group"][aria-label="Approve tool call"]') && (document.activeElement?.textContent ?? '').startsWith('Approve'));
    // The newest card alone, with the keyboard.
    await poll(() => stage).toBe('newest');
    await poll(() => approvals(page).count()).toBe(1);
    const newestCard = await approvals(page).first().innerText();
    await poll(focusedApprove).toBe(true);
    tellAll!();
    // The oldest comes first and takes the keyboard from the newest.
    await poll(() => approvals(page).count()).toBe(3);
    expect(await approvals(page).first().innerText()).not.toBe(newestCard);
    await poll(focusedApprove).toBe(true);
  });

  it('a message sent while the window’s first thread is still being made goes to that thread: one thread, not two', async () => {
    serve = await startServe({ script: [{ text: 'Answered.' }] });
    // The answers to threads.create are held back until the message has been sent.
    const { page, gate } = await openRelaying(serve.url);
    await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
    // The window makes its first thread (there is none): its answer has not come yet.
    await poll(() => gate.held.length).toBe(1);
    await send(page, 'Hello there');
    gate.release();
    await log(page).getByText('Answered.').waitFor({ timeout: 60_000 });
    expect(await log(page).getByText('Hello there', { exact: true }).count()).toBe(1);
    // One thread was made, and it holds the message.
    expect(gate.creates).toHaveLength(1);
    await poll(() => page.getByRole('region', { name: 'Threads' }).locator('.thread-item').count()).toBe(1);
  });

  it('a message sent when the first thread is made but not yet open goes to that thread: one thread, not two', async () => {
    serve = await startServe({ script: [{ text: 'Answered.' }] });
    const { page, gate } = await openRelaying(serve.url);
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Hello there');
    await poll(() => gate.held.length).toBe(1);
    // Send is pressed in the same task as the answer to threads.create, once what it resolves
    // has run: the thread is made, not yet open (React renders it in a later task).
    await page.evaluate((ids) => {
      const parse = JSON.parse;
      JSON.parse = (text: string, reviver?: (key: string, value: unknown) => unknown): unknown => {
        const value = parse(text, reviver) as { id?: unknown } | null;
        if (typeof value === 'object' && value !== null && ids.includes(value.id)) {
          JSON.parse = parse;
          let hops = 50;
          const later = (): void => {
            if (--hops > 0) queueMicrotask(later);
            else [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Send')?.click();
          };
          queueMicrotask(later);
        }
        return value;
      };
    }, gate.creates);
    gate.release();
    await log(page).getByText('Answered.').waitFor({ timeout: 60_000 });
    expect(gate.creates).toHaveLength(1);
    await poll(() => page.getByRole('region', { name: 'Threads' }).locator('.thread-item').count()).toBe(1);
  });

  it('a message sent in the moment its thread opens shows in it and is not kept as its draft', async () => {
    serve = await startServe({ script: [{ text: 'Answered.' }] });
    // The message reaches the host after the thread's first load: it must still show.
    const { page, gate } = await openRelaying(serve.url, { sendAfterLoad: true });
    const message = page.getByRole('textbox', { name: 'Message', exact: true });
    await message.fill('Hello there');
    await poll(() => gate.held.length).toBe(1);
    // Send is pressed once the window shows the thread open, before that render's effects have
    // run (a discrete event is handled first).
    await page.evaluate(() => {
      new MutationObserver((_, observer) => {
        if (document.querySelector('.thread-item.current') === null) return;
        observer.disconnect();
        [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Send')?.click();
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    gate.release();
    await log(page).getByText('Answered.').waitFor({ timeout: 60_000 });
    expect(await log(page).getByText('Hello there', { exact: true }).count()).toBe(1);
    expect(await message.inputValue()).toBe('');
    expect(await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('deepdesk.draft.')))).toEqual([]);
  });

  it('a creation the host refused, or one that ended with another thread open, is never handed to a later message or New thread', async () => {
    serve = await startServe({ script: [{ text: 'Answered.' }] });
    // The host fails the window's first creation.
    const { page, gate } = await openRelaying(serve.url, { holding: false, refuseFirst: true });
    await page.getByText('the thread store is full').waitFor({ timeout: 60_000 });
    expect(gate.creates).toHaveLength(1);

    // The message after a refused creation makes a thread of its own.
    await send(page, 'Hello there');
    await log(page).getByText('Answered.').waitFor({ timeout: 60_000 });
    expect(gate.creates).toHaveLength(2);
    const threads = page.getByRole('region', { name: 'Threads' });
    const first = threads.locator('.thread-item').filter({ hasText: 'Hello there' }).getByRole('button').first();

    // New thread, and before its thread is made the person opens the first one again: the made thread never opens.
    gate.holding = true;
    await threads.getByRole('button', { name: 'New thread', exact: true }).press('Enter');
    await poll(() => gate.held.length).toBe(1);
    await first.click();
    await poll(() => first.getAttribute('aria-current')).toBe('true');
    gate.release();
    // Listed: the one the host made though its answer was refused, the first, and the one never opened.
    await poll(() => threads.locator('.thread-item').count()).toBe(3);
    expect(await first.getAttribute('aria-current')).toBe('true');
    await poll(() => log(page).getByText('Answered.').count()).toBe(1);

    // The next New thread makes a new one and opens it, not the one made before.
    await threads.getByRole('button', { name: 'New thread', exact: true }).press('Enter');
    await poll(() => gate.creates.length).toBe(4);
    await poll(() => threads.locator('.thread-item').count()).toBe(4);
    await poll(() => threads.locator('.thread-item.current').count()).toBe(1);
    expect(await first.getAttribute('aria-current')).toBeNull();
    await poll(() => log(page).getByText('Answered.').count()).toBe(0);
  });

  it('threads: search, date groups, full titles on hover, one empty thread at a time, a draft per thread', async () => {
    serve = await startServe({ script: [{ text: 'About VAT.' }, { text: 'About the parser.' }] });
    const page = await open(serve.url);
    const threads = page.getByRole('region', { name: 'Threads' });
    const longTitle = 'Work out the VAT rounding rules for every invoice line and the totals';
    await send(page, longTitle);
    await log(page).getByText('About VAT.').waitFor({ timeout: 60_000 });
    await threads.getByRole('button', { name: 'New thread' }).press('Enter');
    await poll(() => threads.locator('.thread-item').count()).toBe(2);
    // A second click while the new thread is empty adds nothing.
    await threads.getByRole('button', { name: 'New thread' }).press('Enter');
    await threads.getByRole('button', { name: 'New thread' }).press('Enter');
    await poll(() => threads.locator('.thread-item').count()).toBe(2);
    await send(page, 'Refactor the parser');
    await log(page).getByText('About the parser.').waitFor({ timeout: 60_000 });

    // Each thread keeps its own draft.
    // The list re-sorts as runs end: a click can land on the row that moved under it, so the
    // thread is clicked until it is the open one.
    const openThread = async (name: RegExp, text: string) => {
      const row = threads.getByRole('button', { name }).first();
      await expect
        .poll(async () => {
          if ((await row.getAttribute('aria-current')) !== 'true') await row.click();
          return row.getAttribute('aria-current');
        }, { timeout: 60_000 })
        .toBe('true');
      await log(page).getByText(text).waitFor();
    };
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('draft for the parser thread');
    await openThread(/VAT rounding/, 'About VAT.');
    expect(await page.getByRole('textbox', { name: 'Message', exact: true }).inputValue()).toBe('');
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('draft for VAT');
    await openThread(/parser/, 'About the parser.');
    await poll(() => page.getByRole('textbox', { name: 'Message', exact: true }).inputValue()).toBe('draft for the parser thread');

    await expect(threads.getByRole('group', { name: 'Today' }).count()).resolves.toBe(1);
    const vat = threads.getByRole('button', { name: /VAT rounding/ }).first();
    // The title is short (8 words, e2e/window-v.test.ts); on hover it shows whole where the row cuts it.
    expect(await vat.getAttribute('title')).toBe('Work out the VAT rounding rules for every…');
    await threads.getByRole('searchbox', { name: 'Search threads' }).fill('vat');
    await poll(() => threads.locator('.thread-item').count()).toBe(1);
    await screenshot(page, 'threads-search-1400x900');
    await threads.getByRole('searchbox', { name: 'Search threads' }).fill('');
    await poll(() => threads.locator('.thread-item').count()).toBe(2);
  });
});

describe('keyboard and accessibility', () => {
  it('moves focus into and out of the terminal by keyboard, and Tab meant for the UI never reaches the shell', async () => {
    serve = await startServe();
    const page = await open(serve.url);
    const terminal = page.getByRole('region', { name: 'Terminal' });
    const inTerminal = () => page.evaluate(() => !!document.activeElement?.closest('.terminal-panel'));
    await page.getByRole('textbox', { name: 'Message', exact: true }).focus();
    await page.keyboard.press('Control+Shift+Backquote');
    await poll(inTerminal).toBe(true);
    // The shell starts when the terminal opens: type once its prompt is there, not before.
    await expect.poll(() => page.locator('.terminal-panel .xterm-rows').first().innerText(), { timeout: 60_000 }).toMatch(/[$#]/);
    await page.keyboard.type('echo kb-$((20+1))');
    await page.keyboard.press('Enter');
    await expect.poll(() => terminal.innerText(), { timeout: 60_000 }).toContain('kb-21');
    await page.keyboard.press('Control+Shift+Backquote');
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Message');

    // Esc then Tab leaves the terminal, and the shell never sees that Tab: had it, bash
    // would have completed `cat zz` to the one file that matches before the Ctrl+C.
    writeFileSync(join(serve.folder, 'zz-completion-target.txt'), 'x\n');
    await page.keyboard.press('Control+Shift+Backquote');
    await poll(inTerminal).toBe(true);
    await page.keyboard.type('cat zz');
    await expect.poll(() => terminal.innerText(), { timeout: 60_000 }).toContain('cat zz');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    await poll(inTerminal).toBe(false);
    await page.keyboard.press('Control+Shift+Backquote');
    await poll(inTerminal).toBe(true);
    // The Escape reached the shell too (Esc is the shell's as well): read with a key that follows
    // it closely (keys arrive together on a loaded machine), readline takes the pair as one Meta
    // key and drops it. A second Ctrl+C interrupts then; the shell echoes ^C before more is typed.
    await page.keyboard.press('Control+C');
    await page.keyboard.press('Control+C');
    await expect.poll(() => terminal.innerText(), { timeout: 60_000 }).toMatch(/cat zz\^C/);
    // Ctrl+C is a signal, not a key: readline may still hold the Escape as the start of a Meta
    // key, and would take the next key typed with it (`echo` ran as `cho` once, under load).
    // Ctrl+U ends that either way: with the Escape, an unbound Meta key, dropped; without, it
    // empties a line that is empty already.
    await page.keyboard.press('Control+U');
    await page.keyboard.type('echo tab-$((1+1))');
    await page.keyboard.press('Enter');
    await expect.poll(() => terminal.innerText(), { timeout: 60_000 }).toContain('tab-2');
    expect(await terminal.innerText()).not.toContain('zz-completion-target');
  });

  it('names every expand button, and a disabled Send looks disabled in the dark theme', async () => {
    serve = await startServe({
      script: [
        { toolCalls: [{ name: 'write_todos', args: { todos: [{ content: 'Look', status: 'in_progress' }, { content: 'Fix', status: 'pending' }] } }, { name: 'ls', args: { path: '/' } }] },
        { text: 'Listed.' },
      ],
    });
    const page = await open(serve.url, 1024, 700, true);
    const sendButton = page.getByRole('button', { name: 'Send', exact: true });
    const style = (l: Locator) => l.evaluate((el) => { const s = getComputedStyle(el); return { bg: s.backgroundColor, color: s.color, cursor: s.cursor }; });
    // The look is read once it has settled: the dark theme applied and no colour transition under way.
    await poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    let seen = '';
    await expect.poll(async () => {
      const now = JSON.stringify(await style(sendButton));
      const same = now === seen;
      seen = now;
      return same;
    }, { timeout: 60_000, interval: 200 }).toBe(true);
    const disabled = JSON.parse(seen) as Awaited<ReturnType<typeof style>>;
    expect(await sendButton.isDisabled()).toBe(true);
    expect(disabled.cursor).toBe('not-allowed');
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('go');
    // The re-render (and any colour transition) comes after fill: poll for the enabled look.
    await expect.poll(() => sendButton.isEnabled()).toBe(true);
    await expect.poll(async () => (await style(sendButton)).bg).not.toBe(disabled.bg);
    await expect.poll(async () => (await style(sendButton)).color).not.toBe(disabled.color);
    await screenshot(page, 'dark-send-1024x700');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await log(page).getByText('Listed.').waitFor({ timeout: 60_000 });
    // The todo list is one line until opened.
    const todos = page.getByRole('region', { name: 'Todos' });
    expect((await box(todos)).height).toBeLessThan(40);
    const names = await page.locator('button[aria-expanded]').evaluateAll((buttons) =>
      buttons.map((b) => (b.getAttribute('aria-label') ?? b.textContent ?? '').trim()),
    );
    expect(names.length).toBeGreaterThan(5);
    for (const name of names) expect(name, JSON.stringify(names)).toMatch(/^(Show|Hide|Expand|Collapse) .{3,}/);
    await screenshot(page, 'dark-conversation-1024x700');
  });
});

function sleeping(marker: string): boolean {
  try {
    return execFileSync('pgrep', ['-f', `sleep ${marker}`], { encoding: 'utf8' }).trim() !== '';
  } catch {
    return false;
  }
}
