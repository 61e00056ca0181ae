#!/usr/bin/env node
// `npm start`: builds when out/ is missing, then runs the desktop app with the Electron binary
// of node_modules/electron. It never triggers Electron's download: without the binary it says
// so and points to `deepdesk serve`, which needs no Electron.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

const PLATFORM_BINARY = { darwin: 'Electron.app/Contents/MacOS/Electron', mas: 'Electron.app/Contents/MacOS/Electron', win32: 'electron.exe' };

/** The binary `require('electron')` would return, or undefined when it is not on disk. */
function electronBinary() {
  const dir = join(root, 'node_modules', 'electron');
  const pathFile = join(dir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : '';
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const candidate = override
    ? join(override, relative || PLATFORM_BINARY[process.platform] || 'electron')
    : relative
      ? join(dir, 'dist', relative)
      : undefined;
  return candidate !== undefined && existsSync(candidate) ? candidate : undefined;
}

function built() {
  return ['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html'].every((file) => existsSync(join(root, file)));
}

function build() {
  const npmCli = process.env.npm_execpath;
  const result = npmCli
    ? spawnSync(process.execPath, [npmCli, 'run', 'build'], { cwd: root, stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  return result.status === 0;
}

const binary = electronBinary();
if (binary === undefined) {
  console.error(
    'deepdesk: the Electron binary is not available on this machine (node_modules/electron has no downloaded build).\n' +
      'Download it with `node node_modules/electron/install.js` where the network allows, or use the app in a browser instead:\n' +
      '  npx deepdesk serve',
  );
  process.exit(1);
}

if (!built()) {
  console.error('deepdesk: building first (out/ is missing)…');
  if (!build()) {
    console.error('deepdesk: the build failed');
    process.exit(1);
  }
}

const env = { ...process.env };
delete env.ELECTRON_RUN_AS_NODE;
// npm runs scripts in the package folder; relative --folder arguments mean the caller's folder.
const child = spawn(binary, [root, ...process.argv.slice(2)], { cwd: process.env.INIT_CWD || process.cwd(), env, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (child.exitCode === null) child.kill(signal);
  });
}
child.on('error', (err) => {
  console.error(`deepdesk: could not start Electron: ${err.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
