// Issue 16, point 5, as a person meets it in headless Chromium: `deepdesk serve` (and
// `npm start`) without a folder open on `Open folder` — recent folders first, a path field —
// never on the Deepdesk checkout they were started in; a path that is not a folder says why
// and keeps what was typed; opening a folder creates nothing in it; the folder is remembered
// for the next start; and the header's `Open folder` switches every window to another folder.
// Screenshots of the screen at 1400×900, 1024×700 and 800×600.

import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { openApp, repo, screenshot, serveUrl, useE2ESession } from './harness';

const session = useE2ESession();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A page on `url` at this size, without waiting for the workspace (there may be no folder yet). */
async function open(url: string, width: number, height: number): Promise<Page> {
  const page = await openApp(session.browser, url, { width, height, waitForWorkspace: false });
  cleanups.push(() => page.context().close());
  return page;
}

const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000 });
const openFolderScreen = (page: Page) => page.getByRole('main', { name: 'Open a folder' });
const folderPath = (page: Page) => page.getByRole('textbox', { name: 'Folder path' });
const message = (page: Page) => page.getByRole('textbox', { name: 'Message' });

describe('Open folder', () => {
  it('serve without --folder opens on Open folder, says why a path cannot be opened, opens one untouched, and lists it first next time', async () => {
    const serve = await session.serve({ noFolder: true, script: [{ text: 'Hello from the opened folder.' }] });
    writeFileSync(join(serve.folder, 'app.py'), 'def add(a, b):\n    return a - b\n');
    writeFileSync(join(serve.folder, 'test_app.py'), 'from app import add\n\ndef test_add():\n    assert add(1, 2) == 3\n');
    const before = readdirSync(serve.folder).sort();

    const page = await open(serve.url, 1024, 700);
    await openFolderScreen(page).waitFor();
    // Not the Deepdesk checkout serve was started in (its cwd): no workspace at all yet.
    expect(await message(page).count()).toBe(0);
    expect(await page.getByRole('region', { name: 'Files' }).count()).toBe(0);
    expect(await page.title()).toBe('Open a folder — Deepdesk');
    // Ready to type a path at once.
    await poll(() => folderPath(page).evaluate((el) => el === document.activeElement)).toBe(true);
    for (const [width, height] of [
      [1400, 900],
      [1024, 700],
      [800, 600],
    ] as const) {
      await page.setViewportSize({ width, height });
      const field = await folderPath(page).boundingBox();
      const openButton = await page.getByRole('button', { name: 'Open', exact: true }).boundingBox();
      expect(field && openButton && openButton.x + openButton.width <= width && openButton.y + openButton.height <= height, `${width}×${height}`).toBe(true);
      await screenshot(page, `open-folder-${width}x${height}`);
    }
    await page.setViewportSize({ width: 1024, height: 700 });

    // A path that is not there, then a file: a clear reason, and what was typed stays to be corrected.
    const missing = join(serve.folder, 'nope');
    await folderPath(page).fill(missing);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await poll(() => page.getByRole('alert').innerText()).toBe(`There is no folder at ${missing}.`);
    expect(await folderPath(page).inputValue()).toBe(missing);
    await folderPath(page).fill(join(serve.folder, 'app.py'));
    await folderPath(page).press('Enter');
    await poll(() => page.getByRole('alert').innerText()).toBe(`${join(serve.folder, 'app.py')} is a file, not a folder. Choose the folder that holds it.`);
    expect(await folderPath(page).inputValue()).toBe(join(serve.folder, 'app.py'));
    await screenshot(page, 'open-folder-not-a-folder-1024x700');

    // The folder itself: the workspace of that folder, working, and nothing created in it.
    await folderPath(page).fill(serve.folder);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await message(page).waitFor({ timeout: 60_000 });
    await page.getByRole('region', { name: 'Files' }).getByRole('treeitem', { name: /test_app\.py/ }).waitFor();
    expect(await page.locator('.header-folder-name').innerText()).toBe(basename(serve.folder));
    await message(page).fill('hello');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByRole('log', { name: 'Conversation' }).getByText('Hello from the opened folder.').waitFor({ timeout: 60_000 });
    expect(readdirSync(serve.folder).sort()).toEqual(before);

    // The next start without a folder offers it first, above the path field; one click reopens it with its thread.
    await serve.stop({ keepData: true });
    const again = await session.serve({ noFolder: true, folder: serve.folder, dataDir: serve.dataDir });
    const next = await open(again.url, 800, 600);
    const recent = next.getByRole('list', { name: 'Recent folders' });
    await recent.waitFor();
    const first = recent.getByRole('button').first();
    expect(await first.innerText()).toContain(basename(serve.folder));
    expect(await first.innerText()).toContain(serve.folder);
    const [recentBox, fieldBox] = [await recent.boundingBox(), await folderPath(next).boundingBox()];
    expect(recentBox!.y).toBeLessThan(fieldBox!.y);
    await screenshot(next, 'open-folder-recent-800x600');
    await first.click();
    await message(next).waitFor({ timeout: 60_000 });
    await next.getByRole('button', { name: 'Show Threads' }).click();
    await poll(() => next.getByRole('region', { name: 'Threads' }).innerText()).toContain('hello');
    expect(readdirSync(serve.folder).sort()).toEqual(before);
  });

  it('the header’s Open folder switches every window to another folder', async () => {
    const serve = await session.serve();
    writeFileSync(join(serve.folder, 'first.txt'), 'first\n');
    const other = tempDir('deepdesk-e2e-other-');
    writeFileSync(join(other, 'second.txt'), 'second\n');

    const page = await open(serve.url, 1400, 900);
    await message(page).waitFor();
    const watcher = await open(serve.url, 1024, 700);
    await message(watcher).waitFor();
    await watcher.getByRole('region', { name: 'Files' }).getByRole('treeitem', { name: /first\.txt/ }).waitFor();

    await page.getByRole('button', { name: 'Open folder', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Open folder' });
    await dialog.waitFor();
    // The folder open now is listed, and said to be.
    expect(await dialog.getByRole('list', { name: 'Recent folders' }).innerText()).toMatch(new RegExp(`${basename(serve.folder)}[\\s\\S]*open now`));
    await screenshot(page, 'open-folder-dialog-1400x900');
    await dialog.getByRole('textbox', { name: 'Folder path' }).fill(other);
    await dialog.getByRole('button', { name: 'Open', exact: true }).click();
    await poll(() => page.getByRole('dialog', { name: 'Open folder' }).count()).toBe(0);

    for (const window of [page, watcher]) {
      const files = window.getByRole('region', { name: 'Files' });
      await files.getByRole('treeitem', { name: /second\.txt/ }).waitFor({ timeout: 60_000 });
      expect(await files.getByRole('treeitem', { name: /first\.txt/ }).count()).toBe(0);
      await poll(() => window.title()).toContain(basename(other));
    }
    expect(readdirSync(other)).toEqual(['second.txt']);
    // Esc closes the dialog and leaves the folder as it is.
    await page.getByRole('button', { name: 'Open folder', exact: true }).click();
    await page.getByRole('dialog', { name: 'Open folder' }).waitFor();
    await page.keyboard.press('Escape');
    await poll(() => page.getByRole('dialog', { name: 'Open folder' }).count()).toBe(0);
    expect(await page.locator('.header-folder-name').innerText()).toBe(basename(other));
  });

  it('npm start without a folder serves the Open folder screen, not the Deepdesk checkout it runs in', async () => {
    const dataDir = tempDir('deepdesk-e2e-start-data-');
    const home = tempDir('deepdesk-e2e-start-home-');
    // No display: npm start serves the window instead of Electron (as it says); npm runs it in the checkout.
    const env = { ...process.env, DISPLAY: '', WAYLAND_DISPLAY: '', BROWSER: 'none', INIT_CWD: repo, HOME: home, OPENAI_API_KEY: '' };
    const child = spawn(process.execPath, [join(repo, 'scripts', 'start-electron.mjs'), '--data-dir', dataDir], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    cleanups.push(async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const url = await serveUrl(child, () => stderr);
    const page = await open(url, 1400, 900);
    await openFolderScreen(page).waitFor();
    expect(await message(page).count()).toBe(0);
    expect(await page.title()).toBe('Open a folder — Deepdesk');
    expect(await page.getByRole('region', { name: 'Files' }).count()).toBe(0);
  });
});
