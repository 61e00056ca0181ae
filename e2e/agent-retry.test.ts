// Another agent whose adapter dies, in the window (issue 79 M12, SPEC §22): the thread says it
// exited, with its stderr's last words and what to do, and Retry sends the person's last
// message again to a fresh agent process, which answers (the thread saying, once, that it starts afresh).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../src-main/core/sandbox';
import { conversation, openApp, repo, sendMessage, useE2ESession } from './harness';

const e2e = useE2ESession();
const SCRIPT = join(repo, 'src-main/core/acp-client/testing/scripted-acp-agent.mjs');

describe('a dead adapter in the window', async () => {
  const available = (await detectSandbox()).available;

  it.skipIf(!available)('says the agent exited, with its last words; Retry starts it again and it answers', { timeout: 180_000 }, async () => {
    const serve = await e2e.serve({ settings: { agents: { added: [{ name: 'scripted', label: 'Scripted Agent', command: process.execPath, args: [SCRIPT], env: {} }] } } });
    const page = await openApp(e2e.browser, serve.url);
    await page.getByRole('button', { name: 'New thread with…' }).click();
    const dialog = page.getByRole('dialog', { name: 'New thread with…' });
    await dialog.getByRole('combobox', { name: 'Agent' }).selectOption('scripted');
    await dialog.getByRole('button', { name: 'Start' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    await sendMessage(page, `die-once ${join(serve.folder, '.died')} 3 your sign-in has expired ;; say answered after all`);
    await expect.poll(() => conversation(page).innerText(), { timeout: 60_000 }).toContain('Scripted Agent exited (code 3) before answering session/prompt, its last words: "your sign-in has expired"');
    await conversation(page).getByRole('button', { name: 'Retry', exact: true }).click();
    // Its answer, after the person's message that holds the same words.
    await expect.poll(async () => (await conversation(page).innerText()).split('answered after all').length - 1, { timeout: 60_000 }).toBe(2);
    expect(await conversation(page).innerText()).not.toMatch(/goes on only with a message/);
    // The fresh process cannot resume the dead one's session (it offers no session/load): the thread says so, once.
    const notice = conversation(page).getByRole('note').filter({ hasText: 'Scripted Agent cannot resume its earlier session (it offers neither session/load nor session/resume): it starts afresh; this thread keeps its history.' });
    expect(await notice.count()).toBe(1);
  });
});
