// The desktop app itself: the built app (out/main/index.js) in Electron, driven by Playwright's
// Electron support, against the scripted model server. It opens on a folder, a message
// round-trips, an approval is answered, the terminal shows the command, and quitting leaves
// no process behind. Where Electron cannot run (no binary: `npm start` downloads it on first
// use; no display) the suite is skipped and says why in the output.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
    await page.getByRole('textbox', { name: 'Message' }).waitFor({ timeout: 30_000 });
    await page.getByRole('region', { name: 'Files' }).getByRole('treeitem', { name: /README\.md/ }).waitFor({ timeout: 15_000 });

    await page.getByRole('textbox', { name: 'Message' }).fill('Run the greeting');
    await page.getByRole('button', { name: 'Send' }).click();
    const approval = page.getByRole('group', { name: 'Approve tool call' }).or(page.getByRole('dialog', { name: 'Approve tool call' }));
    await approval.waitFor({ timeout: 20_000 });
    expect(await approval.innerText()).toContain('echo electron-says-$((6*7))');
    await approval.getByRole('button', { name: 'Approve', exact: true }).click();

    const terminal = page.getByRole('region', { name: 'Terminal' });
    await expect.poll(() => terminal.innerText(), { timeout: 20_000 }).toContain('electron-says-42');
    const conversation = page.getByRole('log', { name: 'Conversation' });
    await conversation.getByText('Ran it in the terminal.').waitFor({ timeout: 20_000 });
    expect(await conversation.innerText()).toContain('Run the greeting');
    expect(model.requests[0]!.messages.at(-1)).toMatchObject({ role: 'user', content: 'Run the greeting' });
    await screenshot(page, 'electron-window');

    const main = app.process().pid!;
    const tree = [main, ...descendants(main)];
    expect(tree.length).toBeGreaterThan(1);
    await app.close();
    await expect.poll(() => tree.filter(alive), { timeout: 15_000 }).toEqual([]);
  });
});
