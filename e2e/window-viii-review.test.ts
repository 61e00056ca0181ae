// Issue 97, the review surface as a person meets it at 1024×700 in headless Chromium against
// `deepdesk serve` and the scripted model: one agent's one-line change in a file of one hunk is
// taken back by that hunk's own Revert — only its line returns, the person's line and another
// thread's fix stay; a hunk whose lines the person changed since is not reverted (no byte
// changes) and the window says why. Every per-hunk control's name says change, file and author;
// Open diff carries them where the hunk is readable; the Changes pane's buttons keep their words;
// Files marks a folder that holds a changed file.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { lastUserText, type ScriptStep } from '../src-main/core/models/testing/scripted-server';
import { approval, conversation, openApp, screenshot, sendMessage, useE2ESession } from './harness';

const e2e = useE2ESession();
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});
const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000 });
const changes = (page: Page) => page.getByRole('region', { name: 'Changes' });

const lines = Array.from({ length: 14 }, (_, i) => `line ${i + 1}`);
const text = (edit: Record<number, string>): string => lines.map((l, i) => edit[i + 1] ?? l).join('\n') + '\n';

/** Each visible `.btn` of `scope` whose words do not fit, or that is too small to read or hit. */
async function unreadableButtons(page: Page, scope: string): Promise<string[]> {
  return page.evaluate((selector) => {
    const out: string[] = [];
    for (const root of document.querySelectorAll(selector)) {
      for (const b of root.querySelectorAll<HTMLElement>('.btn')) {
        const r = b.getBoundingClientRect();
        if (r.width === 0 && r.height === 0) continue;
        const words = (b.textContent ?? '').trim();
        const font = parseFloat(getComputedStyle(b).fontSize);
        if (r.width < 24 || b.scrollWidth > b.clientWidth + 1 || (words !== '' && font < 10)) out.push(`${b.getAttribute('aria-label') ?? words}: ${Math.round(r.width)} px, font ${font}`);
      }
    }
    return out;
  }, scope);
}

