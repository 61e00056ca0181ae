// `npm start` where Electron cannot open a window: one line says why, then the same window is
// served as `deepdesk serve` does (opened in the browser when there is a desktop, its link
// printed otherwise), no stack trace, and stopping it stops the server.
//
// The download runs Electron's real installer against a mirror that refuses connections and
// an empty cache, so no machine downloads anything here (this one has no network at all).
// Electron does not run as root, so as root that test runs as `nobody`, an ordinary user.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeDataDir } from '../src-main/app/host/testing/remove-data-dir';

const repo = path.resolve(import.meta.dirname, '..');
const script = path.join(repo, 'scripts', 'start-electron.mjs');
const electronInstalled = fs.existsSync(path.join(repo, 'node_modules', 'electron', 'dist'));

interface Started {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  exited: Promise<number | null>;
}

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;

function tempDir(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `deepdesk-start-${name}-`));
  // Usable by `nobody` too.
  fs.chmodSync(dir, 0o777);
  // A data folder's agent host (the served window's) may still be winding down in it.
  cleanups.push(() => (name === 'data' ? removeDataDir(dir) : fs.rmSync(dir, { recursive: true, force: true })));
  return dir;
}

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A $BROWSER that records the URL it is asked to open. */
function recordingBrowser(): { command: string; opened: () => string } {
  const dir = tempDir('browser');
  const log = path.join(dir, 'opened.txt');
  const command = path.join(dir, 'browser.sh');
  fs.writeFileSync(command, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${log}'\n`, { mode: 0o755 });
  return { command, opened: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '') };
}

async function start(env: NodeJS.ProcessEnv, args: string[], user: { uid?: number; gid?: number } = {}): Promise<Started> {
  const child = spawn(process.execPath, [script, ...args], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'], ...user });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = /^Deepdesk is running at (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(stdout);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) => reject(new Error(`start-electron exited with ${code} before serving:\n${stderr}${stdout}`)));
  });
  return { child, url, stderr: () => stderr, exited };
}

function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: tempDir('home'), CI: 'true' };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  delete env.INIT_CWD;
  delete env.ELECTRON_OVERRIDE_DIST_PATH;
  return env;
}

/** The link signs in (a cookie) and the window's page loads with it. */
async function expectServesTheWindow(url: string): Promise<void> {
  const signIn = await fetch(url, { redirect: 'manual' });
  expect(signIn.status).toBe(302);
  const cookie = signIn.headers.get('set-cookie')?.split(';')[0];
  expect(cookie).toBeTruthy();
  const page = await fetch(new URL(signIn.headers.get('location')!, url), { headers: { cookie: cookie! } });
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('<div id="root"');
}

async function expectStopsCleanly(started: Started): Promise<void> {
  started.child.kill('SIGTERM');
  expect(await started.exited).toBe(0);
  const { port } = new URL(started.url);
  await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
}

function expectOneReasonNoStack(stderr: string, reason: RegExp): void {
  const reasons = stderr.split('\n').filter((l) => l.includes('serving the same window for a browser instead'));
  expect(reasons, stderr).toHaveLength(1);
  expect(reasons[0]).toMatch(reason);
  expect(stderr).not.toMatch(/^\s+at /m);
  expect(stderr).not.toMatch(/Error:.*\n\s+at /);
}

