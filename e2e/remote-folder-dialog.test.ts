// Issue 21 (SPEC §13), as a person meets it in headless Chromium: `Open folder` → `Remote
// (SSH)…` opens the `Open remote folder` dialog: a `Host` combobox listing the Host aliases of
// their ~/.ssh/config (here DEEPDESK_SSH_CONFIG, Include followed, wildcard patterns left out),
// a `Path` field, the remote folders opened before, `Connect` and `Cancel`. What is wrong with
// a host or path is said under the form and what was typed stays; a folder that is not there
// is found so over a real ssh connection (a test sshd on 127.0.0.1).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestSshd, type TestSshd } from '../src-main/core/backends/remote/testing/sshd';
import { describeViolations, seriousViolations } from './axe';
import { openApp, screenshot, useE2ESession } from './harness';

const session = useE2ESession();
let sshd: TestSshd;
const cleanups: Array<() => Promise<void> | void> = [];
beforeAll(async () => {
  sshd = await startTestSshd();
});
afterAll(async () => {
  await sshd?.dispose();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000 });

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A person's ssh config with an Include, and a data folder whose recent folders hold a remote and a local one. */
function setUp(): { config: string; dataDir: string; local: string } {
  const sshDir = tempDir('deepdesk-e2e-ssh-');
  writeFileSync(join(sshDir, 'config'), `Host devbox gpu-box *.corp !bastion\n  User dev\nInclude ${join(sshDir, 'conf.d')}/*.conf\nHost *\n  ServerAliveInterval 30\n`);
  mkdirSync(join(sshDir, 'conf.d'));
  writeFileSync(join(sshDir, 'conf.d', 'vm.conf'), 'Host vm-1\n');
  const dataDir = tempDir('deepdesk-e2e-data-');
  const local = tempDir('deepdesk-e2e-local-');
  writeFileSync(
    join(dataDir, 'recent-folders.json'),
    JSON.stringify({
      folders: [
        { path: 'ssh://dev@box:2222/srv/api', openedAt: '2026-11-20T10:00:00.000Z' },
        { path: local, openedAt: '2026-11-19T10:00:00.000Z' },
      ],
    }),
  );
  return { config: join(sshDir, 'config'), dataDir, local };
}

async function openRemoteDialog(page: Page) {
  await page.getByRole('button', { name: 'Remote (SSH)…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Open remote folder' });
  await dialog.waitFor();
  return dialog;
}

describe('Open remote folder', () => {
  it('lists the hosts of ~/.ssh/config, says what is wrong with a host or path, and finds a missing folder over ssh', async () => {
    const { config, dataDir } = setUp();
    const serve = await session.serve({ noFolder: true, dataDir, env: { DEEPDESK_SSH_CONFIG: config, DEEPDESK_SSH_COMMAND: sshd.sshCommand } });
    const page = await openApp(session.browser, serve.url, { width: 1024, height: 700, waitForWorkspace: false });
    cleanups.push(() => page.context().close());
    await page.getByRole('main', { name: 'Open a folder' }).waitFor();

    const dialog = await openRemoteDialog(page);
    const host = dialog.getByRole('combobox', { name: 'Host' });
    const path = dialog.getByRole('textbox', { name: 'Path' });
    const alert = dialog.getByRole('alert');
    // The list is there once the hosts are read (the toggle is enabled then); ArrowDown opens it.
    await poll(() => dialog.getByRole('button', { name: 'Show hosts' }).isEnabled()).toBe(true);
    await host.click();
    await host.press('ArrowDown');
    const hosts = dialog.getByRole('listbox', { name: 'Hosts' });
    await poll(() => hosts.getByRole('option').allInnerTexts()).toEqual(['devbox', 'gpu-box', 'vm-1']);
    await screenshot(page, 'remote-folder-dialog-hosts');
    expect(describeViolations(await seriousViolations(page)), 'axe, the host list open').toBe('');
    // Typing narrows the list; a click picks.
    await host.fill('gpu');
    await poll(() => hosts.getByRole('option').allInnerTexts()).toEqual(['gpu-box']);
    await hosts.getByRole('option', { name: 'gpu-box' }).click();
    await poll(() => host.inputValue()).toBe('gpu-box');

    // No path, then a relative one: said under the form, the fields kept.
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await poll(() => alert.innerText()).toBe('Enter the folder’s path on the remote, e.g. /home/you/project.');
    await path.fill('code/app');
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await poll(() => alert.innerText()).toBe('The path on the remote must be absolute (start with /): code/app');
    expect(await host.inputValue()).toBe('gpu-box');
    expect(await path.inputValue()).toBe('code/app');
    // Any host can be typed; a malformed one is said so.
    await host.fill('gpu-box:http');
    await path.fill('/srv');
    await path.press('Enter');
    await poll(() => alert.innerText()).toBe('The port in “gpu-box:http” must be a number from 1 to 65535.');

    // A real connection (the test sshd): the folder is not there.
    const missing = join(serve.folder, 'not-there');
    await host.fill('deepdesk-test');
    await path.fill(missing);
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await poll(() => alert.innerText()).toBe(`There is no folder at deepdesk-test:${missing}.`);
    await screenshot(page, 'remote-folder-dialog-error');
    expect(describeViolations(await seriousViolations(page)), 'axe, a message under the form').toBe('');

    // Cancel leaves the Open folder screen as it was.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await poll(() => page.getByRole('dialog', { name: 'Open remote folder' }).count()).toBe(0);
    await page.getByRole('main', { name: 'Open a folder' }).waitFor();
  });

  it('offers the remote folders opened before, kept next to the local ones, from the header’s Open folder too', async () => {
    const { config, dataDir, local } = setUp();
    const serve = await session.serve({ dataDir, env: { DEEPDESK_SSH_CONFIG: config, DEEPDESK_SSH_COMMAND: sshd.sshCommand } });
    const page = await openApp(session.browser, serve.url, { width: 1024, height: 700 });
    cleanups.push(() => page.context().close());

    await page.getByRole('button', { name: 'Open folder', exact: true }).click();
    const openFolder = page.getByRole('dialog', { name: 'Open folder' });
    await openFolder.waitFor();
    // The main list keeps the remote URL next to the local paths (the folder open now first).
    const recent = openFolder.getByRole('list', { name: 'Recent folders' }).getByRole('button');
    await poll(() => recent.allInnerTexts()).toEqual([expect.stringContaining(serve.folder), expect.stringContaining('ssh://dev@box:2222/srv/api'), expect.stringContaining(local)]);

    const dialog = await openRemoteDialog(page);
    const remotes = dialog.getByRole('list', { name: 'Recent remote folders' }).getByRole('button');
    await poll(() => remotes.allInnerTexts()).toEqual([expect.stringMatching(/^api\s+ssh:\/\/dev@box:2222\/srv\/api$/)]);
    await screenshot(page, 'remote-folder-dialog-recent');
    // Esc closes the remote dialog first, then Open folder.
    await page.keyboard.press('Escape');
    await poll(() => page.getByRole('dialog', { name: 'Open remote folder' }).count()).toBe(0);
    await openFolder.waitFor();
  });
});
