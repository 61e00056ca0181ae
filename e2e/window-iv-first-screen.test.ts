// Window IV, the first screen as a newcomer meets it (headless Chromium against `deepdesk
// serve` and the scripted model, at the sizes where each problem was seen): the offer of
// modes covers no control and waits while a model is still to be set; by keyboard, Esc
// closes it as its text says (it can be opened again) and the keyboard lands on a control.

import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { conversation, openApp, screenshot, sendMessage, useE2ESession } from './harness';

const e2e = useE2ESession();

const SIZES = [
  [1400, 900],
  [1024, 700],
] as const;

/** expect.poll with room for a loaded machine. */
const poll = <T,>(fn: () => T | Promise<T>, message?: string) => expect.poll(fn, { timeout: 10_000, ...(message ? { message } : {}) });

const offerButton = (page: Page) => page.getByRole('button', { name: 'Show mode choices for this new folder' });
const offer = (page: Page) => page.getByRole('group', { name: /How much may the agent do on its own/ });
/** What the data folder keeps of the folder's mode (nothing until something was recorded). */
const folderModes = (dataDir: string, folder: string): Record<string, unknown> => {
  const file = join(dataDir, 'folder-modes.json');
  if (!existsSync(file)) return {};
  return (JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>)[realpathSync(folder)] ?? {};
};

/** The element with the keyboard, by its name: `body` when none has it. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (el === null || el === document.body || el === document.documentElement) return 'body';
    return el.getAttribute('aria-label') ?? el.innerText.split('\n')[0]!.trim();
  });

/** The controls of the window (outside `over`) whose box `over` overlaps, by name and box. */
function controlsUnder(over: Locator): Promise<string[]> {
  return over.evaluate((cover) => {
    const r = cover.getBoundingClientRect();
    const controls = document.querySelectorAll<HTMLElement>('a[href], button, textarea, input, select, [tabindex]:not([tabindex="-1"]), [role="treeitem"], [role="separator"]');
    const under: string[] = [];
    for (const el of controls) {
      if (cover.contains(el) || el.contains(cover)) continue;
      const b = el.getBoundingClientRect();
      if (b.width === 0 || b.height === 0) continue;
      if (b.right > r.left && b.left < r.right && b.bottom > r.top && b.top < r.bottom) under.push(`${el.getAttribute('aria-label') ?? el.innerText.trim().slice(0, 40)} at ${Math.round(b.left)},${Math.round(b.top)}`);
    }
    return under;
  });
}

/** Whether what is drawn at the centre of `locator` is itself (nothing covers it). */
const onTop = (locator: Locator) =>
  locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return hit !== null && (hit === el || el.contains(hit));
  });

/** Presses `key` until `name` has the keyboard (at most `limit` times); the names passed on the way. */
async function pressUntil(page: Page, key: string, name: string, limit = 80): Promise<string[]> {
  const passed: string[] = [];
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press(key);
    const now = await focused(page);
    passed.push(now);
    if (now === name) return passed;
  }
  throw new Error(`${name} never had the keyboard; ${key} went through ${passed.join(' → ')}`);
}

