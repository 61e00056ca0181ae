// Slash commands in the message box (SPEC §11): a list as you type `/`, completing a command,
// a built-in carried out with a note, and an unknown command told in one line, never sent (the
// line goes once a message is sent). A plugin's command (SPEC §15) is found by its own name,
// shows as one name in the conversation, and its allowed-tools run unasked in its turn only.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { approval, conversation, openApp, repo, toolCard, useE2ESession } from './harness';

const e2e = useE2ESession();

const put = (path: string, text: string): void => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};

describe('slash commands in the window', () => {
  it('typing / lists the commands; Tab completes; /mode plan switches the mode; an unknown one is refused, its line gone after the next message', { timeout: 60_000 }, async () => {
    const serve = await e2e.serve();
    const page = await openApp(e2e.browser, serve.url);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.click();
    await box.pressSequentially('/');
    const list = page.getByRole('listbox', { name: 'Commands' });
    await list.waitFor();
    await expect.poll(() => list.getByRole('option').allInnerTexts()).toEqual(expect.arrayContaining([expect.stringContaining('/compact'), expect.stringContaining('/clear')]));

    await box.pressSequentially('mod');
    await expect.poll(() => list.getByRole('option').count()).toBe(2);
    await box.press('ArrowDown');
    await box.press('Tab');
    await expect.poll(() => box.inputValue()).toBe('/mode ');
    await box.pressSequentially('plan');
    await box.press('Enter');
    await expect.poll(() => page.getByRole('combobox', { name: 'Mode' }).inputValue()).toBe('plan');
    await page.getByText('Mode: plan').waitFor();

    await box.fill('/frobnicate');
    await box.press('Enter');
    const refused = conversation(page).getByText('unknown command /frobnicate: type / to see the commands', { exact: false });
    await refused.waitFor();
    expect(serve.model.requests).toHaveLength(0);

    serve.model.push({ text: 'Hello back' });
    await box.fill('hello');
    await box.press('Enter');
    await conversation(page).getByText('Hello back').waitFor();
    await expect.poll(() => refused.count()).toBe(0);
  });

  it("a plugin's command: /chang offers it, /changelog runs it, its name shows whole, its allowed-tools run unasked in its turn only", { timeout: 90_000 }, async () => {
    const serve = await e2e.serve();
    const plugin = mkdtempSync(join(tmpdir(), 'deepdesk-e2e-plugin-'));
    try {
      put(join(plugin, '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'release-kit', version: '1.0.0' }));
      put(join(plugin, 'commands', 'changelog.md'), '---\ndescription: Write the changelog\nargument-hint: [version] [focus]\nallowed-tools: Bash(touch:*)\n---\nWrite the changelog for $1.\n');
      execFileSync(process.execPath, [join(repo, 'bin/deepdesk.mjs'), 'plugin', 'add', plugin, '--yes', '--data-dir', serve.dataDir], { stdio: 'ignore' });
    } finally {
      rmSync(plugin, { recursive: true, force: true });
    }
    const page = await openApp(e2e.browser, serve.url);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.click();
    await box.pressSequentially('/chang');
    const list = page.getByRole('listbox', { name: 'Commands' });
    await expect.poll(() => list.getByRole('option').allInnerTexts(), { timeout: 60_000 }).toEqual([expect.stringContaining('/release-kit:changelog [version] [focus]')]);
    await box.press('Tab');
    await expect.poll(() => box.inputValue()).toBe('/release-kit:changelog ');

    serve.model.push({ toolCalls: [{ name: 'execute', args: { command: 'touch made.txt' } }] }, { text: 'Changelog written' });
    await box.fill('/changelog v2');
    await box.press('Enter');
    await conversation(page).getByText('Changelog written').waitFor({ timeout: 60_000 });
    expect(JSON.stringify(serve.model.requests[0]!.messages)).toContain('Write the changelog for v2.');
    // Allowed by the command: it ran without asking.
    expect(await approval(page).count()).toBe(0);
    expect(existsSync(join(serve.folder, 'made.txt'))).toBe(true);

    serve.model.push({ text: 'Done again' });
    await box.fill('/release-kit:changelog v3');
    await box.press('Enter');
    await conversation(page).getByText('Done again').waitFor({ timeout: 60_000 });
    // The command's name is one name in the message as sent, not half a path.
    await expect.poll(() => conversation(page).locator('.msg-user-text').last().locator('.msg-command').textContent()).toBe('/release-kit:changelog');

    // A message of the person's own: the same command asks.
    serve.model.push({ toolCalls: [{ name: 'execute', args: { command: 'touch later.txt' } }] }, { text: 'ok' });
    await box.fill('make later.txt');
    await box.press('Enter');
    await approval(page).first().waitFor({ timeout: 60_000 });
    expect(await toolCard(page, 'execute').count()).toBeGreaterThan(0);
    expect(existsSync(join(serve.folder, 'later.txt'))).toBe(false);
  });
});
