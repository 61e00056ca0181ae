// Window IV, the first screen as a newcomer meets it (headless Chromium against `deepdesk
// serve` and the scripted model, at the sizes where each problem was seen): the offer of
// modes covers no control and waits while a model is still to be set; by keyboard, Esc
// closes it as its text says (it can be opened again) and the keyboard lands on a control.

import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { auditEveryWay, describeViolations } from './axe';
import { conversation, openApp, screenshot, sendMessage, useE2ESession } from './harness';

const e2e = useE2ESession();

const SIZES = [
  [1400, 900],
  [1024, 700],
] as const;

/** expect.poll with room for a loaded machine. */
const poll = <T,>(fn: () => T | Promise<T>, message?: string) => expect.poll(fn, { timeout: 60_000, ...(message ? { message } : {}) });

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
      await openSettings.waitFor({ timeout: 60_000 });
      await offerButton(page).waitFor({ timeout: 60_000 });
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
      if (width === 1400) {
        // The first screen with both, in both themes at both sizes: WCAG 2.2 AA.
        const found = await auditEveryWay(page);
        expect(Object.entries(found).map(([where, v]) => `${where}\n${describeViolations(v)}`).join('\n')).toBe('');
      }
      await page.context().close();
    }
  });

  it('opens by itself over no control at either size', async () => {
    for (const [width, height] of SIZES) {
      const serve = await e2e.serve({ firstOpen: true });
      const page = await openApp(e2e.browser, serve.url, { width, height });
      const choices = offer(page);
      await choices.waitFor({ timeout: 60_000 });
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
    await choices.waitFor({ timeout: 60_000 });
    await poll(() => focused(page)).toBe('ask');
    await poll(() => folderModes(serve.dataDir, serve.folder).offerShown).toBe(true);
    // Tab goes through the choices in the order they are drawn, then its two actions.
    const enabled = await choices.locator('button.mode-choice:not(:disabled)').evaluateAll((els) => els.map((el) => el.textContent?.trim() ?? ''));
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
    await offerButton(page).waitFor({ timeout: 60_000 });
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

  it('opened by itself, it does not follow the person from thread to thread, nor open again on a reload', async () => {
    const serve = await e2e.serve({ firstOpen: true, script: [{ text: 'first answer' }] });
    const page = await openApp(e2e.browser, serve.url, { width: 1400, height: 900 });
    await offer(page).waitFor({ timeout: 60_000 });
    await sendMessage(page, 'hello');
    await conversation(page).getByText('first answer').waitFor({ timeout: 60_000 });
    // Another thread: the choices are gone from above it; their button stays in the header.
    await page.getByRole('button', { name: 'New thread' }).press('Enter');
    await poll(() => offer(page).count()).toBe(0);
    await poll(() => offerButton(page).count()).toBe(1);
    await page.reload();
    await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
    await offerButton(page).waitFor();
    expect(await offer(page).count()).toBe(0);
    await page.context().close();
  });

  it('`Keep ask, don’t offer again` answers it for the folder, and the keyboard goes to the message box', async () => {
    const serve = await e2e.serve({ firstOpen: true });
    const page = await openApp(e2e.browser, serve.url, { width: 1024, height: 700 });
    await offer(page).waitFor({ timeout: 60_000 });
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
  it('the run’s error says so in plain words and offers Open settings and Retry; Test connection says the same', { timeout: 90_000 }, async () => {
    const port = await closedPort();
    const serve = await e2e.serve({ withModel: false, settings: { model: 'openai-compatible:qwen3', baseUrl: `http://127.0.0.1:${port}/v1` } });
    const page = await openApp(e2e.browser, serve.url, { width: 1400, height: 900 });
    await sendMessage(page, 'Why does test_total fail?');
    const error = conversation(page).locator('.notice-error').last();
    await expect.poll(() => error.count(), { timeout: 60_000 }).toBe(1);
    await poll(() => error.innerText()).toContain(`Can't reach the model server at 127.0.0.1:${port}. Is it running? Check the address in Settings.`);
    // The technical text is there, secondary: behind `Technical detail`, not in the words shown.
    expect(await error.getByText(/ECONNREFUSED/).isVisible()).toBe(false);
    const detail = error.locator('summary', { hasText: 'Technical detail' });
    await detail.click();
    await poll(() => error.getByText(/ECONNREFUSED/).isVisible()).toBe(true);
    expect(await conversation(page).getByRole('button', { name: 'Retry' }).count()).toBe(1);
    await screenshot(page, 'iv-server-down-1400x900');
    const found = await auditEveryWay(page);
    expect(Object.entries(found).map(([where, v]) => `${where}\n${describeViolations(v)}`).join('\n')).toBe('');
    await page.setViewportSize({ width: 1400, height: 900 });

    // Its way out: Settings, where Test connection answers in the same words. That it answers
    // without retrying is checked on a stopped clock (app/base/model-problems.test.ts).
    await error.getByRole('button', { name: 'Open settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.waitFor();
    const test = dialog.getByRole('button', { name: 'Test connection' });
    await test.scrollIntoViewIfNeeded();
    await test.click();
    const status = dialog.getByRole('status').filter({ hasText: /model server/ });
    await status.waitFor({ timeout: 60_000 });
    expect(await status.innerText()).toBe(`Can't reach the model server at 127.0.0.1:${port}. Is it running? Check the address above.`);
    await screenshot(page, 'iv-server-down-test-connection-1400x900');
    await page.context().close();
  });
});

/**
 * What is wrong with the focus indicator of the element that has the keyboard, or null: it
 * must have a ring of its own (an outline, ≥ 2 px) whose colour stands at 3:1 or more against
 * what is behind it (the element's surroundings; its own background when drawn inside).
 */
function focusRingProblem(): string | null {
  type Rgba = [number, number, number, number];
  const parse = (value: string): Rgba | null => {
    const m = /^rgba?\(([^)]+)\)$/.exec(value.trim());
    if (!m) return null;
    const parts = m[1]!.split(/[\s,/]+/).filter(Boolean).map(Number);
    return [parts[0]!, parts[1]!, parts[2]!, parts[3] ?? 1];
  };
  const over = (top: Rgba, under: Rgba): Rgba => [top[0] * top[3] + under[0] * (1 - top[3]), top[1] * top[3] + under[1] * (1 - top[3]), top[2] * top[3] + under[2] * (1 - top[3]), 1];
  const luminance = ([r, g, b]: Rgba): number => {
    const channel = (c: number): number => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  };
  const contrast = (a: Rgba, b: Rgba): number => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
    return (hi + 0.05) / (lo + 0.05);
  };
  /** The colour that shows through at `from`: its background and its ancestors', composited. */
  const backgroundAt = (from: Element | null): Rgba => {
    const layers: Rgba[] = [];
    for (let el = from; el; el = el.parentElement) {
      const colour = parse(getComputedStyle(el).backgroundColor);
      if (colour && colour[3] > 0) layers.push(colour);
      if (colour && colour[3] >= 1) break;
    }
    return layers.reverse().reduce<Rgba>((under, top) => over(top, under), [255, 255, 255, 1]);
  };
  const el = document.activeElement;
  if (!(el instanceof HTMLElement) || el === document.body) return 'nothing has the keyboard';
  const name = `${el.tagName.toLowerCase()} “${(el.getAttribute('aria-label') ?? el.innerText ?? '').split('\n')[0]!.trim().slice(0, 40)}”`;
  const style = getComputedStyle(el);
  const width = parseFloat(style.outlineWidth);
  if (style.outlineStyle === 'none' || !(width >= 2)) return `${name}: no ring of its own (outline ${style.outlineStyle} ${style.outlineWidth})`;
  const ring = parse(style.outlineColor);
  if (!ring) return `${name}: unreadable ring colour ${style.outlineColor}`;
  const inside = parseFloat(style.outlineOffset) < 0;
  const behind = backgroundAt(inside ? el : el.parentElement);
  const ratio = contrast(over(ring, behind), behind);
  return ratio >= 3 ? null : `${name}: ring ${style.outlineColor} at ${ratio.toFixed(2)}:1 against rgb(${behind.slice(0, 3).map(Math.round).join(', ')})`;
}

/** Tabs from where the keyboard is through every control until it comes back round (or `limit`); the problems found. */
async function tabThrough(page: Page, limit: number): Promise<{ visited: number; problems: string[] }> {
  const problems: string[] = [];
  const seen = new Set<string>();
  let visited = 0;
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    const where = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return 'body';
      el.dataset.tabSeen ??= String(Math.random());
      return el.dataset.tabSeen;
    });
    // Past the last control the keyboard leaves the page (to the browser); the next Tab comes back to the first.
    if (where === 'body') continue;
    if (seen.has(where)) break;
    seen.add(where);
    visited++;
    const problem = await page.evaluate(focusRingProblem);
    if (problem !== null && !problems.includes(problem)) problems.push(problem);
  }
  return { visited, problems };
}

