// Issue 42, Settings and Threads, as a newcomer meets them in headless Chromium against
// `deepdesk serve`: Settings has a section navigation (a link a section, keyboard-usable, at
// 1400×900 and 1024×700); a project server marked `Not trusted` can be trusted from Settings
// through the same trust gate (what it runs is shown first), and the answer does not wait for
// the server to start; Save settings leaves the keyboard on a control.

import type { Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { openApp, screenshot, useE2ESession } from './harness';

const session = useE2ESession();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });
const settingsDialog = (page: Page): Locator => page.getByRole('dialog', { name: 'Settings' });

async function open(url: string, width: number, height: number): Promise<Page> {
  const page = await openApp(session.browser, url, { width, height });
  cleanups.push(() => page.context().close());
  return page;
}

async function openSettings(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = settingsDialog(page);
  await dialog.waitFor();
  return dialog;
}

/** How far `inner`'s top is below `outer`'s top (px). */
async function offsetWithin(inner: Locator, outer: Locator): Promise<number> {
  const [a, b] = await Promise.all([inner.boundingBox(), outer.boundingBox()]);
  if (!a || !b) throw new Error('not laid out');
  return a.y - b.y;
}

const SECTION_NAMES = ['Model', 'Context window', 'Approval rules', 'Subagents', 'Mounts', 'MCP servers', 'Skills', 'Hooks', 'Appearance', 'Updates'];

describe('Settings sections', () => {
  for (const [width, height] of [
    [1400, 900],
    [1024, 700],
  ] as const) {
    it(`a link a section, each takes the scroll and the keyboard to it (${width}×${height})`, { timeout: 60_000 }, async () => {
      const serve = await session.serve();
      const page = await open(serve.url, width, height);
      const dialog = await openSettings(page);
      const nav = dialog.getByRole('navigation', { name: 'Settings sections' });
      await nav.waitFor();
      expect(await nav.getByRole('link').allInnerTexts()).toEqual(SECTION_NAMES);
      // Every link is in view without scrolling the dialog.
      for (const link of await nav.getByRole('link').all()) expect(await link.isVisible()).toBe(true);
      const body = dialog.locator('.settings-body');

      // MCP servers, far below the fold, is one click away: at the top of the scroll, focused.
      const mcp = dialog.getByRole('region', { name: 'MCP servers' });
      expect(await offsetWithin(mcp, body)).toBeGreaterThan(height);
      await nav.getByRole('link', { name: 'MCP servers' }).click();
      await poll(() => offsetWithin(mcp, body).then((y) => Math.abs(y) < 30)).toBe(true);
      await poll(() => mcp.evaluate((el) => el === document.activeElement)).toBe(true);
      expect(await nav.getByRole('link', { name: 'MCP servers' }).getAttribute('aria-current')).toBe('true');
      await screenshot(page, `settings-sections-mcp-${width}x${height}`);
      // Tab goes on into the section's controls.
      await page.keyboard.press('Tab');
      expect(await mcp.evaluate((el) => el.contains(document.activeElement) && el !== document.activeElement)).toBe(true);

      // By keyboard: Tab to the links, Enter on one.
      await nav.getByRole('link', { name: 'Model' }).focus();
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Approval rules');
      await page.keyboard.press('Enter');
      const rules = dialog.getByRole('group', { name: 'Approval rules' });
      await poll(() => offsetWithin(rules, body).then((y) => Math.abs(y) < 30)).toBe(true);
      await poll(() => rules.evaluate((el) => el === document.activeElement)).toBe(true);

      // The last, short section: marked current though it cannot reach the top.
      await nav.getByRole('link', { name: 'Updates' }).click();
      await poll(() => dialog.getByRole('region', { name: 'Updates' }).isVisible()).toBe(true);
      await poll(() => nav.getByRole('link', { name: 'Updates' }).getAttribute('aria-current')).toBe('true');
      // Scrolling by hand moves the mark.
      await body.evaluate((el) => (el.scrollTop = 0));
      await poll(() => nav.getByRole('link', { name: 'Model' }).getAttribute('aria-current')).toBe('true');
    });
  }
});
