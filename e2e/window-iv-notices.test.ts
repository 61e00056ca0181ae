// Issue 42, notices as a person meets them in headless Chromium at 1400×900 and 1024×700:
// a notice takes a place of its own (it covers no control), says what it is in its style,
// expires unless it needs an answer, belongs to the folder it is about (gone on switching
// folder), is not shown again on a reload, and the remote folder's notice is given only when
// that folder has configuration of its own. The header marks a remote folder as remote.
// A real sshd on 127.0.0.1 stands for the remote machine (e2e/remote-folder.test.ts).

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestSshd, type TestSshd } from '../src-main/core/backends/remote/testing/sshd';
import { auditEveryWay, describeViolations, seriousViolations } from './axe';
import { heldServerArgs, openApp, repo, screenshot, useE2ESession } from './harness';

const session = useE2ESession();
let sshd: TestSshd;
const cleanups: Array<() => void> = [];
beforeAll(async () => {
  sshd = await startTestSshd();
});
afterAll(async () => {
  await sshd?.dispose();
});
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const poll = <T,>(fn: () => T | Promise<T>, timeout = 60_000) => expect.poll(fn, { timeout });
const notices = (page: Page) => page.getByRole('region', { name: 'Notifications' });
const remoteNotice = (page: Page) => notices(page).locator('.toast').filter({ hasText: 'is a remote folder' });

function remoteDir(files: Record<string, string> = {}): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-e2e-remote-')));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'README.md'), '# remote\n');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

async function openFolder(page: Page, path: string): Promise<void> {
  await page.getByRole('button', { name: 'Open folder', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Open folder' });
  await dialog.getByRole('textbox', { name: 'Folder path' }).fill(path);
  await dialog.getByRole('button', { name: 'Open', exact: true }).click();
  await poll(() => page.getByRole('dialog', { name: 'Open folder' }).count(), 30_000).toBe(0);
}

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box): boolean => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** The visible controls a notice lies over (their names), checked by bounding boxes. */
async function coveredControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const toasts = [...document.querySelectorAll('.toast')].map((t) => t.getBoundingClientRect());
    const controls = [...document.querySelectorAll<HTMLElement>('#root button, #root input, #root textarea, #root select, #root a[href], #root [role="treeitem"], #root [tabindex="0"]')];
    const hit = (a: DOMRect, b: DOMRect) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    return controls
      .filter((c) => {
        const r = c.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && toasts.some((t) => hit(t, r));
      })
      .map((c) => c.getAttribute('aria-label') ?? c.textContent ?? c.tagName);
  });
}

