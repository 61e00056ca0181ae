// The usage ledger in the window (SPEC §17), in headless Chromium against `deepdesk serve`
// with a scripted model server that reports each call's tokens: the `Usage` view sums the
// calls by thread, day and model exactly as the server reported them, with totals and the
// line about calls of a model with no known price; a thread's row opens the thread (one of
// another folder, there). Every column stays in the view at 1024×700 and 1400×900. A price set
// in Settings › Prices (`Add price` starts with the model in use) prices the calls made without
// one and the next run (on the thread and in Usage); a budget per thread below what the thread
// has cost stops the next run before its model call, with one line and `Open settings`, and
// `Retry` only once the budget changed. WCAG 2.2 AA (axe) on the Usage view in both themes.
// Sandbox time (SPEC §18) seeded in the ledger shows in its own section, by thread, day and
// provider, priced at Settings › Sandboxes' price per hour or said to have none.

import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { databasePath } from '../src-main/app/base/data-dir';
import { ThreadStore } from '../src-main/app/threads/thread-store';
import { newThreadState } from '../src-main/core/agent/types';
import { openDatabase } from '../src-main/core/backends/store/store';
import { UsageLedger } from '../src-main/core/telemetry/usage-ledger';
import { auditEveryWay, describeViolations } from './axe';
import { conversation, openApp, screenshot, sendMessage, useE2ESession } from './harness';

