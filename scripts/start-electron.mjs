#!/usr/bin/env node
// `npm start`: the desktop app, always ending in a usable window. Builds when out/ is missing;
// fetches Electron's binary on first use with Electron's own installer (what
// `require('electron')` runs), then starts it. Where Electron cannot open a window (no display,
// the binary cannot be downloaded, it does not start, its sandbox aborts), one line says why and the same window
// is served as `deepdesk serve` does: opened in the default browser when there is a desktop,
// otherwise its link is printed. Arguments: `[--folder DIR | DIR] [--data-dir DIR]`; without a
// folder both open on the window's `Open folder` screen (never on the folder npm runs in, this
// checkout).

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const electronDir = join(root, 'node_modules', 'electron');
// npm runs scripts in the package folder; relative paths mean the caller's folder.
const callerCwd = process.env.INIT_CWD || process.cwd();
const userArgs = process.argv.slice(2);

const PLATFORM_BINARY = { darwin: 'Electron.app/Contents/MacOS/Electron', mas: 'Electron.app/Contents/MacOS/Electron', win32: 'electron.exe' };
// The dynamic loader's status when a shared library is missing.
const LOADER_FAILED = 127;
// Chromium's abort (SIGTRAP) when no sandbox can start: Ubuntu 24.04's AppArmor keeps the
// unprivileged user namespaces of its first choice from Electron, and the SUID helper of an
// npm-installed Electron (chrome-sandbox) is not setuid root.
const SANDBOX_ABORT = /The SUID sandbox helper binary was found, but is not configured correctly|No usable sandbox!/;
const STDERR_KEPT = 64 * 1024;

function say(line) {
  process.stderr.write(`deepdesk: ${line}\n`);
}