describe('notices', () => {
  it('a remote folder is marked remote; its notice is only for configuration it has, covers nothing, is information, leaves with its folder and is not told again on reload', async () => {
    const plain = remoteDir();
    const configured = remoteDir({ '.mcp.json': '{"mcpServers":{"x":{"command":"true"}}}\n', '.claude/skills/demo/SKILL.md': '---\nname: demo\ndescription: d\n---\nbody\n' });
    const serve = await session.serve({
      noFolder: true,
      extraArgs: ['--folder', sshd.folderUrl(plain)],
      env: { DEEPDESK_SSH_COMMAND: sshd.sshCommand, DEEPDESK_REMOTE_POLL_MS: '300' },
    });
    const page = await openApp(session.browser, serve.url);

    // The header says the folder is remote, and where.
    const badge = page.getByRole('banner').getByLabel(/^Remote folder on /);
    await badge.waitFor();
    expect(await badge.getAttribute('aria-label')).toContain('deepdesk-test');

    // A folder with configuration of its own: told, as information, in a place of its own.
    await openFolder(page, sshd.folderUrl(configured));
    await remoteNotice(page).waitFor({ timeout: 60_000 });
    expect(await remoteNotice(page).innerText()).toContain('(.mcp.json, skills)');
    expect(await remoteNotice(page).getAttribute('class')).not.toContain('toast-error');
    expect(await remoteNotice(page).getAttribute('role')).toBe('status');
    const send = (await page.getByRole('button', { name: 'Send', exact: true }).boundingBox())!;
    const attach = (await page.getByRole('button', { name: 'Attach files' }).boundingBox())!;
    const box = (await remoteNotice(page).boundingBox())!;
    expect(overlaps(box, send) || overlaps(box, attach)).toBe(false);
    expect(await coveredControls(page)).toEqual([]);
    await screenshot(page, 'window-iv-notice-remote-1400');
    await page.setViewportSize({ width: 1024, height: 700 });
    expect(await coveredControls(page)).toEqual([]);
    await screenshot(page, 'window-iv-notice-remote-1024');
    await page.setViewportSize({ width: 1400, height: 900 });

    // The folder with none was never told about.
    expect(await notices(page).innerText()).not.toContain(plain);

    // Switching to a local folder: the remote folder's notice goes with it.
    await openFolder(page, serve.folder);
    await poll(() => remoteNotice(page).count()).toBe(0);
    await poll(() => page.getByRole('banner').getByLabel(/^Remote folder on /).count()).toBe(0);

    // Back on it and reloaded: told once, not again.
    await openFolder(page, sshd.folderUrl(configured));
    await page.getByRole('banner').getByLabel(/^Remote folder on /).waitFor();
    await page.reload();
    await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
    await page.getByRole('banner').getByLabel(/^Remote folder on /).waitFor();
    for (let i = 0; i < 10; i++) {
      expect(await remoteNotice(page).count()).toBe(0);
      await page.waitForTimeout(200);
    }
  });

  it('a notice that needs no answer expires; one that does stays with a Dismiss button', async () => {
    const configured = remoteDir({ '.deepdesk/hooks.json': '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}\n' });
    const dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-e2e-data-'));
    // A settings file that cannot be read is kept aside: the person must know, so it stays.
    writeFileSync(join(dataDir, 'settings.json'), '{"model":');
    const serve = await session.serve({
      noFolder: true,
      dataDir,
      extraArgs: ['--folder', sshd.folderUrl(configured)],
      env: { DEEPDESK_SSH_COMMAND: sshd.sshCommand, DEEPDESK_REMOTE_POLL_MS: '300' },
    });
    const page = await openApp(session.browser, serve.url, { width: 1024, height: 700, clock: true });
    await remoteNotice(page).waitFor({ timeout: 60_000 });
    expect(await remoteNotice(page).innerText()).toContain('(hooks)');
    const kept = notices(page).locator('.toast').filter({ hasText: 'settings.json' });
    await kept.waitFor();
    expect(await coveredControls(page)).toEqual([]);
    // Its expiry passes on the page's clock; the notice that needs an answer outlives it.
    await poll(async () => {
      await page.clock.runFor(1_000);
      return remoteNotice(page).count();
    }, 30_000).toBe(0);
    expect(await kept.count()).toBe(1);
    // WCAG 2.2 AA in both themes at both sizes, with the notice and the header's Remote badge.
    const findings = await auditEveryWay(page, async () => {
      expect(await coveredControls(page)).toEqual([]);
    });
    expect(describeViolations(Object.values(findings).flat())).toBe('');
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
      await screenshot(page, `window-iv-notice-kept-${theme}-1024`);
    }
    await kept.getByRole('button', { name: 'Dismiss notification' }).click();
    await poll(() => kept.count()).toBe(0);
  });
});

const SLOW_SERVER = join(repo, 'src-main/core/extensions/mcp/__fixtures__/test-server.mjs');
const slowEntry = (ms: number) => ({ command: process.execPath, args: [SLOW_SERVER, '--slow-start', String(ms)] });
/** A server held from starting until `gate` exists. */
const heldEntry = (gate: string) => ({ command: process.execPath, args: heldServerArgs(gate, SLOW_SERVER) });
const mcpRegion = (page: Page) => page.getByRole('dialog', { name: 'Settings' }).getByRole('region', { name: 'MCP servers' });

describe('Trust folder', () => {
  it('answers at once when a server is slow to start (its state follows in Settings), puts the keyboard in the message box, and a changed entry says what changed', { timeout: 120_000 }, async () => {
    const serve = await session.serve();
    const gate = join(serve.folder, 'slow-may-start');
    writeFileSync(join(serve.folder, '.mcp.json'), JSON.stringify({ mcpServers: { slow: heldEntry(gate) } }));
    const page = await openApp(session.browser, serve.url);
    const question = page.getByRole('group', { name: 'Trust this folder?' });
    await question.waitFor({ timeout: 60_000 });

    await question.getByRole('button', { name: 'Trust folder' }).click();
    // Answered while the server is still held from starting: the answer did not wait for it.
    await question.waitFor({ state: 'detached', timeout: 60_000 });
    // Focus on a control: the message box, not <body>.
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Message');
    // Said where it is seen, as information; no error about an answer that did not come.
    await poll(() => notices(page).innerText()).toContain('MCP server is starting');
    expect(await notices(page).getByRole('alert').count()).toBe(0);
    expect(await coveredControls(page)).toEqual([]);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const item = mcpRegion(page).getByRole('listitem', { name: 'slow' });
    await poll(() => item.textContent()).toContain('Starting');
    writeFileSync(gate, '');
    await poll(() => item.textContent(), 60_000).toMatch(/Connected · \d+ tools/);
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await notices(page).getByRole('alert').count()).toBe(0);

    // The entry changes (a `git pull`): asked again, it says it changed, and what it was.
    writeFileSync(join(serve.folder, '.mcp.json'), JSON.stringify({ mcpServers: { slow: slowEntry(100) } }));
    await question.waitFor({ timeout: 60_000 });
    await poll(() => question.innerText()).toContain('Changed since you trusted it');
    const text = await question.innerText();
    expect(text).toContain(`Was: MCP server slow: ${process.execPath} -e`);
    expect(text).toContain(`${gate} ${SLOW_SERVER}`);
    expect(text).toContain(`MCP server slow: ${process.execPath} ${SLOW_SERVER} --slow-start 100`);
    await screenshot(page, 'window-iv-trust-changed');
    const findings = await auditEveryWay(page);
    expect(describeViolations(Object.values(findings).flat())).toBe('');
    await page.setViewportSize({ width: 1400, height: 900 });
    await question.getByRole('button', { name: 'Not now' }).click();
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Message');
  });
});

