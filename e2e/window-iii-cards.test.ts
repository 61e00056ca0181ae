// Window III, the conversation as a newcomer works in it (headless Chromium against `deepdesk
// serve` and the scripted model): approval keys work right after Send and never eat a draft;
// cards keep their detail (the real hunk after an edited approval and after a reload, a
// created file said to be created, one line for a stopped command); messages are searched;
// task lists, links only to files that exist, and the large-file notice where reading starts.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ScriptStep } from '../src-main/core/models/testing/scripted-server';
import { conversation, openApp, screenshot, sendMessage, toolCard, useE2ESession } from './harness';

const e2e = useE2ESession();

/** expect.poll with room for a loaded machine. */
const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000 });

const open = (url: string, width = 1400, height = 900): Promise<Page> => openApp(e2e.browser, url, { width, height });

const approvals = (page: Page): Locator => conversation(page).getByRole('group', { name: 'Approve tool call' });
const card = (page: Page, name: string): Locator => toolCard(page, name);
const messageBox = (page: Page): Locator => page.getByRole('textbox', { name: 'Message', exact: true });

/** What has the keyboard: `Message`, `Approve` (an approval's button), or something else. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    if (el?.getAttribute('aria-label') === 'Message') return 'Message';
    if (el?.closest('[role="group"][aria-label="Approve tool call"]') && (el.textContent ?? '').startsWith('Approve')) return 'Approve';
    return el?.tagName ?? null;
  });

/** A script step that waits until the test opens its gate. */
function gated(step: ScriptStep): { step: ScriptStep; open: () => void } {
  let open = (): void => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  return {
    step: async () => {
      await gate;
      return step;
    },
    open,
  };
}

describe('approval keys', () => {
  it('work right after Send, never eat a draft, and the keyboard moves on after each decision', async () => {
    const later = gated({ toolCalls: [{ name: 'write_file', args: { file_path: '/three.txt', content: '3\n' } }] });
    const serve = await e2e.serve({
      script: [
        { toolCalls: [{ name: 'write_file', args: { file_path: '/one.txt', content: '1\n' } }, { name: 'write_file', args: { file_path: '/two.txt', content: '2\n' } }] },
        { text: 'Both written.' },
        later.step,
        { text: 'Third written.' },
      ],
    });
    const page = await open(serve.url);
    await messageBox(page).click();
    await page.keyboard.type('write two files');
    await page.keyboard.press('Enter');
    await expect.poll(() => approvals(page).count(), { timeout: 60_000 }).toBe(2);
    // The box was empty: the first approval has the keys, so 1 approves (it never types "1").
    await poll(() => focused(page)).toBe('Approve');
    await page.keyboard.press('1');
    await poll(() => approvals(page).count()).toBe(1);
    expect(await messageBox(page).inputValue()).toBe('');
    // The next waiting approval takes the keys, then the message box once none is left.
    await poll(() => focused(page)).toBe('Approve');
    await screenshot(page, 'approval-keys-1400x900');
    await page.keyboard.press('1');
    await poll(() => approvals(page).count()).toBe(0);
    await poll(() => focused(page)).toBe('Message');
    await conversation(page).getByText('Both written.').waitFor({ timeout: 60_000 });
    expect(await messageBox(page).inputValue()).toBe('');

    // A draft is being typed when an approval arrives: the keys stay with the draft.
    await page.keyboard.type('write the third');
    await page.keyboard.press('Enter');
    await poll(() => serve.model.requests.length).toBe(3);
    await page.keyboard.type('and then run the tests');
    later.open();
    await expect.poll(() => approvals(page).count(), { timeout: 60_000 }).toBe(1);
    expect(await focused(page)).toBe('Message');
    await page.keyboard.type('1');
    expect(await messageBox(page).inputValue()).toBe('and then run the tests1');
    expect(await approvals(page).count()).toBe(1);
    // Review leads to it; typing that is no shortcut goes back to the draft.
    await page.getByRole('button', { name: 'Review approval' }).click();
    await poll(() => focused(page)).toBe('Approve');
    await page.keyboard.type('!');
    await poll(() => focused(page)).toBe('Message');
    expect(await messageBox(page).inputValue()).toBe('and then run the tests1!');
    await page.getByRole('button', { name: 'Review approval' }).click();
    await poll(() => focused(page)).toBe('Approve');
    await page.keyboard.press('1');
    await conversation(page).getByText('Third written.').waitFor({ timeout: 60_000 });
    await poll(() => focused(page)).toBe('Message');
    expect(await messageBox(page).inputValue()).toBe('and then run the tests1!');
  });
});