describe('the offer of modes on the first screen', () => {
  it('with no model yet, does not open by itself: `Open settings` stays uncovered, the offer waits behind its button', async () => {
    for (const [width, height] of SIZES) {
      const serve = await e2e.serve({ firstOpen: true, withModel: false });
      const page = await openApp(e2e.browser, serve.url, { width, height });
      const openSettings = page.getByRole('button', { name: 'Open settings' });
      await openSettings.waitFor({ timeout: 10_000 });
      await offerButton(page).waitFor({ timeout: 10_000 });
      // The mode has arrived (the Mode control is live) and the offer still has not opened.
      await poll(() => page.getByRole('combobox', { name: 'Mode' }).isEnabled()).toBe(true);
      expect(await offer(page).count(), `${width}×${height}`).toBe(0);
      expect(await onTop(openSettings), `${width}×${height}`).toBe(true);
      // Not recorded as shown: it opens by itself once a model is set.
      expect(folderModes(serve.dataDir, serve.folder).offerShown).not.toBe(true);
      // Opened from its button, it still covers nothing.
      await offerButton(page).click();
      await offer(page).waitFor();
      expect(await controlsUnder(offer(page)), `${width}×${height}`).toEqual([]);
      expect(await onTop(openSettings), `${width}×${height}`).toBe(true);
      await screenshot(page, `iv-mode-offer-no-model-${width}x${height}`);
      await page.context().close();
    }
  });

  it('opens by itself over no control at either size', async () => {
    for (const [width, height] of SIZES) {
      const serve = await e2e.serve({ firstOpen: true });
      const page = await openApp(e2e.browser, serve.url, { width, height });
      const choices = offer(page);
      await choices.waitFor({ timeout: 10_000 });
      await poll(() => choices.evaluate((el) => el.contains(document.activeElement))).toBe(true);
      // Every choice is shown whole, and nothing of the window is under the offer.
      for (const mode of ['ask', 'edit', 'plan']) expect(await onTop(choices.getByRole('button', { name: mode, exact: true })), `${mode} ${width}×${height}`).toBe(true);
      expect(await controlsUnder(choices), `${width}×${height}`).toEqual([]);
      for (const name of ['Send', 'New thread']) expect(await onTop(page.getByRole('button', { name, exact: true })), `${name} ${width}×${height}`).toBe(true);
      await screenshot(page, `iv-mode-offer-${width}x${height}`);
      await page.context().close();
    }
  });

  it('works by keyboard as its text says: Esc closes it, its button opens it again, and the keyboard is always on a control', async () => {
    const serve = await e2e.serve({ firstOpen: true });
    const page = await openApp(e2e.browser, serve.url, { width: 1400, height: 900 });
    const choices = offer(page);
    await choices.waitFor({ timeout: 10_000 });
    await poll(() => focused(page)).toBe('ask');
    await poll(() => folderModes(serve.dataDir, serve.folder).offerShown).toBe(true);
    // Tab goes through the choices in the order they are drawn, then its two actions.
    const enabled = await choices.locator('button.mode-choice:not(:disabled)').evaluateAll((els) => els.map((el) => el.getAttribute('aria-label')));
    const order: string[] = [];
    for (let i = 0; i < enabled.length + 1; i++) {
      await page.keyboard.press('Tab');
      order.push(await focused(page));
    }
    expect(order).toEqual([...enabled.slice(1), 'Keep ask, don’t offer again', 'Close mode choices']);
    await page.keyboard.press('Shift+Tab');
    expect(await focused(page)).toBe('Keep ask, don’t offer again');

    // Esc closes it: not "don't offer again".
    await page.keyboard.press('Escape');
    await poll(() => choices.count()).toBe(0);
    await poll(() => focused(page)).not.toBe('body');
    expect(await offerButton(page).count()).toBe(1);
    expect(await page.getByRole('combobox', { name: 'Mode' }).inputValue()).toBe('ask');
    expect(folderModes(serve.dataDir, serve.folder).offerDismissed).not.toBe(true);

    // Reached by keyboard, its button opens it again, with the keyboard in it; Esc gives the keyboard back to the button.
    await pressUntil(page, 'Shift+Tab', 'Show mode choices for this new folder');
    await page.keyboard.press('Enter');
    await choices.waitFor();
    await poll(() => focused(page)).toBe('ask');
    await page.keyboard.press('Escape');
    await poll(() => choices.count()).toBe(0);
    await poll(() => focused(page)).toBe('Show mode choices for this new folder');
    // Space too, and Close closes it the same way.
    await page.keyboard.press('Space');
    await choices.waitFor();
    await pressUntil(page, 'Tab', 'Close mode choices', 8);
    await page.keyboard.press('Enter');
    await poll(() => choices.count()).toBe(0);
    await poll(() => focused(page)).toBe('Show mode choices for this new folder');

    // After a reload it does not open by itself again (it was shown), but its button is there.
    await page.reload();
    await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
    await offerButton(page).waitFor({ timeout: 10_000 });
    expect(await offer(page).count()).toBe(0);

    // Choosing a mode by keyboard answers it: the button goes, the keyboard lands on the message box.
    await offerButton(page).focus();
    await page.keyboard.press('Enter');
    await poll(() => focused(page)).toBe('ask');
    await pressUntil(page, 'Tab', 'plan', 4);
    await page.keyboard.press('Enter');
    await poll(() => page.getByRole('combobox', { name: 'Mode' }).inputValue()).toBe('plan');
    await poll(() => offerButton(page).count()).toBe(0);
    await poll(() => focused(page)).toBe('Message');
    await page.context().close();
  });

  it('`Keep ask, don’t offer again` answers it for the folder, and the keyboard goes to the message box', async () => {
    const serve = await e2e.serve({ firstOpen: true });
    const page = await openApp(e2e.browser, serve.url, { width: 1024, height: 700 });
    await offer(page).waitFor({ timeout: 10_000 });
    await poll(() => focused(page)).toBe('ask');
    await pressUntil(page, 'Tab', 'Keep ask, don’t offer again', 6);
    await page.keyboard.press('Enter');
    await poll(() => offer(page).count()).toBe(0);
    await poll(() => offerButton(page).count()).toBe(0);
    await poll(() => focused(page)).toBe('Message');
    await poll(() => folderModes(serve.dataDir, serve.folder).offerDismissed).toBe(true);
    await page.context().close();
  });
});

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('a model server that is down', () => {
  it('the run’s error says so in plain words and offers Open settings and Retry; Test connection answers at once', { timeout: 90_000 }, async () => {
    const port = await closedPort();
    const serve = await e2e.serve({ withModel: false, settings: { model: 'openai-compatible:qwen3', baseUrl: `http://127.0.0.1:${port}/v1` } });
    const page = await openApp(e2e.browser, serve.url, { width: 1400, height: 900 });
    await sendMessage(page, 'Why does test_total fail?');
    const error = conversation(page).locator('.notice-error').last();
    await expect.poll(() => error.count(), { timeout: 30_000 }).toBe(1);
    await poll(() => error.innerText()).toContain(`Can't reach the model server at 127.0.0.1:${port}. Is it running? Check the address in Settings.`);
    // The technical text is there, secondary: behind `Technical detail`, not in the words shown.
    expect(await error.getByText(/ECONNREFUSED/).isVisible()).toBe(false);
    const detail = error.locator('summary', { hasText: 'Technical detail' });
    await detail.click();
    await poll(() => error.getByText(/ECONNREFUSED/).isVisible()).toBe(true);
    expect(await conversation(page).getByRole('button', { name: 'Retry' }).count()).toBe(1);
    await screenshot(page, 'iv-server-down-1400x900');

    // Its way out: Settings, where Test connection answers at once (no five retries), in the same words.
    await error.getByRole('button', { name: 'Open settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.waitFor();
    const test = dialog.getByRole('button', { name: 'Test connection' });
    await test.scrollIntoViewIfNeeded();
    const started = Date.now();
    await test.click();
    const status = dialog.getByRole('status').filter({ hasText: /model server/ });
    await status.waitFor({ timeout: 10_000 });
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(await status.innerText()).toBe(`Can't reach the model server at 127.0.0.1:${port}. Is it running? Check the address above.`);
    await screenshot(page, 'iv-server-down-test-connection-1400x900');
    await page.context().close();
  });
});
