// The window's second restore choice (SPEC §6, §8; as Claude Code's rewind): `Restore files
// and conversation to before this message` restores the files, removes that message and
// everything after it from the thread, and puts the message back into the `Message` box;
// the conversation shows a notice of the restore, and `Undo restore` brings both back.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { approval, conversation, openApp, screenshot, sendMessage, useE2ESession } from './harness';

const e2e = useE2ESession();

const messageBox = (page: Page) => page.getByRole('textbox', { name: 'Message' });
const rewindButtons = (page: Page) => conversation(page).getByRole('button', { name: 'Restore files and conversation to before this message' });

describe('restoring files and conversation in the window', () => {
  it('removes the message and what followed, puts the message back in the box, restores the file, and Undo restore brings them back', async () => {
    const serve = await e2e.serve({
      script: [
        { toolCalls: [{ name: 'write_file', args: { file_path: '/notes.txt', content: 'first line\n' } }] },
        { text: 'Wrote the notes.' },
        { text: 'Here is more about the notes.' },
      ],
    });
    const folder = serve.folder;
    const page = await openApp(e2e.browser, serve.url);
    await sendMessage(page, 'Write notes');
    await approval(page).first().waitFor({ timeout: 60_000 });
    await approval(page).first().getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).getByText('Wrote the notes.').waitFor({ timeout: 60_000 });
    await sendMessage(page, 'Tell me more');
    await conversation(page).getByText('Here is more about the notes.').waitFor({ timeout: 60_000 });
    expect(readFileSync(join(folder, 'notes.txt'), 'utf8')).toBe('first line\n');
    await expect.poll(() => rewindButtons(page).count(), { timeout: 60_000 }).toBe(2);
    // The files-only choice stays, by its own name.
    expect(await conversation(page).getByRole('button', { name: 'Restore files to before this message' }).count()).toBe(2);
    await screenshot(page, 'restore-choices');

    await rewindButtons(page).first().click();
    await expect.poll(() => existsSync(join(folder, 'notes.txt')), { timeout: 60_000 }).toBe(false);
    await expect.poll(() => messageBox(page).inputValue(), { timeout: 60_000 }).toBe('Write notes');
    const log = conversation(page);
    await expect.poll(() => log.innerText(), { timeout: 60_000 }).not.toContain('Wrote the notes.');
    const text = await log.innerText();
    expect(text).not.toContain('Here is more about the notes.');
    expect(text).not.toContain('Tell me more');
    expect(await rewindButtons(page).count()).toBe(0);
    // A notice tells what was restored (the agent gets the same news on its next request).
    const notice = log.getByRole('note');
    await notice.first().waitFor({ timeout: 60_000 });
    expect(await notice.first().innerText()).toContain('/notes.txt');
    await screenshot(page, 'restore-files-and-conversation');

    await page.getByRole('button', { name: 'Undo restore' }).click();
    await expect.poll(() => existsSync(join(folder, 'notes.txt')), { timeout: 60_000 }).toBe(true);
    expect(readFileSync(join(folder, 'notes.txt'), 'utf8')).toBe('first line\n');
    await expect.poll(() => log.innerText(), { timeout: 60_000 }).toContain('Here is more about the notes.');
    expect(await log.innerText()).toContain('Wrote the notes.');
    await expect.poll(() => page.getByRole('button', { name: 'Undo restore' }).count(), { timeout: 60_000 }).toBe(0);
    await page.context().close();
  });
});
