// The ripgrep the app ships is the one grep and glob use: no system `rg` needed, the
// packaged app runs it from outside the asar, and packaging keeps it there.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledRipgrep, findRipgrep, ripgrepOnPath } from './ripgrep-binary';
import { outsideAsar } from '../../process/built-program';

const repo = path.resolve(import.meta.dirname, '../../../..');
// @vscode/ripgrep 1.18's optional per-platform packages.
const SHIPPED = ['darwin-x64', 'darwin-arm64', 'win32-x64', 'win32-arm64', 'win32-ia32', 'linux-x64', 'linux-arm64', 'linux-arm', 'linux-ppc64', 'linux-riscv64', 'linux-s390x', 'linux-ia32'];
const shipsHere = SHIPPED.includes(`${process.platform}-${process.arch}`);

describe('the bundled ripgrep', () => {
  it.runIf(shipsHere)('is installed with the app for this platform and runs', async () => {
    const rg = await bundledRipgrep();
    expect(rg).not.toBeNull();
    expect(rg).toContain(path.join('node_modules', '@vscode', `ripgrep-${process.platform}-${process.arch}`));
    const version = spawnSync(rg!, ['--version'], { encoding: 'utf8' });
    expect(version.status).toBe(0);
    expect(version.stdout).toMatch(/^ripgrep \d+\.\d+/);
  });

  it.runIf(shipsHere)('is the default even when another rg comes first on PATH', async () => {
    const tools = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-fake-rg-'));
    const saved = process.env.PATH;
    try {
      const fake = path.join(tools, process.platform === 'win32' ? 'rg.exe' : 'rg');
      fs.writeFileSync(fake, '#!/bin/sh\nexit 2\n', { mode: 0o755 });
      process.env.PATH = `${tools}${path.delimiter}${saved ?? ''}`;
      expect(await ripgrepOnPath()).toBe(fake);
      expect(await findRipgrep()).toBe(await bundledRipgrep());
    } finally {
      process.env.PATH = saved;
      fs.rmSync(tools, { recursive: true, force: true });
    }
  });
});

describe('ripgrep inside a packaged app', () => {
  it('runs from app.asar.unpacked, where a program can be executed', () => {
    expect(outsideAsar('/opt/Deepdesk/resources/app.asar/node_modules/@vscode/ripgrep-linux-x64/bin/rg')).toBe(
      '/opt/Deepdesk/resources/app.asar.unpacked/node_modules/@vscode/ripgrep-linux-x64/bin/rg',
    );
    expect(outsideAsar('C:\\Program Files\\Deepdesk\\resources\\app.asar\\node_modules\\@vscode\\ripgrep-win32-x64\\bin\\rg.exe')).toBe(
      'C:\\Program Files\\Deepdesk\\resources\\app.asar.unpacked\\node_modules\\@vscode\\ripgrep-win32-x64\\bin\\rg.exe',
    );
  });

  it('leaves other paths alone', () => {
    for (const p of [
      '/work/node_modules/@vscode/ripgrep-linux-x64/bin/rg',
      '/opt/Deepdesk/resources/app.asar.unpacked/node_modules/@vscode/ripgrep-linux-x64/bin/rg',
      '/home/me/my.asarchive/rg',
    ]) {
      expect(outsideAsar(p)).toBe(p);
    }
  });

  it('electron-builder.yml unpacks the binary from the asar', () => {
    const yml = fs.readFileSync(path.join(repo, 'electron-builder.yml'), 'utf8');
    const block = /^asarUnpack:\n((?:\s+-\s+.+\n)+)/m.exec(yml);
    expect(block).not.toBeNull();
    const globs = block![1]!.split('\n').map((l) => l.replace(/^\s+-\s+/, '').trim()).filter(Boolean);
    for (const platform of SHIPPED) {
      const binary = `node_modules/@vscode/ripgrep-${platform}/bin/${platform.startsWith('win32') ? 'rg.exe' : 'rg'}`;
      expect(globs.some((g) => path.posix.matchesGlob(binary, g)), binary).toBe(true);
    }
  });
});
