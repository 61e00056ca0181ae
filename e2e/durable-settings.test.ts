// Issue 26 with real `deepdesk serve` processes and a real browser: unreadable settings,
// keys and folder modes are kept aside and told (stderr and the window), a file with one bad
// value keeps the rest, two serve processes on one data folder merge their saves and each
// window shows the other's, and a save on a full disk is an error the dialog shows, never a
// value that is gone at the next start.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openApp, repo, screenshot, serveUrl } from './harness';

let browser: Browser;
const cleanups: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  if (!existsSync(join(repo, 'out/renderer/index.html'))) throw new Error('run `npm run build` before the end-to-end tests (npm test does)');
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Serve {
  url: string;
  process: ChildProcess;
  stderr(): string;
  stop(): Promise<void>;
}

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** `deepdesk serve` on these folders (no model flags: settings.json decides), optionally run through `prefix` (nsenter). */
async function serve(folder: string, dataDir: string, prefix: string[] = []): Promise<Serve> {
  const home = tempDir('deepdesk-e2e-home-');
  const command = [...prefix, process.execPath, join(repo, 'bin/deepdesk.mjs'), 'serve', '--folder', folder, '--data-dir', dataDir, '--port', '0'];
  const child = spawn(command[0]!, command.slice(1), { cwd: repo, env: { ...process.env, OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  };
  cleanups.push(stop);
  const url = await serveUrl(child, () => stderr);
  return { url, process: child, stderr: () => stderr, stop };
}

async function window(url: string): Promise<Page> {
  const page = await openApp(browser, url);
  cleanups.push(() => page.context().close());
  return page;
}

async function openSettings(page: Page) {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.waitFor();
  return dialog;
}

const theme = (page: Page) => page.evaluate(() => document.documentElement.dataset.theme);
const notifications = (page: Page) => page.getByLabel('Notifications').innerText();
const asides = (dir: string, name: string) => readdirSync(dir).filter((f) => f.startsWith(`${name}.corrupt-`));

describe('unreadable is not missing', () => {
  it('truncated settings, keys and folder modes are kept aside, told on stderr and in the window', async () => {
    const folder = tempDir('deepdesk-e2e-folder-');
    const dataDir = tempDir('deepdesk-e2e-data-');
    const texts = {
      'settings.json': '{"model":"openai-compatible:lost","rules":[{"decision":"deny","paths":["/secret/**"]}],"th',
      'secrets.json': '{"api-key:openai":"sk-kept-aside","api-key:anthropic":',
      'folder-modes.json': `{"${realpathSync(folder)}":{"mode":"pl`,
    };
    for (const [name, text] of Object.entries(texts)) writeFileSync(join(dataDir, name), text);

    const s = await serve(folder, dataDir);
    for (const [name, text] of Object.entries(texts)) {
      expect(asides(dataDir, name), name).toHaveLength(1);
      expect(readFileSync(join(dataDir, asides(dataDir, name)[0]!), 'utf8')).toBe(text);
    }
    // One stderr line per file, naming where it went; no secret in them.
    const lines = s.stderr().split('\n').filter((l) => l.startsWith('deepdesk: '));
    expect(lines).toHaveLength(3);
    for (const name of Object.keys(texts)) expect(lines.some((l) => l.includes(join(dataDir, asides(dataDir, name)[0]!))), name).toBe(true);
    expect(s.stderr()).not.toContain('sk-kept-aside');

    const page = await window(s.url);
    for (const name of Object.keys(texts)) {
      await expect.poll(() => notifications(page), { timeout: 60_000 }).toContain(join(dataDir, asides(dataDir, name)[0]!));
    }
    await screenshot(page, 'durable-settings-corrupt-notice');
    // Told once each (the start-up list and the live event do not double them).
    const count = await page.getByLabel('Notifications').getByRole('alert').count();
    expect(count).toBe(3);
  });

  it('one invalid value keeps every valid setting, and the window says which', async () => {
    const folder = tempDir('deepdesk-e2e-folder-');
    const dataDir = tempDir('deepdesk-e2e-data-');
    const stored = { model: 'openai-compatible:kept-model', baseUrl: '', theme: 'solarized', rules: [{ decision: 'deny', paths: ['/secret/**'] }], subagents: [] };
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify(stored));
    const s = await serve(folder, dataDir);
    expect(s.stderr()).toMatch(/deepdesk: .*settings\.json.*theme/);
    const page = await window(s.url);
    await expect.poll(() => notifications(page), { timeout: 60_000 }).toMatch(/settings\.json.*theme/);
    const dialog = await openSettings(page);
    expect(await dialog.getByLabel('Model', { exact: true }).inputValue()).toBe('kept-model');
    expect(await dialog.getByRole('button', { name: /Remove rule: .*\/secret\/\*\*/ }).count()).toBe(1);
    expect(asides(dataDir, 'settings.json')).toEqual([]);
  });
});

describe('several processes on one data folder', () => {
  it('two serve processes save different fields: the file has both and each window shows the other\'s', async () => {
    const folder = tempDir('deepdesk-e2e-folder-');
    const dataDir = tempDir('deepdesk-e2e-data-');
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ model: 'openai-compatible:start', theme: 'dark' }));
    const a = await serve(folder, dataDir);
    const b = await serve(folder, dataDir);
    const pageA = await window(a.url);
    const pageB = await window(b.url);
    await expect.poll(() => theme(pageA)).toBe('dark');

    // B opens Settings first: its copy is about to go stale.
    const dialogB = await openSettings(pageB);
    const dialogA = await openSettings(pageA);
    await dialogA.getByLabel('Model', { exact: true }).fill('merge-a');
    await dialogA.getByRole('button', { name: 'Save settings' }).click();
    await dialogA.waitFor({ state: 'detached' });
    await expect.poll(() => JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as unknown).toMatchObject({ model: 'openai-compatible:merge-a' });

    // B's open dialog shows A's model (it changed nothing there), and B saves only the theme.
    await expect.poll(() => dialogB.getByLabel('Model', { exact: true }).inputValue(), { timeout: 60_000 }).toBe('merge-a');
    await dialogB.getByRole('combobox', { name: 'Theme' }).selectOption('light');
    await dialogB.getByRole('button', { name: 'Save settings' }).click();
    await dialogB.waitFor({ state: 'detached' });

    expect(JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8'))).toMatchObject({ model: 'openai-compatible:merge-a', theme: 'light' });
    // A's window follows B's theme without a reload; B's shows A's model.
    await expect.poll(() => theme(pageA), { timeout: 60_000 }).toBe('light');
    const again = await openSettings(pageB);
    expect(await again.getByLabel('Model', { exact: true }).inputValue()).toBe('merge-a');
    await screenshot(pageA, 'durable-settings-merged');
  });
});