describe('npm start where Electron cannot open a window', () => {
  it.skipIf(electronInstalled)(
    'without a downloadable Electron binary: says why in one line, serves the window and opens it in the browser',
    async () => {
      const folder = tempDir('folder');
      const dataDir = tempDir('data');
      const browser = recordingBrowser();
      const env = {
        ...baseEnv(),
        DISPLAY: ':99',
        BROWSER: browser.command,
        ELECTRON_MIRROR: `http://127.0.0.1:${await closedPort()}/`,
        electron_config_cache: tempDir('electron-cache'),
      };
      const started = await start(env, ['--folder', folder, '--data-dir', dataDir], asRoot ? { uid: NOBODY, gid: NOBODY } : {});
      expectOneReasonNoStack(started.stderr(), /^deepdesk: Electron's binary could not be downloaded \(.+\); serving the same window for a browser instead/);
      await expectServesTheWindow(started.url);
      await expect.poll(browser.opened, { timeout: 60_000 }).toBe(`${started.url}\n`);
      expect(fs.existsSync(path.join(dataDir, 'deepdesk.db'))).toBe(true);
      await expectStopsCleanly(started);
    },
  );

  it.runIf(process.platform === 'linux')(
    "when Chromium aborts on its SUID sandbox (Ubuntu 24.04): passes its line on, says why and how to fix it, and serves the window",
    async () => {
      // An Electron that does what Electron 45 does there: the SUID helper's complaint, then SIGTRAP.
      const dist = tempDir('electron-dist');
      const complaint =
        `[4242:1123/101010.000:FATAL:setuid_sandbox_host.cc(163)] The SUID sandbox helper binary was found, but is not configured correctly. ` +
        `Rather than run without sandboxing I am aborting now. You need to make sure that ${dist}/chrome-sandbox is owned by root and has mode 4755.`;
      fs.writeFileSync(path.join(dist, 'electron'), `#!/bin/sh\necho '${complaint}' >&2\nkill -TRAP $$\n`, { mode: 0o755 });
      const browser = recordingBrowser();
      const env = { ...baseEnv(), DISPLAY: ':99', BROWSER: browser.command, ELECTRON_OVERRIDE_DIST_PATH: dist };
      const dataDir = tempDir('data');
      const started = await start(env, ['--folder', tempDir('folder'), '--data-dir', dataDir], asRoot ? { uid: NOBODY, gid: NOBODY } : {});
      expectOneReasonNoStack(started.stderr(), /^deepdesk: Electron's sandbox cannot start on this system \(.+\); serving the same window/);
      expect(started.stderr()).toContain('The SUID sandbox helper binary was found, but is not configured correctly');
      expect(started.stderr()).toMatch(/sudo chmod 4755 .*chrome-sandbox/);
      await expectServesTheWindow(started.url);
      await expect.poll(browser.opened, { timeout: 60_000 }).toBe(`${started.url}\n`);
      expect(fs.existsSync(path.join(dataDir, 'deepdesk.db'))).toBe(true);
      await expectStopsCleanly(started);
    },
  );

  it.runIf(process.platform === 'linux' && asRoot)('as root: says Electron does not run as root and serves the window instead of downloading', async () => {
    const dataDir = tempDir('data');
    const env = { ...baseEnv(), DISPLAY: ':99', BROWSER: 'none', ELECTRON_MIRROR: `http://127.0.0.1:${await closedPort()}/` };
    const started = await start(env, ['--folder', tempDir('folder'), '--data-dir', dataDir]);
    expectOneReasonNoStack(started.stderr(), /^deepdesk: Electron does not run as root \(its sandbox needs an ordinary user\); serving/);
    expect(started.stderr()).not.toContain('downloading');
    await expectServesTheWindow(started.url);
    await expectStopsCleanly(started);
  });

  it.runIf(process.platform === 'linux')('without a display: says so, downloads nothing, prints the link and opens no browser', async () => {
    const folder = tempDir('folder');
    const dataDir = tempDir('data');
    const browser = recordingBrowser();
    // A bare folder argument, relative to the caller's folder (npm's INIT_CWD).
    const env = { ...baseEnv(), BROWSER: browser.command, INIT_CWD: path.dirname(folder), ELECTRON_MIRROR: `http://127.0.0.1:${await closedPort()}/` };
    const started = await start(env, [path.basename(folder), '--data-dir', dataDir]);
    expectOneReasonNoStack(started.stderr(), /^deepdesk: no display to open a window on \(DISPLAY and WAYLAND_DISPLAY are unset\); serving/);
    expect(started.stderr()).not.toContain('downloading');
    await expectServesTheWindow(started.url);
    expect(fs.existsSync(path.join(dataDir, 'deepdesk.db'))).toBe(true);
    await expectStopsCleanly(started);
    expect(browser.opened()).toBe('');
  });
});
