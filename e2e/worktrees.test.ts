// Worktrees in the window (SPEC §16), in a browser against `deepdesk serve` on a git
// repository: `New thread in a worktree` opens the worktree's folder with a new thread (the
// keyboard in its message box; the folder's uncommitted changes offered, not carried, as
// `run --worktree` does) and the `Worktree` bar shows its branch on one line at 1400×900 and
// tidily at 1024×700; the agent's write lands in the worktree only; `Show diff` shows it;
// `Apply to folder` brings it into the person's folder; `Remove worktree` removes it and opens
// its thread in the person's folder: listed there, marked, found by search, and it goes on
// there; the removed worktree is not among the recent folders. A conflict on Apply shows its
// lines from both sides, and `Ask the agent to resolve` gets it applied.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../src-main/core/models/testing/scripted-server';
import { approval, conversation, openApp, screenshot, sendMessage, useE2ESession } from './harness';

const session = useE2ESession();

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
}

function repository(): string {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-e2e-worktree-')));
  writeFileSync(join(folder, 'README.md'), '# project\n');
  git(folder, 'init', '-q', '-b', 'main');
  git(folder, 'add', '-A');
  git(folder, 'commit', '-q', '-m', 'base');
  return folder;
}

async function newWorktree(page: Page, name: string): Promise<Locator> {
  await page.getByRole('button', { name: 'New thread in a worktree', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'New thread in a worktree' });
  await dialog.getByRole('textbox', { name: 'Name (optional)' }).fill(name);
  await dialog.getByRole('button', { name: 'Create worktree' }).click();
  const bar = page.getByRole('group', { name: 'Worktree' });
  await expect.poll(() => bar.innerText(), { timeout: 60_000 }).toContain(`deepdesk/${name}`);
  return bar;
}

/** How the bar lies: its rows of controls, and whether anything in it is cut or wraps inside. */
function barLayout(bar: Locator): Promise<{ rows: number; overflows: boolean; wrappedButtons: string[]; outside: string[]; branchCut: boolean }> {
  return bar.evaluate((el) => {
    const box = el.getBoundingClientRect();
    const parts = [...el.querySelectorAll<HTMLElement>('.worktree-where, .worktree-changes, button')].filter((p) => p.offsetParent !== null);
    const rows = new Set(parts.filter((p) => p.tagName === 'BUTTON').map((p) => Math.round(p.getBoundingClientRect().top))).size;
    const lineHeight = (b: HTMLElement) => parseFloat(getComputedStyle(b).lineHeight) || 16;
    return {
      rows,
      overflows: el.scrollWidth > el.clientWidth + 1,
      wrappedButtons: [...el.querySelectorAll<HTMLElement>('button')].filter((b) => b.clientHeight > lineHeight(b) * 1.9 + 8).map((b) => b.innerText),
      outside: parts.filter((p) => p.getBoundingClientRect().right > box.right + 1 || p.getBoundingClientRect().left < box.left - 1).map((p) => p.className || p.innerText),
      branchCut: [...el.querySelectorAll<HTMLElement>('.worktree-branch')].some((b) => b.scrollWidth > b.clientWidth + 1),
    };
  });
}

