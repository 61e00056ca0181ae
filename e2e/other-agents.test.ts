// Other agents in the window (SPEC §22), with the scripted ACP agent added as a command:
// Settings › Agents lists the catalog with its pinned versions (none installed here) and adds
// the command; *New thread with…* starts a thread with it; typing the first message starts the
// agent's process before anything is sent; its request asks in the window's card naming it, Approve runs its command (the file appears), its answer is in the thread and
// the Agents view names it; Settings then shows what its `initialize` reported.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../src-main/core/sandbox';
import { approval, conversation, openApp, repo, sendMessage, useE2ESession } from './harness';

const e2e = useE2ESession();
const SCRIPT = join(repo, 'src-main/core/acp-client/testing/scripted-acp-agent.mjs');

/** How many processes have `marker` as a word of their command line (the agent's sandbox and the agent in it). */
function processesWith(marker: string): number {
  return readdirSync('/proc').filter((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(marker);
    } catch {
      return false;
    }
  }).length;
}

describe('other agents in the window', async () => {
  const available = (await detectSandbox()).available;

  it.skipIf(!available)('Settings › Agents adds a command; New thread with… runs it; its request asks naming it; approved, its command runs', { timeout: 180_000 }, async () => {
    const serve = await e2e.serve();
    const page = await openApp(e2e.browser, serve.url);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const settings = page.getByRole('dialog', { name: 'Settings' });
    const agents = settings.getByRole('list', { name: 'Agents' });
    await expect.poll(() => agents.innerText(), { timeout: 60_000 }).toContain('@zed-industries/claude-code-acp@0.16.2 · Not installed');
    await expect.poll(() => settings.getByRole('button', { name: 'Install Claude Code' }).count()).toBe(1);
    // Install asks first; Cancel installs nothing.
    await settings.getByRole('button', { name: 'Install Claude Code' }).click();
    const confirm = settings.getByRole('group', { name: 'Install Claude Code?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect(existsSync(join(serve.dataDir, 'agents', 'installed'))).toBe(false);
    // No agent can start yet: the thread list offers only its own New thread.
    expect(await page.getByRole('button', { name: 'New thread with…' }).count()).toBe(0);
    await settings.getByRole('textbox', { name: 'Agent name' }).fill('scripted');
    const marker = `e2e-started-ahead-${process.pid}`;
    await settings.getByRole('textbox', { name: 'Agent command' }).fill(`${process.execPath} ${SCRIPT} ${marker}`);
    await settings.getByRole('button', { name: 'Add agent' }).click();
    await expect.poll(() => agents.innerText()).toContain('scripted');
    const saved = JSON.parse(readFileSync(join(serve.dataDir, 'settings.json'), 'utf8')) as { agents?: { added?: Array<{ name: string; command: string }> } };
    expect(saved.agents?.added?.[0]).toMatchObject({ name: 'scripted', command: process.execPath });
    await page.keyboard.press('Escape');
    await expect.poll(() => settings.count()).toBe(0);

    // Added: the list offers it at once.
    await expect.poll(() => page.getByRole('button', { name: 'New thread with…' }).count()).toBe(1);
    await page.getByRole('button', { name: 'New thread with…' }).click();
    const dialog = page.getByRole('dialog', { name: 'New thread with…' });
    await dialog.getByRole('combobox', { name: 'Agent' }).selectOption('scripted');
    await dialog.getByRole('button', { name: 'Start' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    // Typing starts the agent (threads.prepare): its process is there before the message is sent.
    expect(processesWith(marker)).toBe(0);
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('say hello');
    await expect.poll(() => processesWith(marker), { timeout: 60_000 }).toBeGreaterThan(0);
    await sendMessage(page, 'say hello from the scripted agent ;; run echo from-window > marker.txt');
    const card = approval(page).first();
    await card.waitFor({ timeout: 60_000 });
    expect(await card.innerText()).toContain('scripted asks');
    expect(existsSync(join(serve.folder, 'marker.txt'))).toBe(false);
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect.poll(() => existsSync(join(serve.folder, 'marker.txt')), { timeout: 60_000 }).toBe(true);
    expect(readFileSync(join(serve.folder, 'marker.txt'), 'utf8')).toBe('from-window\n');
    await expect.poll(() => conversation(page).innerText(), { timeout: 60_000 }).toContain('permission: once; exit 0');
    expect(await conversation(page).innerText()).toContain('hello from the scripted agent');
    const view = page.getByRole('region', { name: 'Agents', exact: true });
    // Named by its own badge, not only by the thread's title.
    await expect.poll(() => view.getByText('scripted', { exact: true }).count(), { timeout: 60_000 }).toBeGreaterThan(0);

    // What its initialize reported is kept and shown.
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    await expect.poll(() => page.getByRole('dialog', { name: 'Settings' }).getByRole('list', { name: 'Agents' }).innerText(), { timeout: 60_000 }).toContain('Reported: scripted-acp-agent 1.0.0');
  });
});