/** The binary `require('electron')` returns, or undefined when it is not on disk. */
function electronBinary() {
  const pathFile = join(electronDir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : '';
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const candidate = override
    ? join(override, relative || PLATFORM_BINARY[process.platform] || 'electron')
    : relative
      ? join(electronDir, 'dist', relative)
      : undefined;
  return candidate !== undefined && existsSync(candidate) ? candidate : undefined;
}

/** Electron's first-use download (node_modules/electron/install.js); its stack trace stays hidden. */
function downloadElectron() {
  say("downloading Electron's binary (first start only)…");
  const result = spawnSync(process.execPath, [join(electronDir, 'install.js')], { cwd: electronDir, stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' });
  if (result.status === 0) return { ok: true };
  const lines = `${result.stderr ?? ''}${result.error ? result.error.message : ''}`.split('\n').map((l) => l.trim());
  const reason = lines.find((l) => l !== '' && !l.startsWith('at ')) ?? `the installer exited with ${result.status}`;
  return { ok: false, reason };
}

/** Whether a window can be shown here: a graphical session on Linux and the BSDs; always elsewhere. */
function hasDisplay() {
  if (process.platform === 'darwin' || process.platform === 'win32') return true;
  return Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

function built() {
  return ['out/main/index.js', 'out/main/cli.js', 'out/preload/index.cjs', 'out/renderer/index.html'].every((file) => existsSync(join(root, file)));
}

function build() {
  const npmCli = process.env.npm_execpath;
  const result = npmCli
    ? spawnSync(process.execPath, [npmCli, 'run', 'build'], { cwd: root, stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  return result.status === 0;
}

/** Runs `child` to its end, passing SIGINT/SIGTERM on; resolves to its exit status. */
function supervise(child) {
  const forward = (signal) => {
    if (child.exitCode === null) child.kill(signal);
  };
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, forward);
  return new Promise((resolveExit) => {
    child.on('error', (err) => resolveExit({ error: err }));
    child.on('exit', (code, signal) => resolveExit({ code: code ?? (signal ? 1 : 0), signal }));
  }).finally(() => {
    for (const signal of ['SIGINT', 'SIGTERM']) process.off(signal, forward);
  });
}

/** `serve` arguments for the desktop ones: a bare folder becomes --folder; Electron switches are dropped. */
function serveArgs(args) {
  const out = [];
  let folderGiven = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (flag === '--folder' || flag === '--data-dir') {
      const value = inline ?? args[++i];
      if (value === undefined || value === '') continue;
      if (flag === '--folder') folderGiven = true;
      out.push(flag, resolve(callerCwd, value));
    } else if (arg !== '--' && !arg.startsWith('-') && arg !== '' && !folderGiven) {
      folderGiven = true;
      out.push('--folder', resolve(callerCwd, arg));
    }
  }
  return out;
}

/** Opens `url` with $BROWSER (`none` opens nothing) or the desktop's opener; false when there is none. */
function openInBrowser(url) {
  const chosen = process.env.BROWSER;
  if (chosen === 'none') return false;
  const [command, args] = chosen
    ? [chosen, [url]]
    : process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true, windowsHide: true });
    child.on('error', () => say(`could not open a browser (${command}); open the link above`));
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/** `deepdesk serve` for the same folder and data; the link is opened when there is a desktop. */
async function serveInstead(reason) {
  say(`${reason}; serving the same window for a browser instead (as \`deepdesk serve\` does).`);
  const child = spawn(process.execPath, [join(root, 'bin', 'deepdesk.mjs'), 'serve', ...serveArgs(userArgs)], {
    cwd: callerCwd,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let pending = '';
  let opened = false;
  child.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    if (opened) return;
    pending += chunk.toString('utf8');
    const match = /Deepdesk is running at (\S+)/.exec(pending);
    if (match === null) return;
    opened = true;
    if (hasDisplay() && openInBrowser(match[1])) say('opened it in your browser');
  });
  const outcome = await supervise(child);
  if (outcome.error) {
    say(`could not start \`deepdesk serve\`: ${outcome.error.message}`);
    return 1;
  }
  return outcome.code;
}

async function main() {
  if (!built()) {
    say('building first (out/ is missing)…');
    if (!build()) {
      say('the build failed (see above)');
      return 1;
    }
  }
  if (!hasDisplay()) return serveInstead('no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset)');

  // Chromium will not run as root with its sandbox, and the window is not worth running without it.
  if (process.platform === 'linux' && process.getuid?.() === 0) return serveInstead('Electron does not run as root (its sandbox needs an ordinary user)');

  let binary = electronBinary();
  if (binary === undefined) {
    const download = downloadElectron();
    if (!download.ok) return serveInstead(`Electron's binary could not be downloaded (${download.reason})`);
    binary = electronBinary();
    if (binary === undefined) return serveInstead("Electron's installer finished but its binary is not there");
  }

  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE;
  // stderr is passed on as it comes, and its end kept to tell a sandbox abort.
  const child = spawn(binary, [root, ...userArgs], { cwd: callerCwd, env, stdio: ['inherit', 'inherit', 'pipe'] });
  let stderrTail = '';
  child.stderr.on('data', (chunk) => {
    process.stderr.write(chunk);
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-STDERR_KEPT);
  });
  const outcome = await supervise(child);
  if (outcome.error) return serveInstead(`Electron could not be started (${outcome.error.message})`);
  if (outcome.code === LOADER_FAILED) return serveInstead('Electron could not start (a system library it needs is missing; see above)');
  const sandboxAborted = process.platform === 'linux' && (outcome.signal === 'SIGTRAP' || (outcome.code !== 0 && SANDBOX_ABORT.test(stderrTail)));
  if (sandboxAborted) {
    say(
      `to open the window instead: \`sudo chown root ${join(electronDir, 'dist', 'chrome-sandbox')} && sudo chmod 4755 ${join(electronDir, 'dist', 'chrome-sandbox')}\`, ` +
        'or allow Electron user namespaces with an AppArmor profile (README › Packaging).',
    );
    return serveInstead("Electron's sandbox cannot start on this system (Chromium aborted: its SUID helper is not set up and user namespaces are restricted)");
  }
  return outcome.code;
}

process.exitCode = await main();