describe('Window VIII: review of every agent’s change at 1024×700', () => {
  it('reverts one hunk of a file of one hunk around your line and another thread’s fix; a hunk you changed since changes nothing and says why', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'deepdesk-e2e-review-'));
    folders.push(folder);
    writeFileSync(join(folder, 'a.ts'), text({}));
    mkdirSync(join(folder, 'src'));
    writeFileSync(join(folder, 'src', 'b.ts'), text({}));
    // The first thread changes line 3 of each file; the second fixes line 12 of a.ts as it finds it.
    const step: ScriptStep = (request) => {
      const results = request.messages.filter((m) => m.role === 'tool').length;
      if (lastUserText(request).includes('Fix line 12')) {
        if (results === 0) return { toolCalls: [{ name: 'read_file', args: { file_path: '/a.ts' } }] };
        if (results === 1) return { toolCalls: [{ name: 'write_file', args: { file_path: '/a.ts', content: readFileSync(join(folder, 'a.ts'), 'utf8').replace('line 12\n', 'the other thread’s fix\n') } }] };
        return { text: 'Fixed line 12.' };
      }
      if (results === 0) return { toolCalls: [{ name: 'read_file', args: { file_path: '/a.ts' } }] };
      if (results === 1) return { toolCalls: [{ name: 'write_file', args: { file_path: '/a.ts', content: text({ 3: 'the agent’s line' }) } }] };
      if (results === 2) return { toolCalls: [{ name: 'read_file', args: { file_path: '/src/b.ts' } }] };
      if (results === 3) return { toolCalls: [{ name: 'write_file', args: { file_path: '/src/b.ts', content: text({ 3: 'the agent’s line' }) } }] };
      return { text: 'Edited both.' };
    };
    const serve = await e2e.serve({ folder, script: Array.from({ length: 12 }, () => step) });
    const page = await openApp(e2e.browser, serve.url, { width: 1024, height: 700 });
    const log = conversation(page);

    await sendMessage(page, 'Edit both files');
    // The writes ask one after the other: the next may be asking before the last one's card is gone, so each is told by its file.
    for (const file of ['/a.ts', '/src/b.ts']) {
      const asking = approval(page).filter({ hasText: file });
      await asking.first().waitFor({ timeout: 60_000 });
      await asking.first().getByRole('button', { name: 'Approve', exact: true }).click();
      await poll(() => asking.count()).toBe(0);
    }
    await log.getByText('Edited both.').waitFor({ timeout: 60_000 });
    // The person edits line 1 of a.ts and line 3 of b.ts, the agent's own line.
    writeFileSync(join(folder, 'a.ts'), text({ 1: 'my own line', 3: 'the agent’s line' }));
    const mine = text({ 3: 'the agent’s line, then mine' });
    writeFileSync(join(folder, 'src', 'b.ts'), mine);

    // Another thread fixes line 12 of a.ts.
    const threads = page.getByRole('region', { name: 'Threads' });
    await threads.getByRole('button', { name: 'New thread' }).click();
    await log.getByText(/Ask the agent to read/).waitFor({ timeout: 60_000 });
    await sendMessage(page, 'Fix line 12');
    await approval(page).first().waitFor({ timeout: 60_000 });
    await approval(page).first().getByRole('button', { name: 'Approve', exact: true }).click();
    await log.getByText('Fixed line 12.').waitFor({ timeout: 60_000 });
    expect(readFileSync(join(folder, 'a.ts'), 'utf8')).toBe(text({ 1: 'my own line', 3: 'the agent’s line', 12: 'the other thread’s fix' }));

    await threads.locator('.thread-item').filter({ hasText: 'Edit both files' }).locator('.thread-select').click();
    // Files marks the folder holding a changed file, as it marks the file, and describes it.
    const src = page.getByRole('region', { name: 'Files' }).getByRole('treeitem', { name: /^src/ });
    await poll(() => src.locator('.tree-badge').count()).toBe(1);
    expect(await src.evaluate((el) => document.getElementById(el.getAttribute('aria-describedby') ?? '')?.getAttribute('aria-label'))).toBe('holds 1 file changed by the agent');
    // A file of one hunk: the hunk's own controls, each named by change, file and author.
    const who = 'this thread · scripted-model';
    const hunkA = changes(page).getByRole('group', { name: `Change 1 of 1 in /a.ts by ${who}`, exact: true });
    await hunkA.waitFor({ timeout: 60_000 });
    for (const [role, name] of [
      ['checkbox', `Reviewed change 1 of 1 in /a.ts by ${who}`],
      ['button', `Keep change 1 of 1 in /a.ts by ${who}`],
      ['button', `Revert change 1 of 1 in /a.ts by ${who}`],
    ] as const) {
      expect(await hunkA.getByRole(role, { name, exact: true }).count(), name).toBe(1);
    }
    // One Revert in the file's row: the hunk's is the file's.
    expect(await changes(page).getByRole('listitem', { name: '/a.ts' }).getByRole('button', { name: /Revert/ }).count()).toBe(1);
    expect(await unreadableButtons(page, '[aria-label="Changes"]')).toEqual([]);
    await screenshot(page, 'window-viii-changes-1024');

    await hunkA.getByRole('button', { name: `Revert change 1 of 1 in /a.ts by ${who}`, exact: true }).click();
    await poll(() => readFileSync(join(folder, 'a.ts'), 'utf8')).toBe(text({ 1: 'my own line', 12: 'the other thread’s fix' }));

    // Undo restore keeps its words at 1024×700.
    const undo = changes(page).getByRole('button', { name: 'Undo restore', exact: true });
    await undo.waitFor({ timeout: 60_000 });
    const undoBox = (await undo.boundingBox())!;
    expect(undoBox.width).toBeGreaterThan(60);
    expect(await unreadableButtons(page, '[aria-label="Changes"]')).toEqual([]);

    // b.ts: the person changed the agent's line since; its Revert changes no byte and says why.
    const hunkB = changes(page).getByRole('group', { name: `Change 1 of 1 in /src/b.ts by ${who}`, exact: true });
    await hunkB.getByRole('button', { name: `Revert change 1 of 1 in /src/b.ts by ${who}`, exact: true }).click();
    const notice = page.getByRole('region', { name: 'Notifications' }).getByRole('alert').filter({ hasText: '/src/b.ts' });
    await notice.waitFor({ timeout: 60_000 });
    expect(await notice.innerText()).toContain('Nothing was changed. /src/b.ts: line 3 changed since the agent’s change');
    expect(readFileSync(join(folder, 'src', 'b.ts'), 'utf8')).toBe(mine);
    await notice.getByRole('button', { name: 'Dismiss notification' }).click();

    // Open diff: the hunk where it is readable, with who wrote it, Reviewed, Keep and Revert.
    await changes(page).getByRole('listitem', { name: '/src/b.ts' }).getByRole('button', { name: 'Open diff' }).click();
    const dialog = page.getByRole('dialog', { name: 'Diff of /src/b.ts' });
    const large = dialog.getByRole('group', { name: `Change 1 of 1 in /src/b.ts by ${who}`, exact: true });
    await large.waitFor();
    expect(await large.innerText()).toContain(`Written by ${who}`);
    for (const [role, name] of [
      ['checkbox', `Reviewed change 1 of 1 in /src/b.ts by ${who}`],
      ['button', `Keep change 1 of 1 in /src/b.ts by ${who}`],
      ['button', `Revert change 1 of 1 in /src/b.ts by ${who}`],
    ] as const) {
      expect(await large.getByRole(role, { name, exact: true }).count(), name).toBe(1);
    }
    // A line of the hunk has room for at least 80 characters (the column had about 15).
    const cell = (await large.locator('.diff-text').first().boundingBox())!;
    const charWidth = await large.locator('.diff-text').first().evaluate((el) => {
      const probe = document.createElement('span');
      probe.textContent = 'x'.repeat(10);
      el.appendChild(probe);
      const w = probe.getBoundingClientRect().width / 10;
      probe.remove();
      return w;
    });
    expect(cell.width / charWidth).toBeGreaterThan(80);
    expect(await unreadableButtons(page, '[role="dialog"]')).toEqual([]);
    await screenshot(page, 'window-viii-diff-dialog-1024');
    await large.getByRole('button', { name: `Keep change 1 of 1 in /src/b.ts by ${who}`, exact: true }).click();
    await poll(() => large.getByRole('checkbox', { name: `Reviewed change 1 of 1 in /src/b.ts by ${who}`, exact: true }).isChecked()).toBe(true);
    await page.context().close();
  });
});