describe('the served window opened without its key', () => {
  it('says "Not signed in" (not "gone") while serve runs, and `serve --print-url` gives the address back', { timeout: 120_000 }, async () => {
    const served = await session.serve();
    const first = await openApp(session.browser, served.url);
    // The bare address, as the address bar shows it once the page opened, in a new tab.
    const page = await first.context().newPage();
    await page.goto(`${served.origin}/`);
    const alert = notices(page).getByRole('alert').filter({ hasText: 'Not signed in' });
    await alert.waitFor({ timeout: 60_000 });
    expect(await alert.innerText()).toContain('deepdesk serve --print-url');
    expect(await notices(page).getByRole('alert').filter({ hasText: 'server is gone' }).count()).toBe(0);
    // Only the true state, anywhere on the page (issue 79): the starting screen does not say the server is gone beside it.
    expect(await page.locator('body').innerText()).not.toContain('server is gone');
    // Never connected, the page has no theme of the settings yet: audited as it is.
    expect(describeViolations(await seriousViolations(page))).toBe('');
    // The command prints the address, key included, and it opens the window.
    const printed = execFileSync(process.execPath, [join(repo, 'bin/deepdesk.mjs'), 'serve', '--print-url', '--data-dir', served.dataDir], { encoding: 'utf8' }).trim();
    expect(printed).toBe(served.url);
    await page.goto(printed);
    await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
    await poll(() => notices(page).getByRole('alert').filter({ hasText: 'Not signed in' }).count()).toBe(0);
    // Once serve stopped, nothing is printed and the command says so.
    await served.stop({ keepData: true });
    expect(() => execFileSync(process.execPath, [join(repo, 'bin/deepdesk.mjs'), 'serve', '--print-url', '--data-dir', served.dataDir], { encoding: 'utf8', stdio: 'pipe' })).toThrow(/no `deepdesk serve` is running/);
  });
});

describe('the served window after its server moved', () => {
  it('stops saying reconnecting… after a bounded time: says the server is gone, how to open the new address, and offers Reload', { timeout: 120_000 }, async () => {
    const first = await session.serve();
    const page = await openApp(session.browser, first.url);
    // The page's clock is the test's: the bound is a number of attempts, and their waits pass at once.
    await page.clock.install();
    await first.stop({ keepData: true });
    await poll(() => page.getByRole('banner').innerText()).toContain('reconnecting…');
    // Narrow, with the word in the header: its buttons stay whole and in the window.
    await page.setViewportSize({ width: 800, height: 700 });
    for (const name of ['Usage', 'Settings']) {
      const button = page.getByRole('banner').getByRole('button', { name, exact: true });
      await poll(async () => {
        const box = await button.boundingBox();
        return box !== null && box.x >= 0 && box.x + box.width <= 800;
      }).toBe(true);
    }
    await page.setViewportSize({ width: 1400, height: 900 });
    // Started again elsewhere (a new port, a new token): the old tab cannot follow it.
    const second = await session.serve({ folder: first.folder, dataDir: first.dataDir });
    expect(second.origin).not.toBe(first.origin);

    const gone = notices(page).getByRole('alert').filter({ hasText: 'server is gone' });
    const givenUp = () =>
      poll(async () => {
        await page.clock.runFor(5_000);
        return gone.count();
      }, 45_000).toBe(1);
    await givenUp();
    expect(await gone.innerText()).toContain('open the address it printed');
    expect(await page.getByRole('banner').innerText()).not.toContain('reconnecting…');
    await gone.getByRole('button', { name: 'Reload' }).waitFor();
    await gone.getByRole('button', { name: 'Try again' }).waitFor();
    expect(await coveredControls(page)).toEqual([]);
    await screenshot(page, 'window-iv-server-gone-1400');
    const findings = await auditEveryWay(page);
    expect(describeViolations(Object.values(findings).flat())).toBe('');

    // Try again keeps trying this address only as asked: it is still gone.
    await gone.getByRole('button', { name: 'Try again' }).click();
    await givenUp();
    // The way out: the new address opens the window on the same folder.
    await page.goto(second.url);
    await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
    expect(await notices(page).getByRole('alert').filter({ hasText: 'server is gone' }).count()).toBe(0);
  });
});
