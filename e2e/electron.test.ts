// The desktop app itself: the built app (out/main/index.js) in Electron, driven by Playwright's
// Electron support, against the scripted model server. It opens on a folder, a message
// round-trips, an approval is answered, the terminal shows the command, and quitting leaves
// no process behind. Then the shell's own paths (issue 25): the page comes from app://deepdesk
// with its CSP as a header and reaches no file outside the renderer; a model-written link asks
// before the browser opens it, and a link followed in the window itself opens in the browser
// too; a crashed page is reloaded with a notice; a second launch opens its folder in the same
// window; Settings › Updates says why updates are off. Where Electron cannot run (no binary:
// `npm start` downloads it on first use; no display) the suite is skipped and says why in the
// output.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron as electron, type ElectronApplication, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../src-main/core/models/testing/scripted-server';
import { repo, screenshot } from './harness';

/** The binary `require('electron')` would run, without its download-on-first-use. */
function electronBinary(): string | null {
  const dir = join(repo, 'node_modules', 'electron');
  const pathFile = join(dir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const binary = join(process.env.ELECTRON_OVERRIDE_DIST_PATH || join(dir, 'dist'), readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : null;
}

function whyElectronCannotRun(binary: string | null): string | null {
  if (binary === null) return 'skipped: no Electron binary (node_modules/electron/dist is absent; `npm start` downloads it where the network allows)';
  if ((process.platform === 'linux' || process.platform === 'freebsd') && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return 'skipped: no display for Electron (DISPLAY and WAYLAND_DISPLAY are unset)';
  }
  return null;
}

const binary = electronBinary();
const skipReason = whyElectronCannotRun(binary);
// In the run's output (and npm test's log), not a silent skip.
if (skipReason !== null) console.log(`e2e/electron.test.ts ${skipReason}`);

/** Every process below `pid` (ps works on Linux and macOS). */
function descendants(pid: number): number[] {
  const table = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const [child, ppid] of table) {
      if (ppid === parent && !found.includes(child)) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(skipReason !== null)('the desktop app in Electron', () => {
  let model: ScriptedServer;
  let linkModel: ScriptedServer | undefined;
  let app: ElectronApplication | undefined;
  const dirs: string[] = [];
  const temp = (name: string) => {
    const dir = mkdtempSync(join(tmpdir(), `deepdesk-electron-${name}-`));
    dirs.push(dir);
    return dir;
  };

  beforeAll(async () => {
    if (!existsSync(join(repo, 'out/main/index.js'))) throw new Error('run `npm run build` before the end-to-end tests (npm test does)');
    model = await startScriptedServer([
      { toolCalls: [{ name: 'execute', args: { command: 'echo electron-says-$((6*7))' } }] },
      { text: 'Ran it in the terminal.' },
    ]);
  });

  afterAll(async () => {
    if (app && app.process().exitCode === null) await app.close().catch(() => {});
    await model?.close();
    await linkModel?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('opens on a folder, answers a message through an approval and the terminal, and quits cleanly', { timeout: 120_000 }, async () => {
    const folder = temp('folder');
    const dataDir = temp('data');
    // Its own home: no ~/.bashrc of this machine in the terminal, no userData (or single-instance lock) shared with a running Deepdesk.
    const home = temp('home');
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ model: 'openai-compatible:scripted-model', baseUrl: model.url }));
    writeFileSync(join(folder, 'README.md'), '# A project\n');

    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) if (value !== undefined && name !== 'ELECTRON_RUN_AS_NODE') env[name] = value;
    app = await electron.launch({
      executablePath: binary!,
      // Chromium refuses to run as root with its sandbox (CI containers run as root).
      args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), repo, '--folder', folder, '--data-dir', dataDir],
      cwd: repo,
      env: { ...env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), OPENAI_API_KEY: 'scripted' },
      timeout: 60_000,
    });
    const page: Page = await app.firstWindow();
    await page.getByRole('textbox', { name: 'Message' }).waitFor({ timeout: 60_000 });
    await page.getByRole('region', { name: 'Files' }).getByRole('treeitem', { name: /README\.md/ }).waitFor({ timeout: 60_000 });

    await page.getByRole('textbox', { name: 'Message' }).fill('Run the greeting');
    await page.getByRole('button', { name: 'Send' }).click();
    const approval = page.getByRole('group', { name: 'Approve tool call' }).or(page.getByRole('dialog', { name: 'Approve tool call' }));
    await approval.waitFor({ timeout: 60_000 });
    expect(await approval.innerText()).toContain('echo electron-says-$((6*7))');
    await approval.getByRole('button', { name: 'Approve', exact: true }).click();

    const terminal = page.getByRole('region', { name: 'Terminal' });
    await expect.poll(() => terminal.innerText(), { timeout: 60_000 }).toContain('electron-says-42');
    const conversation = page.getByRole('log', { name: 'Conversation' });
    await conversation.getByText('Ran it in the terminal.').waitFor({ timeout: 60_000 });
    expect(await conversation.innerText()).toContain('Run the greeting');
    expect(model.requests[0]!.messages.at(-1)).toMatchObject({ role: 'user', content: 'Run the greeting' });
    await screenshot(page, 'electron-window');

    const main = app.process().pid!;
    const tree = [main, ...descendants(main)];
    expect(tree.length).toBeGreaterThan(1);
    await app.close();
    await expect.poll(() => tree.filter(alive), { timeout: 60_000 }).toEqual([]);
  });

  it('serves app://, asks before links, recovers from a crash, opens a second launch in place, and says updates are off', { timeout: 180_000 }, async () => {
    const folder = temp('folder2');
    const other = temp('other');
    const dataDir = temp('data2');
    const home = temp('home2');
    linkModel = await startScriptedServer([{ text: 'Read [the official docs](https://docs.example.com/guide?x=1).' }]);
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ model: 'openai-compatible:scripted-model', baseUrl: linkModel.url }));
    writeFileSync(join(folder, 'README.md'), '# A project\n');
    writeFileSync(join(other, 'OTHER.md'), '# Another\n');
    mkdirSync(join(home, '.config'), { recursive: true });
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) if (value !== undefined && name !== 'ELECTRON_RUN_AS_NODE') env[name] = value;
    Object.assign(env, { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), OPENAI_API_KEY: 'scripted' });
    const sandboxArgs = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
    app = await electron.launch({ executablePath: binary!, args: [...sandboxArgs, repo, '--folder', folder, '--data-dir', dataDir], cwd: repo, env, timeout: 60_000 });
    const page: Page = await app.firstWindow();
    await page.getByRole('textbox', { name: 'Message' }).waitFor({ timeout: 60_000 });

    // The page is app://deepdesk's, its CSP a header; nothing outside out/renderer is reachable.
    expect(page.url()).toBe('app://deepdesk/index.html');
    const served = await page.evaluate(async () => {
      const index = await fetch('app://deepdesk/index.html');
      const outside = await fetch('app://deepdesk/%2e%2e/%2e%2e/package.json');
      const file = await fetch('file:///etc/hostname').then(
        () => 'read',
        () => 'refused',
      );
      return { csp: index.headers.get('content-security-policy'), outside: outside.status, file };
    });
    expect(served.csp).toContain("connect-src 'self';");
    expect(served.csp).not.toMatch(/ws:|wss:/);
    expect(served.outside).toBe(404);
    expect(served.file).toBe('refused');

    // Links go to a recorder instead of the browser.
    await app.evaluate(({ shell }) => {
      const opened: string[] = [];
      (globalThis as { openedLinks?: string[] }).openedLinks = opened;
      shell.openExternal = async (url: string) => void opened.push(url);
    });
    const openedLinks = () => app!.evaluate(() => (globalThis as { openedLinks?: string[] }).openedLinks ?? []);

    // A model-written link asks, showing its real address, and opens once confirmed.
    await page.getByRole('textbox', { name: 'Message' }).fill('Where are the docs?');
    await page.getByRole('button', { name: 'Send' }).click();
    const conversation = page.getByRole('log', { name: 'Conversation' });
    await conversation.getByRole('link', { name: 'the official docs' }).click({ timeout: 20_000 });
    const question = page.getByRole('alertdialog', { name: 'Open link' });
    expect(await question.locator('.link-address').innerText()).toBe('https://docs.example.com/guide?x=1');
    expect(await openedLinks()).toEqual([]);
    await question.getByRole('button', { name: 'Open link' }).click();
    await expect.poll(openedLinks).toEqual(['https://docs.example.com/guide?x=1']);

    // A link followed in the window itself (will-frame-navigate, then will-navigate) opens in the browser; the page stays.
    await page.evaluate(() => {
      location.href = 'https://example.com/same-window';
    });
    await expect.poll(openedLinks).toContain('https://example.com/same-window');
    expect(page.url()).toBe('app://deepdesk/index.html');

    // Settings › Updates: off, and why (this copy runs from the checkout).
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const updates = page.getByRole('dialog', { name: 'Settings' }).getByRole('region', { name: 'Updates' });
    await expect.poll(() => updates.innerText(), { timeout: 60_000 }).toContain('source checkout');
    expect(await updates.getByRole('button', { name: 'Check for updates' }).isDisabled()).toBe(true);
    await page.keyboard.press('Escape');

    // A second launch with another folder: it hands it over and ends; this window opens it.
    const second = spawn(binary!, [...sandboxArgs, repo, '--folder', other, '--data-dir', dataDir], { cwd: repo, env, stdio: 'ignore' });
    const secondExit = await new Promise<number | null>((resolve) => second.on('exit', (code) => resolve(code)));
    expect(secondExit).toBe(0);
    await page.getByRole('region', { name: 'Files' }).getByRole('treeitem', { name: /OTHER\.md/ }).waitFor({ timeout: 60_000 });
    expect(app.windows()).toHaveLength(1);

    // A crashed page is reloaded and says so (read through the main process: Playwright's page object ends with the crash).
    await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0]!.webContents.forcefullyCrashRenderer());
    const pageText = () =>
      app!.evaluate(async ({ BrowserWindow }) => {
        const contents = BrowserWindow.getAllWindows()[0]!.webContents;
        if (contents.isCrashed() || contents.isLoading()) return '';
        return `${contents.getURL()}\n${String(await contents.executeJavaScript('document.body.innerText'))}`;
      });
    await expect.poll(pageText, { timeout: 60_000 }).toMatch(/^app:\/\/deepdesk\/index\.html\n[\s\S]*stopped \(crashed/);

    await app.close();
  });
});
