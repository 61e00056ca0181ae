// Where Deepdesk's own programs are found: out/native/ of the package the code runs from, never
// in a folder above it, and outside the asar archive of a packaged app.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { builtProgram, outsideAsar } from './built-program';

const repo = path.resolve(import.meta.dirname, '../../..');
let dir: string | undefined;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function program(at: string, mode = 0o755): void {
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.writeFileSync(at, '#!/bin/sh\n', { mode });
}

describe('builtProgram', () => {
  it.runIf(process.platform === 'linux')("finds this checkout's overlay-exec, built by npm run build (or the test set-up)", () => {
    expect(builtProgram('overlay-exec')).toBe(path.join(repo, 'out', 'native', 'overlay-exec'));
  });

  it('looks in the package the code sits in (out/main/chunks of a build too), never above it', () => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-built-')));
    const pkg = path.join(dir, 'app');
    const chunks = path.join(pkg, 'out', 'main', 'chunks');
    fs.mkdirSync(chunks, { recursive: true });
    // Above the package: a program of that name is not ours.
    program(path.join(dir, 'out', 'native', 'tool'));
    expect(builtProgram('tool', chunks)).toBeUndefined();
    fs.writeFileSync(path.join(pkg, 'package.json'), '{}');
    expect(builtProgram('tool', chunks)).toBeUndefined();
    program(path.join(pkg, 'out', 'native', 'tool'));
    expect(builtProgram('tool', chunks)).toBe(path.join(pkg, 'out', 'native', 'tool'));
    // Not executable, or not a file: not run.
    fs.chmodSync(path.join(pkg, 'out', 'native', 'tool'), 0o644);
    expect(builtProgram('tool', chunks)).toBeUndefined();
    fs.mkdirSync(path.join(pkg, 'out', 'native', 'folder'));
    expect(builtProgram('folder', chunks)).toBeUndefined();
  });

  it('maps a path inside app.asar to app.asar.unpacked, where electron-builder.yml unpacks out/native/', () => {
    expect(outsideAsar('/opt/Deepdesk/resources/app.asar/out/native/overlay-exec')).toBe('/opt/Deepdesk/resources/app.asar.unpacked/out/native/overlay-exec');
    expect(outsideAsar('/home/me/deepdesk/out/native/overlay-exec')).toBe('/home/me/deepdesk/out/native/overlay-exec');
    expect(fs.readFileSync(path.join(repo, 'electron-builder.yml'), 'utf8')).toMatch(/asarUnpack:\n(?: {2}- .*\n)*? {2}- out\/native\/\*\*\n/);
  });
});