describe('focus indicators', () => {
  it('every control of the main window and of Settings shows a ring of its own, ≥ 2 px at 3:1, in both themes at 1400×900', { timeout: 120_000 }, async () => {
    const serve = await e2e.serve({ script: [{ text: 'Here is an answer with `code` in it.' }] });
    writeFileSync(join(serve.folder, 'pricing.py'), 'def total():\n    return 1\n');
    const page = await openApp(e2e.browser, serve.url, { width: 1400, height: 900 });
    await sendMessage(page, 'Hello there');
    await conversation(page).getByText('Here is an answer').waitFor({ timeout: 60_000 });
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
      await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
      // The main window, from the top.
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      const main = await tabThrough(page, 120);
      expect(main.visited, theme).toBeGreaterThan(15);
      expect(main.problems, `main window, ${theme}`).toEqual([]);
      // The message box and Attach files each show their own.
      await page.getByRole('textbox', { name: 'Message', exact: true }).focus();
      expect(await page.evaluate(focusRingProblem), theme).toBeNull();
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Attach files');
      expect(await page.evaluate(focusRingProblem), theme).toBeNull();
      // Settings (the keyboard stays in it: Tab comes back round).
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      await page.getByRole('dialog', { name: 'Settings' }).waitFor();
      const settings = await tabThrough(page, 150);
      expect(settings.visited, theme).toBeGreaterThan(8);
      expect(settings.problems, `Settings, ${theme}`).toEqual([]);
      await page.keyboard.press('Escape');
      await poll(() => page.getByRole('dialog').count()).toBe(0);
    }
    await page.getByRole('textbox', { name: 'Message', exact: true }).focus();
    await screenshot(page, 'iv-focus-message-box-dark-1400x900');
    await page.keyboard.press('Tab');
    await screenshot(page, 'iv-focus-attach-files-dark-1400x900');
    await page.context().close();
  });
});