describe('worktrees in the window', () => {
  it('makes a worktree with a new thread, applies the agent’s work, and removing it keeps the thread in the folder, where it goes on', async () => {
    const folder = repository();
    // The person's own uncommitted change: offered, not carried by default.
    writeFileSync(join(folder, 'README.md'), '# project, edited\n');
    const serve = await session.serve({
      folder,
      script: [
        { toolCalls: [{ name: 'write_file', args: { file_path: '/feature.txt', content: 'made in the worktree\n' } }] },
        { text: 'Wrote feature.txt.' },
        { toolCalls: [{ name: 'write_file', args: { file_path: '/after.txt', content: 'made in the folder\n' } }] },
        { text: 'Wrote after.txt.' },
      ],
    });
    const page = await openApp(session.browser, serve.url);

    await page.getByRole('button', { name: 'New thread in a worktree', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'New thread in a worktree' });
    const carry = dialog.getByRole('checkbox', { name: /Carry over uncommitted changes \(1 file\)/ });
    await carry.waitFor();
    expect(await carry.isChecked()).toBe(false);
    await dialog.getByRole('textbox', { name: 'Name (optional)' }).fill('e2e-tree');
    await dialog.getByRole('button', { name: 'Create worktree' }).click();

    // The worktree's folder is open, with its bar and a new thread whose message box has the keyboard.
    const bar = page.getByRole('group', { name: 'Worktree' });
    await expect.poll(() => bar.innerText(), { timeout: 60_000 }).toContain('deepdesk/e2e-tree');
    expect(await bar.innerText()).toContain(basename(folder));
    const tree = join(realpathSync(serve.dataDir), 'worktrees', 'e2e-tree');
    expect(readFileSync(join(tree, 'README.md'), 'utf8')).toBe('# project\n');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Message');

    await sendMessage(page, 'Write the feature');
    await approval(page).first().getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).getByText('Wrote feature.txt.').waitFor({ timeout: 60_000 });
    expect(readFileSync(join(tree, 'feature.txt'), 'utf8')).toBe('made in the worktree\n');
    expect(existsSync(join(folder, 'feature.txt'))).toBe(false);
    await expect.poll(() => bar.innerText()).toMatch(/1 file\s+changed/);

    await bar.getByRole('button', { name: 'Show diff' }).click();
    const diff = page.getByRole('dialog', { name: 'Changes in worktree e2e-tree' });
    await expect.poll(() => diff.getByRole('figure', { name: 'Changes to feature.txt' }).innerText()).toContain('made in the worktree');
    await screenshot(page, 'worktree-diff');
    await diff.getByRole('button', { name: 'Close' }).click();

    await bar.getByRole('button', { name: 'Apply to folder' }).click();
    // Polled whole: the file is there before all of it is written.
    await expect.poll(() => (existsSync(join(folder, 'feature.txt')) ? readFileSync(join(folder, 'feature.txt'), 'utf8') : null)).toBe('made in the worktree\n');
    await expect.poll(() => page.getByRole('region', { name: 'Notifications' }).innerText()).toMatch(/Applied 1 file to .*previous state is saved as refs\/deepdesk\//);
    await expect.poll(() => bar.innerText()).toContain('applied');

    // Its whole state on one line at 1400×900; at 1024×700 nothing is cut and no button wraps inside.
    await screenshot(page, 'worktree-bar');
    expect(await barLayout(bar)).toEqual({ rows: 1, overflows: false, wrappedButtons: [], outside: [], branchCut: false });
    await page.setViewportSize({ width: 1024, height: 700 });
    await expect.poll(() => barLayout(bar)).toMatchObject({ overflows: false, wrappedButtons: [], outside: [], branchCut: false });
    expect((await barLayout(bar)).rows).toBeLessThanOrEqual(2);
    await screenshot(page, 'worktree-bar-1024');
    await page.setViewportSize({ width: 1400, height: 900 });

    // Everything was applied: removed without asking; the thread is open in the person's folder.
    await bar.getByRole('button', { name: 'Remove worktree' }).click();
    await expect.poll(() => existsSync(tree)).toBe(false);
    await expect.poll(() => bar.count()).toBe(0);
    await expect.poll(() => page.getByRole('region', { name: 'Notifications' }).innerText()).toContain(`Its conversation is kept in ${basename(folder)}’s threads.`);
    await conversation(page).getByText('Wrote feature.txt.').waitFor({ timeout: 60_000 });
    await conversation(page).getByText(`Worktree e2e-tree was removed: this thread continues in ${basename(folder)}.`).waitFor();
    const threads = page.getByRole('region', { name: 'Threads' });
    const item = threads.getByRole('listitem').filter({ hasText: 'Write the feature' });
    await expect.poll(() => item.innerText()).toContain('deepdesk/e2e-tree (worktree removed)');
    await screenshot(page, 'worktree-removed-thread');

    // Found by search: by what the agent said, and by its worktree's branch.
    const search = threads.getByRole('searchbox', { name: 'Search threads' });
    await search.fill('Wrote feature');
    await expect.poll(() => threads.getByRole('listitem').filter({ hasText: 'Write the feature' }).innerText()).toContain('Wrote feature.txt.');
    await search.fill('e2e-tree');
    await expect.poll(() => threads.getByRole('listitem').filter({ hasText: 'Write the feature' }).count()).toBe(1);
    await search.fill('');

    // It goes on in the folder.
    await sendMessage(page, 'Now write after.txt');
    await approval(page).first().getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).getByText('Wrote after.txt.').waitFor({ timeout: 60_000 });
    expect(readFileSync(join(folder, 'after.txt'), 'utf8')).toBe('made in the folder\n');
    expect(readFileSync(join(folder, 'feature.txt'), 'utf8')).toBe('made in the worktree\n');

    // The removed worktree is not offered among the recent folders.
    await page.getByRole('button', { name: 'Open folder', exact: true }).click();
    const open = page.getByRole('dialog', { name: 'Open folder' });
    const recent = open.getByRole('list', { name: 'Recent folders' });
    await expect.poll(() => recent.innerText()).toContain(basename(folder));
    expect(await recent.innerText()).not.toContain('e2e-tree');
    await page.context().close();
  });

  it('counts the agent’s change the folder’s watcher never reports (a tracked build folder): the run itself tells the bar', async () => {
    const folder = repository();
    const serve = await session.serve({
      folder,
      script: [{ toolCalls: [{ name: 'write_file', args: { file_path: '/dist/app.js', content: 'built\n' } }] }, { text: 'Built.' }],
    });
    const page = await openApp(session.browser, serve.url);
    const bar = await newWorktree(page, 'built');
    await expect.poll(() => bar.innerText()).toContain('No changes yet');
    await sendMessage(page, 'Build it');
    await approval(page).first().getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).getByText('Built.').waitFor({ timeout: 60_000 });
    // dist/ is not watched (folder-watcher.ts UNWATCHED_DIRS), yet git tracks it here: the bar counts it.
    expect(readFileSync(join(realpathSync(serve.dataDir), 'worktrees', 'built', 'dist', 'app.js'), 'utf8')).toBe('built\n');
    await expect.poll(() => bar.innerText()).toMatch(/1 file\s+changed/);
    await page.context().close();
  });

  it('shows a conflict’s lines from both sides; Ask the agent to resolve gets it applied', async () => {
    const folder = repository();
    const resolved = (request: RecordedRequest) => {
      const asked = JSON.stringify(request.messages.at(-1));
      return asked.includes('conflict markers') && asked.includes('README.md')
        ? { toolCalls: [{ name: 'read_file', args: { file_path: '/README.md' } }] }
        : { text: `unexpected request: ${asked.slice(0, 200)}` };
    };
    const serve = await session.serve({
      folder,
      script: [
        { toolCalls: [{ name: 'read_file', args: { file_path: '/README.md' } }] },
        { toolCalls: [{ name: 'write_file', args: { file_path: '/README.md', content: '# project, by the agent\n' } }] },
        { text: 'Rewrote the README.' },
        resolved,
        { toolCalls: [{ name: 'write_file', args: { file_path: '/README.md', content: '# project, by both\n' } }] },
        { text: 'Resolved the README.' },
      ],
    });
    const page = await openApp(session.browser, serve.url);
    const bar = await newWorktree(page, 'clash');
    const tree = join(realpathSync(serve.dataDir), 'worktrees', 'clash');
    await sendMessage(page, 'Rewrite the README');
    await approval(page).first().getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).getByText('Rewrote the README.').waitFor({ timeout: 60_000 });
    // Meanwhile the person changes the same line.
    writeFileSync(join(folder, 'README.md'), '# project, by the person\n');

    await bar.getByRole('button', { name: 'Apply to folder' }).click();
    const clash = page.getByRole('alertdialog', { name: 'Nothing was applied' });
    const lines = clash.getByRole('region', { name: 'Conflict in README.md' });
    await expect.poll(() => lines.innerText()).toContain('# project, by the person');
    const shown = (await lines.getByRole('figure').innerText()).split('\n').filter(Boolean);
    expect(shown).toEqual([`<<<<<<< ${basename(folder)} (your folder)`, '# project, by the person', '=======', '# project, by the agent', '>>>>>>> worktree clash']);
    expect(await clash.innerText()).toContain('git merge deepdesk/clash');
    await screenshot(page, 'worktree-conflict');
    expect(readFileSync(join(folder, 'README.md'), 'utf8')).toBe('# project, by the person\n');

    await clash.getByRole('button', { name: 'Ask the agent to resolve' }).click();
    await conversation(page).getByText(/These files now hold git's conflict markers/).waitFor({ timeout: 60_000 });
    await approval(page).first().getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).getByText('Resolved the README.').waitFor({ timeout: 60_000 });
    expect(readFileSync(join(tree, 'README.md'), 'utf8')).toBe('# project, by both\n');

    await bar.getByRole('button', { name: 'Apply to folder' }).click();
    await expect.poll(() => readFileSync(join(folder, 'README.md'), 'utf8')).toBe('# project, by both\n');
    await page.context().close();
  });
});
