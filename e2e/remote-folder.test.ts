// Issue 21 (SPEC §13) as a person meets it: `deepdesk serve --folder ssh://…` opens the window
// on a folder of another machine (here a test sshd on 127.0.0.1: the "remote" is this machine,
// so the folder is set up and changed with node:fs). The tree lists it, a file opens, a change
// made there appears, the agent (scripted model) reads and runs a command there, the shell tab
// opens on the remote, and the header reads Sandboxed (the remote's bubblewrap).

import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestSshd, type TestSshd } from '../src-main/core/backends/remote/testing/sshd';
import { detectSandbox } from '../src-main/core/sandbox';
import { approval, conversation, openApp, screenshot, sendMessage, useE2ESession } from './harness';

const session = useE2ESession();
const bwrap = (await detectSandbox()).available;
let sshd: TestSshd;
let remote: string;
beforeAll(async () => {
  sshd = await startTestSshd();
});
afterAll(async () => {
  await sshd?.dispose();
});
afterEach(() => {
  rmSync(remote, { recursive: true, force: true });
});

const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000 });
const files = (page: Page) => page.getByRole('region', { name: 'Files' });
const terminal = (page: Page) => page.getByRole('region', { name: 'Terminal' });
const terminalText = (page: Page) => terminal(page).locator('.xterm-rows').innerText();

describe('the window on a remote folder', () => {
  it('lists, opens and follows the remote folder; the agent reads and runs there; the shell tab is on the remote; Sandboxed', async () => {
    remote = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-e2e-remote-')));
    writeFileSync(join(remote, 'README.md'), '# On the remote box\n');
    mkdirSync(join(remote, 'src'));
    writeFileSync(join(remote, 'src', 'main.py'), 'print("hi")\n');
    const serve = await session.serve({
      noFolder: true,
      extraArgs: ['--folder', sshd.folderUrl(remote)],
      settings: { rules: [{ tools: ['execute'], decision: 'allow' }] },
      env: { DEEPDESK_SSH_COMMAND: sshd.sshCommand, DEEPDESK_REMOTE_POLL_MS: '300' },
      script: [
        { toolCalls: [{ name: 'read_file', args: { file_path: '/README.md' } }] },
        { toolCalls: [{ name: 'execute', args: { command: 'echo from-agent > agent.txt; pwd' } }] },
        { text: 'Worked on the remote.' },
      ],
    });
    const page = await openApp(session.browser, serve.url);

    // The tree lists the remote folder; a file opens in the viewer.
    await files(page).getByRole('treeitem', { name: 'README.md' }).waitFor();
    await files(page).getByRole('treeitem', { name: 'README.md' }).click();
    await poll(() => page.getByRole('region', { name: 'File viewer' }).innerText()).toContain('On the remote box');

    // A change made on the remote appears in the tree.
    writeFileSync(join(remote, 'made-there.txt'), 'x\n');
    await files(page).getByRole('treeitem', { name: 'made-there.txt' }).waitFor({ timeout: 60_000 });

    // The header: the remote's bubblewrap.
    if (bwrap) await poll(() => terminal(page).innerText()).toMatch(/(^|\n)Sandboxed/);
    else await poll(() => terminal(page).innerText()).toContain('Not sandboxed');

    // The agent reads and runs a command there, shown live in the Terminal region.
    await sendMessage(page, 'Work on the remote folder');
    // Its redirect into a file asks first, as on a local folder.
    await approval(page).getByRole('button', { name: 'Approve' }).click({ timeout: 20_000 });
    await conversation(page).getByText('Worked on the remote.').waitFor({ timeout: 60_000 });
    expect(readFileSync(join(remote, 'agent.txt'), 'utf8')).toBe('from-agent\n');
    // The command's change on the remote is checkpointed (in the local data folder): listed in Changes, restorable.
    await poll(() => page.getByRole('region', { name: 'Changes' }).innerText()).toContain('agent.txt');
    await conversation(page).getByRole('button', { name: 'Restore files to before this message' }).first().waitFor();
    await poll(() => terminalText(page)).toContain(remote);
    const [, runTools] = serve.model.requests.slice(1);
    expect(JSON.stringify(runTools)).toContain('On the remote box');

    // The person's shell tab opens on the remote, in the folder.
    await terminal(page).getByRole('tab', { name: /Your shell/ }).click();
    await terminal(page).locator('.xterm').click();
    await page.keyboard.type('echo "here:$(pwd)"');
    await page.keyboard.press('Enter');
    await poll(() => terminalText(page)).toContain(`here:${remote}`);
    await screenshot(page, 'remote-folder-window');
    await page.context().close();
  });
});