describe('a full disk', () => {
  it('a save that cannot be written is an error in the dialog, and a restart shows the old value', async (ctx) => {
    const reason = namespaceUnavailable();
    if (reason) ctx.skip(reason);
    const folder = tempDir('deepdesk-e2e-folder-');
    const dataDir = tempDir('deepdesk-e2e-data-');
    // A small tmpfs for the data folder, seen only by the processes that enter this namespace.
    const holder = spawn('unshare', ['-m', '--propagation', 'private', 'sh', '-c', 'mount -t tmpfs -o size=16m tmpfs "$1" && echo mounted && exec sleep 100000', 'sh', dataDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => void holder.kill('SIGKILL'));
    await new Promise<void>((done, fail) => {
      holder.stdout!.on('data', (d: Buffer) => d.toString().includes('mounted') && done());
      holder.on('exit', (code) => fail(new Error(`could not mount a tmpfs (exit ${code})`)));
    });
    const inside = ['nsenter', '-t', String(holder.pid), '-m', '--'];
    const sh = (script: string, ...args: string[]) => spawnSync(inside[0]!, [...inside.slice(1), 'sh', '-c', script, 'sh', ...args], { encoding: 'utf8' });
    const settingsFile = join(dataDir, 'settings.json');
    sh('printf %s "$1" > "$2"', JSON.stringify({ model: 'openai-compatible:start', theme: 'dark' }), settingsFile);
    // Outside the namespace the folder is still empty: the tmpfs is private.
    expect(existsSync(settingsFile)).toBe(false);

    const first = await serve(folder, dataDir, inside);
    const page = await window(first.url);
    await expect.poll(() => theme(page)).toBe('dark');
    const dialog = await openSettings(page);

    const filled = sh('cat /dev/zero > "$1/filler"; df -k "$1" | tail -1', dataDir);
    expect(filled.stdout).toMatch(/100%/);
    await dialog.getByLabel('Model', { exact: true }).fill('typed-model');
    await dialog.getByRole('combobox', { name: 'Theme' }).selectOption('light');
    await dialog.getByRole('button', { name: 'Save settings' }).click();
    const error = dialog.getByRole('alert');
    await expect.poll(() => error.innerText(), { timeout: 60_000 }).toMatch(/no space left/i);
    await screenshot(page, 'durable-settings-disk-full');
    // The dialog stays open with what was typed, and nothing pretends it was saved.
    expect(await dialog.getByLabel('Model', { exact: true }).inputValue()).toBe('typed-model');
    expect(await dialog.getByRole('combobox', { name: 'Theme' }).inputValue()).toBe('light');
    expect(await theme(page)).toBe('dark');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    const reopened = await openSettings(page);
    expect(await reopened.getByLabel('Model', { exact: true }).inputValue()).toBe('start');
    expect(await reopened.getByRole('combobox', { name: 'Theme' }).inputValue()).toBe('dark');
    expect(JSON.parse(sh('cat "$1"', settingsFile).stdout)).toEqual({ model: 'openai-compatible:start', theme: 'dark' });

    // The next start shows the old value.
    await first.stop();
    sh('rm -f "$1/filler"', dataDir);
    const second = await serve(folder, dataDir, inside);
    const after = await window(second.url);
    await expect.poll(() => theme(after)).toBe('dark');
    const dialogAfter = await openSettings(after);
    expect(await dialogAfter.getByLabel('Model', { exact: true }).inputValue()).toBe('start');
  });
});

/** Why a private mount namespace with a tmpfs cannot be made here, or undefined when it can. */
function namespaceUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'needs Linux mount namespaces';
  if (process.getuid?.() !== 0) return 'needs root to mount a tmpfs in a private mount namespace';
  for (const tool of ['unshare', 'nsenter']) {
    const probe = spawnSync(tool, ['--version']);
    if (probe.error) return `${tool} is missing: ${probe.error.message}`;
  }
  const probe = spawnSync('unshare', ['-m', '--propagation', 'private', 'true']);
  if (probe.status !== 0) return `unshare -m is not usable here: ${probe.stderr.toString().trim()}`;
  return undefined;
}
