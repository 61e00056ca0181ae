// Checkpoints in the window (SPEC §6, §8): the Changes region shows what the agent changed
// with a diff; `Restore files to before this message` reverts it, `Undo restore` brings it
// back, `Revert` undoes one file, and a file the person changed afterwards is asked about.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { approval, conversation, launchBrowser, openApp, repo, screenshot, sendMessage, startServe, type ServeHandle } from './harness';

let browser: Browser;
let serve: ServeHandle | undefined;

beforeAll(async () => {
  if (!existsSync(join(repo, 'out/renderer/index.html'))) throw new Error('run `npm run build` before the end-to-end tests (npm test does)');
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await serve?.stop();
  serve = undefined;
});


const changes = (page: Page) => page.getByRole('region', { name: 'Changes' });

async function approveNext(page: Page): Promise<void> {
  await approval(page).first().waitFor({ timeout: 60_000 });
  await approval(page).first().getByRole('button', { name: 'Approve', exact: true }).click();
}

describe('checkpoints in the window', () => {
  it('shows the agent’s changes with a diff, restores to before a message, undoes the restore, and reverts one file', async () => {
    serve = await startServe({
      script: [
        { toolCalls: [{ name: 'write_file', args: { file_path: '/notes.txt', content: 'first line\nsecond line\n' } }] },
        { text: 'Wrote the notes.' },
        { toolCalls: [{ name: 'write_file', args: { file_path: '/a.txt', content: 'alpha\n' } }] },
        { toolCalls: [{ name: 'write_file', args: { file_path: '/b.txt', content: 'beta\n' } }] },
        { text: 'Wrote two more.' },
      ],
    });
    const folder = serve.folder;
    const page = await openApp(browser, serve.url);
    await sendMessage(page, 'Write notes');
    await approveNext(page);
    await conversation(page).getByText('Wrote the notes.').waitFor({ timeout: 60_000 });
    expect(readFileSync(join(folder, 'notes.txt'), 'utf8')).toBe('first line\nsecond line\n');

    const file = changes(page).getByRole('listitem', { name: '/notes.txt' });
    await file.waitFor({ timeout: 60_000 });
    await expect.poll(() => file.innerText(), { timeout: 60_000 }).toContain('+2');
    await expect.poll(() => file.getByRole('figure', { name: 'Changes to /notes.txt' }).innerText(), { timeout: 60_000 }).toContain('second line');
    await screenshot(page, 'changes-region');

    await conversation(page).getByRole('button', { name: 'Restore files to before this message' }).first().click();
    await expect.poll(() => existsSync(join(folder, 'notes.txt')), { timeout: 60_000 }).toBe(false);
    await expect.poll(() => changes(page).getByRole('listitem').count(), { timeout: 60_000 }).toBe(0);
    await page.getByRole('button', { name: 'Undo restore' }).click();
    await expect.poll(() => existsSync(join(folder, 'notes.txt')), { timeout: 60_000 }).toBe(true);
    expect(readFileSync(join(folder, 'notes.txt'), 'utf8')).toBe('first line\nsecond line\n');
    await file.waitFor({ timeout: 60_000 });
    await expect.poll(() => page.getByRole('button', { name: 'Undo restore' }).count(), { timeout: 60_000 }).toBe(0);

    await sendMessage(page, 'Write two more');
    await approveNext(page);
    await approveNext(page);
    await conversation(page).getByText('Wrote two more.').waitFor({ timeout: 60_000 });
    await changes(page).getByRole('listitem', { name: '/b.txt' }).waitFor({ timeout: 60_000 });
    await changes(page).getByRole('listitem', { name: '/a.txt' }).getByRole('button', { name: 'Revert' }).click();
    await expect.poll(() => existsSync(join(folder, 'a.txt')), { timeout: 60_000 }).toBe(false);
    expect(readFileSync(join(folder, 'b.txt'), 'utf8')).toBe('beta\n');
    expect(readFileSync(join(folder, 'notes.txt'), 'utf8')).toBe('first line\nsecond line\n');
    await expect.poll(() => changes(page).getByRole('listitem', { name: '/a.txt' }).count(), { timeout: 60_000 }).toBe(0);

    // The person edits the agent's file: restoring asks, and "Keep mine" keeps it.
    writeFileSync(join(folder, 'notes.txt'), 'my own words\n');
    await conversation(page).getByRole('button', { name: 'Restore files to before this message' }).first().click();
    const dialog = page.getByRole('alertdialog');
    await dialog.waitFor({ timeout: 60_000 });
    expect(await dialog.innerText()).toContain('/notes.txt');
    await screenshot(page, 'restore-conflict');
    await dialog.getByRole('button', { name: 'Keep mine' }).click();
    await expect.poll(() => existsSync(join(folder, 'b.txt')), { timeout: 60_000 }).toBe(false);
    expect(readFileSync(join(folder, 'notes.txt'), 'utf8')).toBe('my own words\n');
    await page.context().close();
  });
});
