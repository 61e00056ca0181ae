// Issue 16, points 1 and 8, as a person meets them in headless Chromium against
// `deepdesk serve`: an API key typed into Settings is kept by `Save settings`; a send without
// a key, or a key the provider refuses (401), says so in the window's words and offers
// `Open settings`; Settings shows no listing error before the person asked (and says what to
// do without a key); `Refresh models` gives a real picker where any id can still be typed; a
// slow model shows the seconds it has been working and "Esc to stop", and Esc stops it from
// the conversation as from the message box. Screenshots at 1400×900, 1024×700 and 800×600.
//
// The Anthropic provider talks to a small local stand-in (base URL in the settings) that
// lists three models for one key and refuses any other with 401, as Anthropic does.

import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { openApp, screenshot, useE2ESession } from './harness';

const session = useE2ESession();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const SIZES = [
  [1400, 900],
  [1024, 700],
  [800, 600],
] as const;
const COMMAND_LINE = /--api-key|ANTHROPIC_API_KEY|pass --|set [A-Z_]+_KEY/;
const GOOD_KEY = 'sk-ant-good-0123456789';
/** No key of this machine reaches the provider. */
const NO_KEYS = { ANTHROPIC_API_KEY: '', ANTHROPIC_AUTH_TOKEN: '' };

interface FakeAnthropic {
  url: string;
  requests: Array<{ method: string; path: string; key: string | undefined }>;
}

/** Anthropic's /v1/models and /v1/messages as far as a key goes: the good key lists three models, any other gets 401. */
async function fakeAnthropic(): Promise<FakeAnthropic> {
  const requests: FakeAnthropic['requests'] = [];
  const server: Server = createServer((req, res) => {
    const key = req.headers['x-api-key'];
    requests.push({ method: req.method ?? '', path: req.url ?? '', key: typeof key === 'string' ? key : undefined });
    req.resume();
    res.setHeader('content-type', 'application/json');
    if (key !== GOOD_KEY) {
      res.writeHead(401);
      res.end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }));
      return;
    }
    if (req.method === 'GET' && (req.url ?? '').startsWith('/v1/models')) {
      res.end(JSON.stringify({ data: ['claude-gamma', 'claude-alpha', 'claude-beta'].map((id) => ({ id, type: 'model' })), has_more: false }));
      return;
    }
    res.writeHead(500);
    res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'not part of this stand-in' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests };
}

async function open(url: string, width: number, height: number): Promise<Page> {
  const page = await openApp(session.browser, url, { width, height });
  cleanups.push(() => page.context().close());
  return page;
}

const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000 });
const log = (page: Page): Locator => page.getByRole('log', { name: 'Conversation' });
const errors = (page: Page): Locator => log(page).locator('.notice-error');
const settingsDialog = (page: Page): Locator => page.getByRole('dialog', { name: 'Settings' });
const modelStatus = (dialog: Locator): Locator => dialog.locator('#settings-model-status');

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

async function screenshots(page: Page, name: string): Promise<void> {
  const before = page.viewportSize();
  for (const [width, height] of SIZES) {
    await page.setViewportSize({ width, height });
    await screenshot(page, `${name}-${width}x${height}`);
  }
  if (before) await page.setViewportSize(before);
}

const storedKeys = (dataDir: string): Record<string, string> => JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')) as Record<string, string>;
const storedSettings = (dataDir: string): Record<string, unknown> => JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as Record<string, unknown>;

