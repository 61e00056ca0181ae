// The usage ledger in the window (SPEC §17), in headless Chromium against `deepdesk serve`
// with a scripted model server that reports each call's tokens: the `Usage` view sums the
// calls by thread, day and model exactly as the server reported them, with totals and the
// line about calls of a model with no known price; a thread's row opens the thread. A price
// set in Settings › Prices gives the next run its cost (on the thread and in Usage); a budget
// per thread below what the thread has cost stops the next run before its model call, with
// one line and `Open settings`. WCAG 2.2 AA (axe) on the Usage view in both themes.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { auditEveryWay, describeViolations } from './axe';
import { conversation, openApp, screenshot, sendMessage, useE2ESession } from './harness';

const session = useE2ESession();
const pages: Page[] = [];
/** Model calls held back by a test: let go after it, whatever happened. */
const held: Array<() => void> = [];
afterEach(async () => {
  for (const release of held.splice(0)) release();
  for (const page of pages.splice(0)) await page.context().close();
});

const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000 });

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
  await conversation(page).getByText(answer, { exact: true }).waitFor({ timeout: 20_000 });
  // The run has ended: Send is back (Stop is shown while the agent works).
  await page.getByRole('button', { name: 'Stop', exact: true }).waitFor({ state: 'detached', timeout: 20_000 });
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
    await page.getByRole('region', { name: 'Threads' }).getByRole('button', { name: 'New thread' }).click();
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

describe('prices and budgets', () => {
  it('a price set in Settings gives the next run its cost; a budget below what the thread cost stops the next run with Open settings', { timeout: 120_000 }, async () => {
    const serve = await session.serve({
      script: [
        { text: 'Unpriced answer.', usage: { promptTokens: 1000, completionTokens: 500 } },
        { text: 'Priced answer.', usage: { promptTokens: 1000, completionTokens: 500 } },
        { text: 'Never asked for.' },
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
    await prices.getByRole('button', { name: 'Add price' }).click();
    const model = prices.getByRole('textbox', { name: 'Model (provider:model)' });
    await poll(() => model.evaluate((el) => el === document.activeElement)).toBe(true);
    await model.fill(`openai-compatible:${MODEL}`);
    const price = prices.getByRole('group', { name: `Price of openai-compatible:${MODEL}` });
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

    // 1,000 input tokens at $10/M and 500 output tokens at $20/M: $0.02.
    await ask(page, 'and now', 'Priced answer.');
    await poll(() => head.getByText('Cost of this thread: $0.02', { exact: true }).count()).toBe(1);
    // And what the run just ended cost on its own.
    expect(await head.locator('.run-cost').textContent()).toBe('Cost of the latest run: last run $0.02');
    // What the eye gets beside the context meter.
    expect(await head.locator('.cost').evaluate((el) => [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join(''))).toBe('$0.02');

    // In Usage: at least $0.02 for the thread (one call had no price), $0.02 for the day.
    await usageButton(page).click();
    const usage = usageRegion(page);
    await poll(() => tableOf(usage).then((t) => t.rows)).toEqual([['what does it cost', '2', '2,000', '1,000', '0', '0', '≥ $0.02']]);
    expect(await usage.locator('tbody td').last().innerText()).toContain('At least $0.02: 1 call of models with no known price not counted');
    await tab(usage, 'Day').click();
    await poll(() => usage.getByRole('img').getAttribute('aria-label')).toMatch(/^Cost per day on \d{4}-\d{2}-\d{2}: total \$0\.02; highest \$0\.02 on /);
    await usage.getByRole('button', { name: 'Close Usage' }).click();

    // A budget per thread of $0.01, below the $0.02 spent: the next run stops before its call.
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    await dialog.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Prices' }).click();
    await dialog.getByRole('textbox', { name: 'Budget per thread (USD)' }).fill('0.01');
    await dialog.getByRole('button', { name: 'Save settings' }).click();
    await dialog.waitFor({ state: 'detached' });
    await sendMessage(page, 'one more');
    const line = conversation(page).locator('.notice-budget');
    await line.waitFor({ timeout: 20_000 });
    expect(await line.innerText()).toMatch(/budget of \$0\.01/);
    // One line, not an error and a notice too; no model call was made.
    expect(await conversation(page).locator('.notice-error').count()).toBe(1);
    expect(serve.model.requests).toHaveLength(2);
    await screenshot(page, 'usage-budget-stop-1400x900');

    // Open settings: at Prices, where the budget is, with the keyboard there.
    await line.getByRole('button', { name: 'Open settings' }).click();
    await dialog.waitFor();
    await poll(() => prices.evaluate((el) => el === document.activeElement)).toBe(true);
    // Empty clears the budget.
    await dialog.getByRole('textbox', { name: 'Budget per thread (USD)' }).fill('');
    await dialog.getByRole('button', { name: 'Save settings' }).click();
    await dialog.waitFor({ state: 'detached' });
    const saved = (): Record<string, unknown> => JSON.parse(readFileSync(join(serve.dataDir, 'settings.json'), 'utf8')) as Record<string, unknown>;
    await poll(() => 'threadBudgetUsd' in saved()).toBe(false);
    expect(saved().prices).toEqual({ [`openai-compatible:${MODEL}`]: { input: 10, output: 20 } });
  });
});
