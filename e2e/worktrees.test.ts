// Worktrees in the window (SPEC §16), in a browser against `deepdesk serve` on a git
// repository: `New thread in a worktree` opens the worktree's folder with a new thread (the
// keyboard in its message box) and the `Worktree` bar shows its branch; the agent's write
// lands in the worktree only; `Show diff` shows it; `Apply to folder` brings it into the
// person's folder; `Remove worktree` removes it and goes back to the person's folder.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { approval, conversation, openApp, screenshot, sendMessage, useE2ESession } from './harness';

const session = useE2ESession();

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
}

describe('worktrees in the window', () => {
  it('makes a worktree with a new thread, shows its branch, applies the agent’s work to the folder and removes it', async () => {
    const folder = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-e2e-worktree-')));
    writeFileSync(join(folder, 'README.md'), '# project\n');
    git(folder, 'init', '-q', '-b', 'main');
    git(folder, 'add', '-A');
    git(folder, 'commit', '-q', '-m', 'base');
    const serve = await session.serve({
      folder,
      script: [{ toolCalls: [{ name: 'write_file', args: { file_path: '/feature.txt', content: 'made in the worktree\n' } }] }, { text: 'Wrote feature.txt.' }],
    });
    const page = await openApp(session.browser, serve.url);

    await page.getByRole('button', { name: 'New thread in a worktree', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'New thread in a worktree' });
    await dialog.getByRole('textbox', { name: 'Name (optional)' }).fill('e2e-tree');
    await dialog.getByRole('button', { name: 'Create worktree' }).click();

    // The worktree's folder is open, with its bar and a new thread whose message box has the keyboard.
    const bar = page.getByRole('group', { name: 'Worktree' });
    await expect.poll(() => bar.innerText(), { timeout: 20_000 }).toContain('deepdesk/e2e-tree');
    expect(await bar.innerText()).toContain(basename(folder));
    const tree = join(realpathSync(serve.dataDir), 'worktrees', 'e2e-tree');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Message');

    await sendMessage(page, 'Write the feature');
    await approval(page).first().getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).getByText('Wrote feature.txt.').waitFor({ timeout: 20_000 });
    expect(readFileSync(join(tree, 'feature.txt'), 'utf8')).toBe('made in the worktree\n');
    expect(existsSync(join(folder, 'feature.txt'))).toBe(false);
    await expect.poll(() => bar.innerText()).toContain('1 file changed');

    await bar.getByRole('button', { name: 'Show diff' }).click();
    const diff = page.getByRole('dialog', { name: 'Changes in worktree e2e-tree' });
    await expect.poll(() => diff.getByRole('figure', { name: 'Changes to feature.txt' }).innerText()).toContain('made in the worktree');
    await screenshot(page, 'worktree-diff');
    await diff.getByRole('button', { name: 'Close' }).click();

    await bar.getByRole('button', { name: 'Apply to folder' }).click();
    await expect.poll(() => existsSync(join(folder, 'feature.txt'))).toBe(true);
    expect(readFileSync(join(folder, 'feature.txt'), 'utf8')).toBe('made in the worktree\n');
    await expect.poll(() => page.getByRole('region', { name: 'Notifications' }).innerText()).toMatch(/Applied 1 file to .*previous state is saved as refs\/deepdesk\//);
    await screenshot(page, 'worktree-bar');

    // Everything was applied: removed without asking, and the person's folder is open again.
    await expect.poll(() => bar.innerText()).toContain('applied');
    await bar.getByRole('button', { name: 'Remove worktree' }).click();
    await expect.poll(() => existsSync(tree)).toBe(false);
    await expect.poll(() => bar.count()).toBe(0);
    await expect.poll(() => page.getByRole('button', { name: 'New thread in a worktree', exact: true }).count()).toBe(1);
    expect(readFileSync(join(folder, 'feature.txt'), 'utf8')).toBe('made in the worktree\n');
    await page.context().close();
  });
});