describe('cards keep their detail', () => {
  it('the real hunk after an edited approval and after a reload, a created file, and one line for a stopped command', async () => {
    const serve = await e2e.serve({
      script: [
        { toolCalls: [{ name: 'read_file', args: { file_path: '/calc.py' } }] },
        { toolCalls: [{ name: 'edit_file', args: { file_path: '/calc.py', old_string: 'line 42\n', new_string: 'line 42 proposed\n' } }] },
        { toolCalls: [{ name: 'write_file', args: { file_path: '/test_calc.py', content: 'def test_total():\n    assert True\n' } }] },
        { toolCalls: [{ name: 'execute', args: { command: 'echo started-$((40+2)); sleep 30' } }] },
        { text: 'unused' },
      ],
    });
    writeFileSync(join(serve.folder, 'calc.py'), Array.from({ length: 60 }, (_, i) => `line ${i + 1}\n`).join(''));
    const page = await open(serve.url);
    await sendMessage(page, 'fix line 42 and add a test');

    // The person edits the replacement before approving.
    await approvals(page).waitFor({ timeout: 60_000 });
    await approvals(page).getByRole('button', { name: 'Edit' }).click();
    await approvals(page).getByRole('textbox', { name: 'Replacement text' }).fill('line 42 edited\n');
    await approvals(page).getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => approvals(page).getByText('test_calc.py').count(), { timeout: 60_000 }).toBeGreaterThan(0);
    await approvals(page).getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => approvals(page).getByText('sleep 30').count(), { timeout: 60_000 }).toBeGreaterThan(0);
    await approvals(page).getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => card(page, 'execute').innerText(), { timeout: 60_000 }).toContain('started-42');
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => card(page, 'execute').locator('.tool-status').innerText(), { timeout: 60_000 }).toBe('Stopped');

    const check = async (when: string): Promise<void> => {
      // The edit's diff is the real hunk: its line numbers in the file and three lines around it.
      const edit = card(page, 'edit_file').getByRole('figure', { name: 'Changes to /calc.py' });
      await poll(() => edit.innerText()).toContain('@@ -39,7 +39,7 @@');
      const text = await edit.innerText();
      expect(text, when).not.toContain('@@ -1,1 +1,1 @@');
      expect(text, when).toContain('line 42 edited');
      expect(text, when).not.toContain('line 42 proposed');
      for (const context of ['line 39', 'line 41', 'line 45']) expect(text, when).toContain(context);
      expect(await edit.locator('tr.diff-add td.diff-no').nth(1).innerText(), when).toBe('42');
      // The new file: a diff, said to be created, never "Updated file".
      const write = card(page, 'write_file');
      await poll(() => write.getByRole('figure', { name: 'Changes to /test_calc.py' }).count()).toBe(1);
      expect(await write.innerText(), when).toContain('Created');
      expect(await write.innerText(), when).toContain('(new file)');
      expect(await write.innerText(), when).not.toContain('Updated file');
      // The stopped command says it was cancelled once (its result may come a moment after its status).
      await poll(async () => (await card(page, 'execute').innerText()).match(/cancel/gi)?.length ?? 0).toBe(1);
    };
    await check('live');
    await screenshot(page, 'cards-detail-1400x900');
    await page.reload();
    await messageBox(page).waitFor();
    await check('after a reload');
    await screenshot(page, 'cards-detail-reloaded-1400x900');
    for (const [width, height] of [
      [1024, 700],
      [800, 600],
    ] as const) {
      await page.setViewportSize({ width, height });
      await card(page, 'edit_file').scrollIntoViewIfNeeded();
      await screenshot(page, `cards-detail-${width}x${height}`);
    }
  });
});