const session = useE2ESession();
const pages: Page[] = [];
/** Model calls held back by a test: let go after it, whatever happened. */
const held: Array<() => void> = [];
/** Folders a test made besides its serve's. */
const others: string[] = [];
afterEach(async () => {
  for (const release of held.splice(0)) release();
  for (const page of pages.splice(0)) await page.context().close();
  for (const folder of others.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000 });

async function open(url: string, width = 1400, height = 900): Promise<Page> {
  const page = await openApp(session.browser, url, { width, height });
  pages.push(page);
  return page;
}

const MODEL = 'scripted-model';
const usageRegion = (page: Page): Locator => page.getByRole('region', { name: 'Usage', exact: true });
const usageButton = (page: Page): Locator => page.getByRole('banner').getByRole('button', { name: 'Usage', exact: true });
const messageBox = (page: Page): Locator => page.getByRole('textbox', { name: 'Message', exact: true });

/** Sends a message and waits for the run to end with `answer` shown. */
async function ask(page: Page, text: string, answer: string): Promise<void> {
  await sendMessage(page, text);
  await conversation(page).getByText(answer, { exact: true }).waitFor({ timeout: 60_000 });
  // The run has ended: Send is back (Stop is shown while the agent works).
  await page.getByRole('button', { name: 'Stop', exact: true }).waitFor({ state: 'detached', timeout: 60_000 });
}

/** The usage table as text: each row's cells, without the words only a screen reader gets. */
function tableOf(region: Locator): Promise<{ head: string[]; rows: string[][]; total: string[] }> {
  return region.locator('table').evaluate((table) => {
    const text = (cell: Element): string => {
      const copy = cell.cloneNode(true) as Element;
      for (const hidden of copy.querySelectorAll('.visually-hidden')) hidden.remove();
      return (copy.textContent ?? '').replace(/\s+/g, ' ').trim();
    };
    const cells = (row: Element): string[] => [...row.children].map(text);
    return {
      head: cells(table.querySelector('thead tr')!),
      rows: [...table.querySelectorAll('tbody tr')].map(cells),
      total: cells(table.querySelector('tfoot tr')!),
    };
  });
}

const tab = (region: Locator, name: string): Locator => region.getByRole('tablist', { name: 'Group by' }).getByRole('tab', { name, exact: true });
const NO_PRICE = '—';

describe('the Usage view', () => {
  it('sums the calls by thread, day and model as the model server reported them; a thread row opens the thread; axe in both themes', { timeout: 120_000 }, async () => {
    const serve = await session.serve({
      script: [
        { text: 'Answer one.', usage: { promptTokens: 1200, completionTokens: 340, cachedTokens: 200 } },
        { text: 'Answer two.', usage: { promptTokens: 2000, completionTokens: 150 } },
        { text: 'Answer three.', usage: { promptTokens: 2500, completionTokens: 410, cachedTokens: 1000 } },
      ],
    });
    const page = await open(serve.url);
    const startedDay = new Date().toISOString().slice(0, 10);

    await ask(page, 'first question', 'Answer one.');
    await page.getByRole('region', { name: 'Threads' }).getByRole('button', { name: 'New thread' }).press('Enter');
    await poll(() => page.getByRole('region', { name: 'Threads' }).locator('.thread-select').count()).toBe(2);
    await ask(page, 'second question', 'Answer two.');
    await ask(page, 'a follow-up', 'Answer three.');
    // The thread's own cost: no price is known for the scripted model.
    expect(await page.locator('.conversation-head').getByText('Cost unknown', { exact: true }).isVisible()).toBe(true);
    expect(serve.model.requests).toHaveLength(3);

    // Usage, from the header: in the conversation's place, the keyboard on its heading.
    await usageButton(page).click();
    const usage = usageRegion(page);
    await usage.waitFor();
    expect(await usageButton(page).getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByRole('region', { name: 'Chat' }).count()).toBe(0);
    await poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Usage');
    expect(await tab(usage, 'Thread').getAttribute('aria-selected')).toBe('true');

    // By thread: the most calls first (no cost is known), each as the server reported it.
    // Input is the prompt's tokens, cache reads among them.
    await poll(() => tableOf(usage).then((t) => t.rows.length)).toBe(2);
    expect(await tableOf(usage)).toEqual({
      head: ['Thread', 'Calls', 'Input', 'Output', 'Cache read', 'Cache write', 'Cost'],
      rows: [
        ['second question', '2', '4,500', '560', '1,000', '0', NO_PRICE],
        ['first question', '1', '1,200', '340', '200', '0', NO_PRICE],
      ],
      total: ['Total', '3', '5,700', '900', '1,200', '0', NO_PRICE],
    });
    // A screen reader is told what the dash means, and the line says why and where to fix it.
    expect(await usage.locator('tfoot td').last().innerText()).toContain('Unknown: no price for the model');
    expect(await usage.getByText('3 calls of models with no known price: tokens only (set a price in Settings › Prices).', { exact: true }).isVisible()).toBe(true);
    await screenshot(page, 'usage-by-thread-1400x900');

    // By model: one model, the same totals.
    await tab(usage, 'Model').click();
    await poll(() => tableOf(usage).then((t) => t.head[0])).toBe('Model');
    expect(await tableOf(usage)).toEqual({
      head: ['Model', 'Calls', 'Input', 'Output', 'Cache read', 'Cache write', 'Cost'],
      rows: [[`openai-compatible:${MODEL}`, '3', '5,700', '900', '1,200', '0', NO_PRICE]],
      total: ['Total', '3', '5,700', '900', '1,200', '0', NO_PRICE],
    });

    // By day (arrow keys move along the tabs): the days of the calls (UTC), and a chart whose text says what it shows.
    await tab(usage, 'Model').press('ArrowLeft');
    await poll(() => tab(usage, 'Day').getAttribute('aria-selected')).toBe('true');
    await poll(() => tableOf(usage).then((t) => t.head[0])).toBe('Day (UTC)');
    const byDay = await tableOf(usage);
    const today = new Date().toISOString().slice(0, 10);
    expect(byDay.total).toEqual(['Total', '3', '5,700', '900', '1,200', '0', NO_PRICE]);
    // Runs on one day (the usual case) make one row; across midnight UTC, a row a day.
    expect(byDay.rows.map((r) => r[0])).toEqual(startedDay === today ? [today] : [startedDay, today]);
    expect(byDay.rows.reduce((n, r) => n + Number(r[1]), 0)).toBe(3);
    const chart = usage.getByRole('img');
    expect(await chart.getAttribute('aria-label')).toMatch(/^Tokens \(input and output\) per day .*: total 6,600 tokens; highest [\d,]+ tokens on \d{4}-\d{2}-\d{2}\.$/);
    await screenshot(page, 'usage-by-day-1400x900');

    // Since: a day after today has no calls; the last 7 days has them all.
    const since = usage.getByRole('combobox', { name: 'Since', exact: true });
    await since.selectOption('date');
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await usage.getByLabel('Since date').fill(tomorrow);
    await usage.getByText(`No model calls since ${tomorrow}.`).waitFor();
    await since.selectOption('7d');
    await poll(() => tableOf(usage).then((t) => t.total)).toEqual(['Total', '3', '5,700', '900', '1,200', '0', NO_PRICE]);

    // WCAG 2.2 AA, both themes, both sizes: the tabs, the chart, the table.
    const found = await auditEveryWay(page, () => usage.locator('table').waitFor());
    expect(Object.entries(found).map(([way, v]) => `${way}:\n${describeViolations(v)}`).join('\n')).toBe('');
    // Narrow (the side panels folded into the switcher): the header's button and the view's controls stay in the window.
    await page.setViewportSize({ width: 800, height: 700 });
    await tab(usage, 'Thread').click();
    const settingsButton = page.getByRole('banner').getByRole('button', { name: 'Settings', exact: true });
    await screenshot(page, 'usage-by-thread-800x700');
    for (const [name, control] of [['Usage', usageButton(page)], ['Settings', settingsButton], ['Model', tab(usage, 'Model')], ['Since', since], ['Close', usage.getByRole('button', { name: 'Close Usage' })]] as const) {
      // The narrow layout is the window's (it folds the panels on a resize): wait for it, never race it.
      await poll(async () => {
        const box = await control.boundingBox();
        return { name, inView: box !== null && box.x >= 0 && box.x + box.width <= 800 };
      }).toEqual({ name, inView: true });
    }
    await page.setViewportSize({ width: 1400, height: 900 });

    // A thread's row opens that thread, in the conversation's place again.
    await usage.getByRole('button', { name: 'first question', exact: true }).click();
    await usage.waitFor({ state: 'detached' });
    await poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('first question');
    await conversation(page).getByText('Answer one.', { exact: true }).waitFor();
    await poll(() => messageBox(page).evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await usageButton(page).getAttribute('aria-pressed')).toBe('false');

    // Shown again and closed: the keyboard goes back to the header's button.
    await usageButton(page).click();
    await usageRegion(page).getByRole('button', { name: 'Close Usage' }).click();
    await usageRegion(page).waitFor({ state: 'detached' });
    await poll(() => usageButton(page).evaluate((el) => el === document.activeElement)).toBe(true);
  });

  it('refreshes itself when a run ends while it is shown', { timeout: 90_000 }, async () => {
    // The second call is answered only when the test says so.
    let answer = (): void => undefined;
    const asked = new Promise<void>((resolve) => (answer = resolve));
    held.push(answer);
    const serve = await session.serve({
      script: [
        { text: 'First.', usage: { promptTokens: 100, completionTokens: 10 } },
        async () => {
          await asked;
          return { text: 'Second.', usage: { promptTokens: 300, completionTokens: 30 } };
        },
      ],
    });
    const page = await open(serve.url);
    await ask(page, 'only thread', 'First.');
    await sendMessage(page, 'again');
    await poll(() => serve.model.requests.length).toBe(2);
    await usageButton(page).click();
    const usage = usageRegion(page);
    // Shown while the second call is still under way: one call so far.
    await poll(() => tableOf(usage).then((t) => t.total.slice(0, 3))).toEqual(['Total', '1', '100']);
    // That run ends, and the view follows by itself.
    answer();
    await poll(() => tableOf(usage).then((t) => t.total.slice(0, 3))).toEqual(['Total', '2', '400']);
    expect((await tableOf(usage)).rows).toEqual([['only thread', '2', '400', '40', '0', '0', NO_PRICE]]);
  });
});

/** Each cell of the table whose left or right edge is outside the Usage view's box, and whether its body scrolls sideways. */
function cellsOutside(region: Locator): Promise<{ outside: string[]; scrolls: boolean }> {
  return region.evaluate((view) => {
    const box = view.getBoundingClientRect();
    const outside: string[] = [];
    for (const cell of view.querySelectorAll('table th, table td')) {
      const r = cell.getBoundingClientRect();
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5) outside.push(`${(cell.textContent ?? '').trim()} [${Math.round(r.left)}–${Math.round(r.right)} of ${Math.round(box.left)}–${Math.round(box.right)}]`);
    }
    const body = view.querySelector('.usage-body')!;
    return { outside, scrolls: body.scrollWidth > body.clientWidth + 1 };
  });
}

