// Per-hunk review in the window (SPEC §24), in headless Chromium against `deepdesk serve` and
// the scripted model: a thread's change of a file the person had shows as hunks, each saying
// who wrote it (this thread and its model); Keep marks one Reviewed, and the mark stays after
// a reload; Revert, from the keyboard, puts one hunk back byte for byte while another thread
// of the folder is working.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { lastUserText, type ScriptStep } from '../src-main/core/models/testing/scripted-server';
import { approval, conversation, openApp, sendMessage, useE2ESession } from './harness';

const e2e = useE2ESession();
const held: Array<() => void> = [];
const folders: string[] = [];
afterEach(() => {
  for (const release of held.splice(0)) release();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000 });
const changes = (page: Page) => page.getByRole('region', { name: 'Changes' });
const hunk = (page: Page, n: number, of: number) => changes(page).getByRole('listitem', { name: '/story.txt' }).getByRole('group', { name: `Change ${n} of ${of}` });

describe('per-hunk review in Changes', () => {
  it('shows who wrote each hunk, keeps a Reviewed mark, and reverts one hunk while another thread works', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'deepdesk-e2e-hunks-'));
    folders.push(folder);
    // The person's file, with CRLF line ends the revert keeps.
    writeFileSync(join(folder, 'story.txt'), 'one\r\ntwo\r\nthree\r\nfour\r\nfive\r\nsix\r\nseven\r\n');
    let letBetaGo = (): void => undefined;
    const betaHeld = new Promise<void>((resolve) => (letBetaGo = resolve));
    held.push(letBetaGo);
    // The first thread reads the file, then writes it; the second's answer waits for the test.
    const step: ScriptStep = async (request) => {
      if (lastUserText(request).includes('Beta task')) {
        await betaHeld;
        return { text: 'Beta finished.' };
      }
      const results = request.messages.filter((m) => m.role === 'tool').length;
      if (results === 0) return { toolCalls: [{ name: 'read_file', args: { file_path: '/story.txt' } }] };
      if (results === 1) return { toolCalls: [{ name: 'write_file', args: { file_path: '/story.txt', content: 'one\r\nTWO\r\nthree\r\nfour\r\nfive\r\nSIX\r\nseven\r\n' } }] };
      return { text: 'Edited the story.' };
    };
    const serve = await e2e.serve({ folder, script: [step, step, step, step] });
    const page = await openApp(e2e.browser, serve.url);
    const log = conversation(page);

    await sendMessage(page, 'Edit the story');
    await approval(page).first().waitFor({ timeout: 60_000 });
    await approval(page).first().getByRole('button', { name: 'Approve', exact: true }).click();
    await log.getByText('Edited the story.').waitFor({ timeout: 60_000 });

    // Two hunks, each written by this thread with the scripted model.
    await hunk(page, 2, 2).waitFor({ timeout: 60_000 });
    await poll(() => hunk(page, 1, 2).innerText()).toMatch(/Written by this thread · scripted-model/);
    expect(await hunk(page, 2, 2).innerText()).toContain('SIX');

    // Another thread starts working (its model's answer is held).
    const threads = page.getByRole('region', { name: 'Threads' });
    await threads.getByRole('button', { name: 'New thread' }).press('Enter');
    await log.getByText(/Ask the agent to read/).waitFor({ timeout: 60_000 });
    await sendMessage(page, 'Beta task');
    await page.getByRole('button', { name: 'Stop', exact: true }).waitFor({ timeout: 60_000 });

    // Back to the first: Keep marks a hunk Reviewed; Revert of the other, from the keyboard.
    await threads.locator('.thread-item').filter({ hasText: 'Edit the story' }).locator('.thread-select').click();
    await hunk(page, 1, 2).getByRole('button', { name: 'Keep' }).click();
    await poll(() => hunk(page, 1, 2).getByRole('checkbox', { name: 'Reviewed' }).isChecked()).toBe(true);
    await hunk(page, 2, 2).getByRole('button', { name: 'Revert' }).focus();
    await page.keyboard.press('Enter');
    await poll(() => readFileSync(join(folder, 'story.txt'), 'latin1')).toBe('one\r\nTWO\r\nthree\r\nfour\r\nfive\r\nsix\r\nseven\r\n');

    // One hunk is left, still Reviewed, and so after a reload.
    await hunk(page, 1, 1).waitFor({ timeout: 60_000 });
    expect(await hunk(page, 1, 1).getByRole('checkbox', { name: 'Reviewed' }).isChecked()).toBe(true);
    await page.reload();
    await threads.locator('.thread-item').filter({ hasText: 'Edit the story' }).locator('.thread-select').click();
    await hunk(page, 1, 1).waitFor({ timeout: 60_000 });
    expect(await hunk(page, 1, 1).getByRole('checkbox', { name: 'Reviewed' }).isChecked()).toBe(true);

    letBetaGo();
    await threads.locator('.thread-item').filter({ hasText: 'Beta task' }).locator('.thread-select').click();
    await log.getByText('Beta finished.').waitFor({ timeout: 60_000 });
    await page.context().close();
  });
});
