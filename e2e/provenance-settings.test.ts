// Settings › Provenance (SPEC §24) in headless Chromium against `deepdesk serve`: the notes,
// their push and the Assisted-by trailer, and the open folder's own entry over them; Save
// writes them to settings.json, and the open folder's entry is written under its path.

import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { openApp, useE2ESession } from './harness';

const session = useE2ESession();
const pages: Page[] = [];
afterEach(async () => {
  for (const page of pages.splice(0)) await page.context().close();
});

const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000 });

describe('Settings › Provenance', () => {
  it('saves the notes, push and trailer choices and the open folder’s own entry to settings.json', { timeout: 90_000 }, async () => {
    const serve = await session.serve({ script: [] });
    const page = await openApp(session.browser, serve.url, { width: 1024, height: 700 });
    pages.push(page);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    const section = dialog.getByRole('group', { name: 'Provenance' });
    // The defaults: notes written, not pushed, no trailer.
    await poll(() => section.getByRole('checkbox', { name: 'Write provenance notes' }).isChecked()).toBe(true);
    expect(await section.getByRole('checkbox', { name: 'Push notes' }).isChecked()).toBe(false);
    expect(await section.getByRole('checkbox', { name: 'Add an Assisted-by trailer' }).isChecked()).toBe(false);

    await section.getByRole('checkbox', { name: 'Write provenance notes' }).uncheck();
    await section.getByRole('checkbox', { name: 'Add an Assisted-by trailer' }).check();
    const own = section.getByRole('group', { name: 'This folder' });
    await poll(() => own.getByRole('combobox', { name: 'Notes in this folder' }).inputValue()).toBe('global');
    await own.getByRole('combobox', { name: 'Notes in this folder' }).selectOption({ label: 'On' });
    await dialog.getByRole('button', { name: 'Save settings' }).click();
    await poll(() => dialog.count()).toBe(0);

    const saved = JSON.parse(readFileSync(join(serve.dataDir, 'settings.json'), 'utf8')) as { provenance?: { folders?: Record<string, unknown> } };
    expect(saved.provenance).toMatchObject({ enabled: false, trailer: true });
    const entries = Object.entries(saved.provenance?.folders ?? {});
    expect(entries.map(([dir, entry]) => [realpathSync(dir), entry])).toEqual([[realpathSync(serve.folder), { enabled: true }]]);

    // Opened again, the folder's entry shows; back to `As above`, it goes.
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const again = dialog.getByRole('group', { name: 'Provenance' }).getByRole('group', { name: 'This folder' });
    await poll(() => again.getByRole('combobox', { name: 'Notes in this folder' }).inputValue()).toBe('on');
    await again.getByRole('combobox', { name: 'Notes in this folder' }).selectOption({ label: 'As above' });
    await dialog.getByRole('button', { name: 'Save settings' }).click();
    await poll(() => dialog.count()).toBe(0);
    expect(JSON.parse(readFileSync(join(serve.dataDir, 'settings.json'), 'utf8'))).toMatchObject({ provenance: { enabled: false, trailer: true, folders: {} } });
  });
});