describe('the Usage view, laid out', () => {
  it('keeps every column inside the view at 1024×700 and 1400×900, a long title and a failed call included; a thread of another folder opens there', { timeout: 120_000 }, async () => {
    const serve = await session.serve({
      settings: { prices: { [`openai-compatible:${MODEL}`]: { input: 3, output: 15 } } },
      script: [
        { text: 'Long answer.', usage: { promptTokens: 123_456, completionTokens: 45_678, cachedTokens: 100_000 } },
        { error: { status: 400, body: { error: { message: 'bad request' } } } },
      ],
    });
    const page = await open(serve.url, 1024, 700);
    const title = 'Please look through every module of this project and explain how the usage ledger, the budgets and the prices fit together';
    await ask(page, title, 'Long answer.');
    await sendMessage(page, 'and fail');
    await conversation(page).locator('.notice-error').waitFor({ timeout: 60_000 });

    await usageButton(page).click();
    const usage = usageRegion(page);
    await poll(() => tableOf(usage).then((t) => t.rows[0]?.[1])).toBe('2 (1 failed)');
    for (const [width, height] of [
      [1024, 700],
      [1400, 900],
    ] as const) {
      await page.setViewportSize({ width, height });
      for (const grouping of ['Thread', 'Day', 'Model']) {
        await tab(usage, grouping).click();
        await poll(() => tableOf(usage).then((t) => t.head[0])).toBe(grouping === 'Day' ? 'Day (UTC)' : grouping);
        await poll(() => cellsOutside(usage)).toEqual({ outside: [], scrolls: false });
        // The cost is shown whole, not cut.
        expect((await tableOf(usage)).total.at(-1)).toMatch(/^\$\d/);
      }
      await tab(usage, 'Thread').click();
      await poll(() => tableOf(usage).then((t) => t.head[0])).toBe('Thread');
      await screenshot(page, `usage-long-title-${width}x${height}`);
    }
    // The title as the thread list has it (cut with an ellipsis only on screen).
    const label = (await tableOf(usage)).rows[0]![0]!;
    expect(title.startsWith(label.replace(/…$/, ''))).toBe(true);

    // Another folder open: this thread's row names its folder, and opens it there.
    const other = mkdtempSync(join(tmpdir(), 'deepdesk-e2e-usage-other-'));
    others.push(other);
    writeFileSync(join(other, 'other.txt'), 'other\n');
    await usage.getByRole('button', { name: 'Close Usage' }).click();
    await page.getByRole('button', { name: 'Open folder', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Open folder' });
    await dialog.getByRole('textbox', { name: 'Folder path' }).fill(other);
    await dialog.getByRole('button', { name: 'Open', exact: true }).click();
    await page.getByRole('region', { name: 'Files' }).getByRole('treeitem', { name: /other\.txt/ }).waitFor({ timeout: 60_000 });
    await usageButton(page).click();
    const row = usageRegion(page).getByRole('button', { name: `${label} (in ${basename(serve.folder)})`, exact: true });
    await row.click();
    await usageRegion(page).waitFor({ state: 'detached' });
    await poll(() => page.title()).toBe(`${basename(serve.folder)} — Deepdesk`);
    await conversation(page).getByText('Long answer.', { exact: true }).waitFor({ timeout: 60_000 });
    await poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe(label);
  });
});

describe('prices and budgets', () => {
  it('a price set in Settings prices the calls made without one and the next run; a budget below what the thread cost pauses the next run before its call (the Usage view’s budget tree shows it), and Raise and resume goes on', { timeout: 120_000 }, async () => {
    const serve = await session.serve({
      script: [
        { text: 'Unpriced answer.', usage: { promptTokens: 1000, completionTokens: 500 } },
        { text: 'Priced answer.', usage: { promptTokens: 1000, completionTokens: 500 } },
        { text: 'Asked once the budget went.', usage: { promptTokens: 1000, completionTokens: 500 } },
      ],
    });
    const page = await open(serve.url);
    await ask(page, 'what does it cost', 'Unpriced answer.');
    const head = page.locator('.conversation-head');
    await head.getByText('Cost unknown', { exact: true }).waitFor();

    // Settings › Prices: $10 per million input tokens, $20 per million output tokens.
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Prices' }).click();
    const prices = dialog.getByRole('group', { name: 'Prices', exact: true });
    // `Add price` starts with the model in use; the keyboard goes to its first price.
    await prices.getByRole('button', { name: 'Add price' }).click();
    const model = prices.getByRole('textbox', { name: 'Model (provider:model)' });
    expect(await model.inputValue()).toBe(`openai-compatible:${MODEL}`);
    const price = prices.getByRole('group', { name: `Price of openai-compatible:${MODEL}` });
    await poll(() => price.getByRole('textbox', { name: 'Input', exact: true }).evaluate((el) => el === document.activeElement)).toBe(true);
    await price.getByRole('textbox', { name: 'Input', exact: true }).fill('10');
    await price.getByRole('textbox', { name: 'Output', exact: true }).fill('20');
    // Telemetry, beside it: the explanation that nothing leaves the machine unless set.
    const telemetry = dialog.getByRole('group', { name: 'Telemetry' });
    expect(await telemetry.innerText()).toContain('Nothing leaves this machine unless an endpoint is set here');
    await screenshot(page, 'settings-prices-1400x900');
    const settingsFound = await auditEveryWay(page);
    expect(Object.entries(settingsFound).map(([way, v]) => `${way}:\n${describeViolations(v)}`).join('\n')).toBe('');
    await page.setViewportSize({ width: 1400, height: 900 });
    await dialog.getByRole('button', { name: 'Save settings' }).click();
    await dialog.waitFor({ state: 'detached' });

    // The call made without a price has one now, at once: 1,000 input tokens at $10/M and 500
    // output tokens at $20/M, $0.02 — the thread's cost and its latest run's, no new run needed.
    await poll(() => head.getByText('Cost of this thread: $0.02', { exact: true }).count()).toBe(1);
    expect(await head.locator('.run-cost').textContent()).toBe('Cost of the latest run: last run $0.02');
    await usageButton(page).click();
    const usage = usageRegion(page);
    await poll(() => tableOf(usage).then((t) => t.rows)).toEqual([['what does it cost', '1', '1,000', '500', '0', '0', '$0.02']]);
    expect(await usage.getByText(/no known price/).count()).toBe(0);
    await usage.getByRole('button', { name: 'Close Usage' }).click();

    // The next run costs as much again.
    await ask(page, 'and now', 'Priced answer.');
    await poll(() => head.getByText('Cost of this thread: $0.04', { exact: true }).count()).toBe(1);
    // And what the run just ended cost on its own.
    expect(await head.locator('.run-cost').textContent()).toBe('Cost of the latest run: last run $0.02');
    // What the eye gets beside the context meter.
    expect(await head.locator('.cost').evaluate((el) => [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join(''))).toBe('$0.04');

    // In Usage: $0.04 for the thread and for the day.
    await usageButton(page).click();
    await poll(() => tableOf(usage).then((t) => t.rows)).toEqual([['what does it cost', '2', '2,000', '1,000', '0', '0', '$0.04']]);
    await tab(usage, 'Day').click();
    await poll(() => usage.getByRole('img').getAttribute('aria-label')).toMatch(/^Cost per day on \d{4}-\d{2}-\d{2}: total \$0\.04; highest \$0\.04 on /);
    await usage.getByRole('button', { name: 'Close Usage' }).click();

    // A budget per thread of $0.01, below the $0.04 spent: the next run stops before its call.
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    await dialog.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Prices' }).click();
    await dialog.getByRole('textbox', { name: 'Budget per thread (USD)' }).fill('0.01');
    await dialog.getByRole('button', { name: 'Save settings' }).click();
    await dialog.waitFor({ state: 'detached' });
    await sendMessage(page, 'one more');
    // SPEC §26: the run pauses before its call, one line naming the cap, and Raise and resume.
    const paused = conversation(page).getByRole('status', { name: 'Paused at a budget' });
    await paused.waitFor({ timeout: 60_000 });
    expect(await paused.innerText()).toMatch(/paused: the thread's budget of \$0\.01 is spent \(\$0\.04 \+ this call's \$0\.\d\d\)/);
    expect(serve.model.requests).toHaveLength(2);
    await screenshot(page, 'usage-budget-paused-1400x900');
    // The Usage view's budget tree shows the thread paused, under its folder.
    await usageButton(page).click();
    const tree = usage.getByRole('region', { name: 'Budget tree' });
    await poll(() => tree.innerText()).toMatch(/what does it cost spent \$0\.04 · cap \$0\.01 paused: the thread's budget/);
    await usage.getByRole('button', { name: 'Close Usage' }).click();
    // Raise and resume: the thread's own cap is set higher, and the run goes on where it stopped.
    await paused.getByRole('spinbutton', { name: 'New limit (USD)' }).fill('1');
    await paused.getByRole('button', { name: 'Raise and resume' }).click();
    await conversation(page).getByText('Asked once the budget went.', { exact: true }).waitFor({ timeout: 60_000 });
    const saved = (): { budgets?: { threads?: Record<string, unknown> }; threadBudgetUsd?: number } => JSON.parse(readFileSync(join(serve.dataDir, 'settings.json'), 'utf8')) as never;
    expect(Object.values(saved().budgets?.threads ?? {})).toEqual([{ maxCostUsd: 1 }]);
    expect(saved().threadBudgetUsd).toBe(0.01);
    await paused.waitFor({ state: 'detached' });
    expect(serve.model.requests).toHaveLength(3);
  });
});

describe('sandbox time', () => {
  it('shows a thread’s sandbox time by thread, day and provider with its cost at the price per hour in Settings, or says it has none; the row opens the thread; axe in both themes', { timeout: 120_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), 'deepdesk-e2e-folder-'));
    const dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-e2e-data-'));
    const db = openDatabase(databasePath(dataDir));
    try {
      const state = newThreadState('cloud-thread');
      state.messages = [{ role: 'user', content: 'Build it in the cloud' }];
      new ThreadStore(db).save(state, { folder: realpathSync(folder) });
      const ledger = new UsageLedger(db);
      const slice = { at: '2025-01-10T09:00:00.000Z', threadId: 'cloud-thread', folder: realpathSync(folder), sandboxId: 'sb-1', costUsd: null };
      // An hour and two minutes in Daytona (priced in Settings below), in two slices; 3m 20s in E2B (no price).
      ledger.recordSandboxTime({ ...slice, provider: 'daytona', seconds: 1800 });
      ledger.recordSandboxTime({ ...slice, at: '2025-01-10T09:30:00.000Z', provider: 'daytona', seconds: 1920 });
      ledger.recordSandboxTime({ ...slice, at: '2025-01-11T10:00:00.000Z', provider: 'e2b', sandboxId: 'sb-2', seconds: 200 });
    } finally {
      db.close();
    }
    const serve = await session.serve({ folder, dataDir, settings: { sandboxes: { pricesPerHourUsd: { daytona: 0.9 } } } });
    const page = await open(serve.url);
    await usageButton(page).click();
    const usage = usageRegion(page);
    const sandboxes = usage.getByRole('region', { name: 'Sandbox time', exact: true });

    // No model calls, and the sandbox time: by thread, the priced time first.
    await usage.getByText('No model calls yet.', { exact: true }).waitFor();
    await poll(() => tableOf(sandboxes)).toEqual({
      head: ['Thread', 'Provider', 'Time', 'Cost'],
      rows: [
        ['Build it in the cloud', 'Daytona', '1h 02m', '$0.93'],
        ['Build it in the cloud', 'E2B', '3m 20s', NO_PRICE],
      ],
      total: ['Total', '', '1h 05m', '$0.93 + unknown'],
    });
    // What the dash and the mark mean, for a screen reader, and where to set a price.
    expect(await sandboxes.locator('tbody tr').nth(1).locator('td').last().innerText()).toContain('Unknown: no price per hour for the provider');
    expect(await sandboxes.locator('tfoot td').last().innerText()).toContain('3m 20s with no price per hour not counted');
    expect(
      await sandboxes
        .getByText("3m 20s of sandbox time with no price: time counted, cost not (set a price per hour in Settings › Sandboxes; a provider's price depends on the sandbox's size).", { exact: true })
        .isVisible(),
    ).toBe(true);
    await screenshot(page, 'usage-sandbox-time-1400x900');

    // By model: a row per provider, as sandbox:<provider>.
    await tab(usage, 'Model').click();
    await poll(() => tableOf(sandboxes).then((t) => t.rows)).toEqual([
      ['sandbox:daytona', 'Daytona', '1h 02m', '$0.93'],
      ['sandbox:e2b', 'E2B', '3m 20s', NO_PRICE],
    ]);
    // By day (UTC), oldest first.
    await tab(usage, 'Day').click();
    await poll(() => tableOf(sandboxes).then((t) => [t.head[0], ...t.rows.map((r) => `${r[0]} ${r[1]} ${r[2]}`)])).toEqual(['Day (UTC)', '2025-01-10 Daytona 1h 02m', '2025-01-11 E2B 3m 20s']);

    // Every column inside the view at 1024×700 too.
    await page.setViewportSize({ width: 1024, height: 700 });
    await poll(() => cellsOutside(usage)).toEqual({ outside: [], scrolls: false });

    const found = await auditEveryWay(page, () => sandboxes.locator('table').waitFor());
    expect(Object.entries(found).map(([way, v]) => `${way}:\n${describeViolations(v)}`).join('\n')).toBe('');
    await page.setViewportSize({ width: 1400, height: 900 });

    // A thread's row opens the thread.
    await tab(usage, 'Thread').click();
    await sandboxes.getByRole('button', { name: 'Build it in the cloud', exact: true }).first().click();
    await usage.waitFor({ state: 'detached' });
    await poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('Build it in the cloud');
  });
});