describe('the keyboard lands on a control after an action', () => {
  it('after Save settings, after Esc in Settings, and after Trust folder (its prompt goes away), never on the page', { timeout: 90_000 }, async () => {
    const serve = await e2e.serve();
    const skill = join(serve.folder, '.claude', 'skills', 'release-notes');
    mkdirSync(skill, { recursive: true });
    writeFileSync(join(skill, 'SKILL.md'), '---\nname: release-notes\ndescription: Write release notes from the git log\n---\n# Release notes\n');
    const page = await openApp(e2e.browser, serve.url, { width: 1400, height: 900 });
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    const settingsButton = page.getByRole('button', { name: 'Settings', exact: true });

    // Esc closes Settings: the keyboard is back on what opened it.
    await settingsButton.focus();
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await poll(() => dialog.count()).toBe(0);
    await poll(() => focused(page)).toBe('Settings');

    // Save settings: the same.
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Save settings' }).click();
    await poll(() => dialog.count()).toBe(0);
    await poll(() => focused(page)).toBe('Settings');

    // Trust folder: its button goes with the prompt; the keyboard goes to the message box.
    const trust = page.getByRole('button', { name: 'Trust folder' });
    await trust.waitFor({ timeout: 60_000 });
    await trust.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => trust.count(), { timeout: 60_000 }).toBe(0);
    await poll(() => focused(page)).toBe('Message');
    await page.context().close();
  });

  it('after Save settings from the `No model` banner (the banner, its opener, goes away), the keyboard is in the message box', async () => {
    const serve = await e2e.serve({ withModel: false });
    const page = await openApp(e2e.browser, serve.url, { width: 1024, height: 700 });
    const openSettings = page.getByRole('button', { name: 'Open settings' });
    await openSettings.waitFor({ timeout: 60_000 });
    await openSettings.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.waitFor();
    await dialog.getByLabel('Provider', { exact: true }).selectOption('openai-compatible');
    await dialog.getByLabel('Model', { exact: true }).fill('scripted-model');
    await dialog.getByLabel('Base URL', { exact: true }).fill(serve.model.url);
    await dialog.getByRole('button', { name: 'Save settings' }).click();
    await poll(() => dialog.count()).toBe(0);
    await poll(() => openSettings.count()).toBe(0);
    await poll(() => focused(page)).toBe('Message');
    await page.context().close();
  });
});