describe('papercuts', () => {
  it('thread search finds words in the messages, not only the titles', async () => {
    const serve = await e2e.serve({ script: [{ text: 'The rounding happens in invoice_lines(), per line.' }, { text: 'Release notes drafted.' }] });
    const page = await open(serve.url);
    const threads = page.getByRole('region', { name: 'Threads' });
    await sendMessage(page, 'Why is the total off by a cent?');
    await conversation(page).getByText('per line.').waitFor({ timeout: 60_000 });
    await threads.getByRole('button', { name: 'New thread' }).press('Enter');
    await poll(() => threads.locator('.thread-item').count()).toBe(2);
    await sendMessage(page, 'Draft the release notes');
    await conversation(page).getByText('Release notes drafted.').waitFor({ timeout: 60_000 });

    const search = threads.getByRole('searchbox', { name: 'Search threads' });
    // In no title, in one answer.
    await search.fill('invoice_lines');
    await poll(() => threads.locator('.thread-item').count()).toBe(1);
    expect(await threads.locator('.thread-item').innerText()).toContain('Why is the total off by a cent?');
    expect(await threads.locator('.thread-match').innerText()).toContain('invoice_lines(), per line.');
    await screenshot(page, 'thread-search-messages-1400x900');
    // The person's own words count too; titles still match as before.
    await search.fill('cent');
    await poll(() => threads.locator('.thread-item').count()).toBe(1);
    await search.fill('release');
    await poll(() => threads.locator('.thread-item').count()).toBe(1);
    await search.fill('nothing says this');
    await poll(() => threads.getByText(/No thread matches/).count()).toBe(1);
  });

  it('task lists show checkboxes, only files that exist are links, and a large file says so at the top', async () => {
    const answer = [
      'Plan:',
      '',
      '- [x] read `calc.py`',
      '- [ ] fix `missing.py`',
      '',
      'See [the notes](notes/todo.md) and [the readme](README.md).',
    ].join('\n');
    const serve = await e2e.serve({ script: [{ text: answer }] });
    writeFileSync(join(serve.folder, 'calc.py'), 'x = 1\n');
    writeFileSync(join(serve.folder, 'README.md'), '# Readme\n');
    writeFileSync(join(serve.folder, 'big.txt'), `${'0123456789'.repeat(9)}\n`.repeat(25_000));
    const page = await open(serve.url, 1024, 700);
    await sendMessage(page, 'plan it');
    await conversation(page).getByText('Plan:').waitFor({ timeout: 60_000 });

    const boxes = conversation(page).getByRole('checkbox');
    await poll(() => boxes.count()).toBe(2);
    expect([await boxes.nth(0).isChecked(), await boxes.nth(1).isChecked()]).toEqual([true, false]);
    expect([await boxes.nth(0).isDisabled(), await boxes.nth(1).isDisabled()]).toEqual([true, true]);

    // Files that exist are links; the ones the folder does not have are text.
    const links = conversation(page).locator('.markdown').getByRole('link');
    await poll(async () => (await links.allInnerTexts()).sort()).toEqual(['calc.py', 'the readme']);
    await screenshot(page, 'markdown-tasks-links-1024x700');
    // A file that appears becomes a link.
    writeFileSync(join(serve.folder, 'missing.py'), 'y = 2\n');
    await expect.poll(async () => (await links.allInnerTexts()).sort(), { timeout: 60_000 }).toEqual(['calc.py', 'missing.py', 'the readme']);
    await conversation(page).getByRole('link', { name: 'missing.py' }).click();
    await page.getByRole('region', { name: 'File viewer' }).getByText('y = 2').waitFor();

    // The large file: the notice is where reading starts.
    await page.getByRole('region', { name: 'Files' }).getByRole('treeitem', { name: /big\.txt/ }).click();
    const viewer = page.getByRole('region', { name: 'File viewer' });
    const notice = viewer.getByText('The file is larger than the viewer shows');
    await notice.waitFor({ timeout: 60_000 });
    const top = (await viewer.locator('.viewer-body').boundingBox())!;
    const at = (await notice.boundingBox())!;
    expect(at.y - top.y).toBeLessThan(40);
    expect(at.y + at.height).toBeLessThan(top.y + top.height);
    await screenshot(page, 'viewer-large-file-1024x700');
  });
});