describe('an API key, from the first message to a working model list', () => {
  it('a missing or refused key offers Open settings; Save settings keeps the typed key; Refresh models gives a picker', { timeout: 120_000 }, async () => {
    const anthropic = await fakeAnthropic();
    const serve = await session.serve({ withModel: false, settings: { model: 'anthropic:claude-alpha', baseUrl: anthropic.url }, env: NO_KEYS });
    const page = await open(serve.url, 1024, 700);

    // No key: said in the window's words, with the way to fix it.
    await send(page, 'Why does test_add fail?');
    // Found by what it says: another notice may come after it.
    const noKey = errors(page).filter({ hasText: 'No API key for Anthropic: add one in Settings.' }).last();
    await noKey.waitFor({ timeout: 60_000 });
    expect(await log(page).innerText()).not.toMatch(COMMAND_LINE);
    await screenshots(page, 'no-key-error');
    await noKey.getByRole('button', { name: 'Open settings' }).click();
    let dialog = settingsDialog(page);
    await dialog.waitFor();

    // Nothing was asked of the provider, and no listing error: what to do instead.
    await poll(() => modelStatus(dialog).innerText()).toBe('Add an API key for Anthropic to list its models.');
    expect(await dialog.innerText()).not.toContain('Could not list models');
    expect(anthropic.requests).toEqual([]);

    // A key typed in (a wrong one, as happens) is kept by Save settings, not only by Save key.
    await dialog.getByLabel('API key for Anthropic').fill('sk-ant-typo');
    await screenshot(page, 'settings-typed-key-1024x700');
    await dialog.getByRole('button', { name: 'Save settings' }).click();
    await poll(() => settingsDialog(page).count()).toBe(0);
    expect(storedKeys(serve.dataDir)).toEqual({ 'api-key:anthropic': 'sk-ant-typo' });

    // The provider refuses it: the run's error offers Settings again.
    await send(page, 'Why does test_add fail?');
    const refused = errors(page).last();
    await poll(() => refused.innerText()).toMatch(/refused the API key \(401\).*Check the API key in Settings\./);
    expect(await refused.locator('.notice-detail code').textContent()).toMatch(/HTTP 401: invalid x-api-key/);
    expect(anthropic.requests.some((r) => r.method === 'POST' && r.path.startsWith('/v1/messages') && r.key === 'sk-ant-typo')).toBe(true);
    await screenshots(page, 'refused-key-error');
    await refused.getByRole('button', { name: 'Open settings' }).click();
    dialog = settingsDialog(page);
    await dialog.waitFor();

    // With a key stored the models are listed by themselves, quietly: its 401 is not shown unasked...
    await poll(() => anthropic.requests.filter((r) => r.path.startsWith('/v1/models')).length).toBe(1);
    await poll(() => modelStatus(dialog).innerText()).toBe('');
    // ...and is, once asked.
    await dialog.getByRole('button', { name: 'Refresh models' }).click();
    await poll(() => modelStatus(dialog).innerText()).toMatch(/^Could not list models: .*401.*check the API key/);

    // The right key, typed in: Refresh lists with it, and the list is a picker.
    await dialog.getByLabel('API key for Anthropic').fill(GOOD_KEY);
    await dialog.getByRole('button', { name: 'Refresh models' }).click();
    await poll(() => modelStatus(dialog).innerText()).toBe('3 models offered by Anthropic: pick one or type another id.');
    const picker = dialog.getByRole('combobox', { name: 'Model' });
    const list = dialog.getByRole('listbox', { name: 'Models' });
    await poll(() => list.isVisible()).toBe(true);
    expect(await list.getByRole('option').allInnerTexts()).toEqual(['claude-alpha', 'claude-beta', 'claude-gamma']);
    await screenshots(page, 'settings-model-picker');
    // Esc closes the list, not the dialog.
    await picker.press('Escape');
    await poll(() => list.isVisible()).toBe(false);
    expect(await settingsDialog(page).count()).toBe(1);
    // Any other id can still be typed; the list narrows to what matches.
    await picker.fill('claude-next-preview');
    expect(await picker.inputValue()).toBe('claude-next-preview');
    await poll(() => list.innerText()).toContain('No listed model matches');
    await picker.fill('gam');
    expect(await list.getByRole('option').allInnerTexts()).toEqual(['claude-gamma']);
    // Picked with the keyboard, or with a click.
    await picker.press('ArrowDown');
    await picker.press('Enter');
    expect(await picker.inputValue()).toBe('claude-gamma');
    await dialog.getByRole('button', { name: 'Show models' }).click();
    await list.getByRole('option', { name: 'claude-beta' }).click();
    expect(await picker.inputValue()).toBe('claude-beta');
    await dialog.getByRole('button', { name: 'Save settings' }).click();
    await poll(() => settingsDialog(page).count()).toBe(0);
    expect(storedKeys(serve.dataDir)).toEqual({ 'api-key:anthropic': GOOD_KEY });
    expect(storedSettings(serve.dataDir)).toMatchObject({ model: 'anthropic:claude-beta' });
    await poll(() => page.getByRole('button', { name: 'Model anthropic:claude-beta' }).count()).toBe(1);
  });

  it('Anthropic without a key says what to do and asks nothing of the provider until Refresh models', async () => {
    const anthropic = await fakeAnthropic();
    const serve = await session.serve({ withModel: false, settings: { model: 'anthropic:claude-alpha', baseUrl: anthropic.url }, env: NO_KEYS });
    const page = await open(serve.url, 800, 600);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const dialog = settingsDialog(page);
    await dialog.waitFor();
    // Longer than the quiet listing's delay: still nothing asked, nothing failed.
    await page.waitForTimeout(1_000);
    expect(await modelStatus(dialog).innerText()).toBe('Add an API key for Anthropic to list its models.');
    expect(anthropic.requests).toEqual([]);
    await screenshots(page, 'settings-no-key');
    // Asked without a key: the same advice, not an error.
    await dialog.getByRole('button', { name: 'Refresh models' }).click();
    await poll(() => modelStatus(dialog).innerText()).toBe('Add an API key for Anthropic to list its models.');
    expect(await dialog.innerText()).not.toContain('Could not list models');
    // Test connection without a key: the window's words.
    await dialog.getByRole('button', { name: 'Test connection' }).click();
    await poll(() => dialog.getByRole('status').filter({ hasText: 'No API key' }).innerText()).toBe('No API key for Anthropic: enter one above.');
  });
});

describe('a slow model', () => {
  it('shows the seconds it has been working and Esc to stop; Esc stops it from the conversation and from the message box', { timeout: 90_000 }, async () => {
    const serve = await session.serve({ script: [{ hang: true }, { hang: true }] });
    const page = await open(serve.url, 1024, 700);
    await send(page, 'take your time');
    const working = log(page).locator('.working');
    await working.waitFor({ timeout: 60_000 });
    await poll(() => working.innerText()).toMatch(/^Working… [01] s\s+· Esc to stop$/);
    await expect.poll(() => working.innerText(), { timeout: 60_000 }).toMatch(/^Working… [2-9] s\s+· Esc to stop$/);
    await screenshots(page, 'working-elapsed');

    // Focus in the conversation (a click on it), then Esc: the run stops.
    await log(page).click({ position: { x: 40, y: 40 } });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('log');
    await page.keyboard.press('Escape');
    await poll(() => page.getByRole('button', { name: 'Stop' }).count()).toBe(0);
    await poll(() => working.count()).toBe(0);

    // From the message box, as before.
    await send(page, 'again');
    await working.waitFor({ timeout: 60_000 });
    await poll(() => serve.model.requests.length).toBe(2);
    await page.getByRole('textbox', { name: 'Message' }).focus();
    await page.keyboard.press('Escape');
    await poll(() => page.getByRole('button', { name: 'Stop' }).count()).toBe(0);
    await poll(() => working.count()).toBe(0);
    expect(await log(page).innerText()).not.toMatch(/Working…/);
  });
});
