// issue 9 §7: the check-then-open race. Another process swaps a folder or a file for a
// symlink to the outside, thousands of times, while the backend reads and writes through
// that path: not one byte from outside may be returned, and nothing may land outside.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { FilesystemBackend } from './filesystem';

const SECRET = 'OUTSIDE-SECRET';
const INSIDE = 'inside content';
const ROUNDS = 4000;

let root: string;
let outside: string;
let swapper: ChildProcess | undefined;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'deepdesk-race-'));
  outside = mkdtempSync(join(tmpdir(), 'deepdesk-race-out-'));
  writeFileSync(join(outside, 'f.txt'), SECRET);
});
afterEach(async () => {
  if (swapper && swapper.exitCode === null) {
    const gone = new Promise((done) => swapper!.once('exit', done));
    swapper.kill('SIGKILL');
    await gone;
  }
  swapper = undefined;
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

/** A separate process that swaps `name` between what is there now and `alt`, as fast as it can. */
async function startSwapping(name: string, alt: string): Promise<void> {
  const script = `
    const fs = require('node:fs');
    const [a, b, parked] = process.argv.slice(1);
    process.stdout.write('ready\\n');
    for (;;) {
      try { fs.renameSync(a, parked); fs.renameSync(b, a); fs.renameSync(a, b); fs.renameSync(parked, a); } catch {}
    }`;
  swapper = spawn(process.execPath, ['-e', script, join(root, name), join(root, alt), join(root, `${name}.parked`)], { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise<void>((done) => swapper!.stdout!.once('data', () => done()));
}

it('reads through a folder swapped for a link to the outside never return outside bytes', async () => {
  mkdirSync(join(root, 'd'));
  writeFileSync(join(root, 'd', 'f.txt'), INSIDE);
  const { symlinkSync } = await import('node:fs');
  symlinkSync(outside, join(root, 'd_link'));
  const fs = new FilesystemBackend({ rootDir: root });
  await startSwapping('d', 'd_link');
  let leaked = 0;
  let insideReads = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const results = await Promise.all([
      fs.read('/d/f.txt').then((r) => r.fileData?.content ?? r.error ?? ''),
      fs.readRaw('/d/f.txt').then((r) => (r.data ? Buffer.from(r.data).toString() : (r.error ?? ''))),
      fs.downloadFiles(['/d/f.txt']).then(([r]) => (r?.content ? Buffer.from(r.content).toString() : '')),
    ]);
    for (const text of results) {
      if (text.includes(SECRET)) leaked++;
      if (text.includes(INSIDE)) insideReads++;
    }
  }
  expect(leaked).toBe(0);
  expect(insideReads).toBeGreaterThan(0);
}, 120_000);

it('reads of a file swapped for a link to the outside never return outside bytes', async () => {
  writeFileSync(join(root, 'f.txt'), INSIDE);
  const { symlinkSync } = await import('node:fs');
  symlinkSync(join(outside, 'f.txt'), join(root, 'f_link'));
  const fs = new FilesystemBackend({ rootDir: root });
  await startSwapping('f.txt', 'f_link');
  let leaked = 0;
  let insideReads = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const [a, b] = await Promise.all([fs.read('/f.txt'), fs.readRaw('/f.txt')]);
    for (const text of [a.fileData?.content ?? '', b.data ? Buffer.from(b.data).toString() : '']) {
      if (text.includes(SECRET)) leaked++;
      if (text.includes(INSIDE)) insideReads++;
    }
  }
  expect(leaked).toBe(0);
  expect(insideReads).toBeGreaterThan(0);
}, 120_000);

it('writes into a folder swapped for a link to the outside never land outside', async () => {
  mkdirSync(join(root, 'd'));
  const { symlinkSync } = await import('node:fs');
  symlinkSync(outside, join(root, 'd_link'));
  const fs = new FilesystemBackend({ rootDir: root });
  await startSwapping('d', 'd_link');
  let written = 0;
  for (let i = 0; i < ROUNDS / 4; i++) {
    const r = await fs.write(`/d/new-${i}.txt`, 'agent output\n');
    if (r.error === undefined) written++;
  }
  swapper!.kill('SIGKILL');
  expect(readdirSync(outside).sort()).toEqual(['f.txt']);
  expect(written).toBeGreaterThan(0);
}, 120_000);

it('the Node grep through a folder swapped for a link to the outside never returns outside lines', async () => {
  mkdirSync(join(root, 'd'));
  writeFileSync(join(root, 'd', 'f.txt'), INSIDE);
  const { symlinkSync } = await import('node:fs');
  symlinkSync(outside, join(root, 'd_link'));
  const fs = new FilesystemBackend({ rootDir: root, ripgrepPath: null });
  await startSwapping('d', 'd_link');
  let leaked = 0;
  let found = 0;
  for (let i = 0; i < ROUNDS / 2; i++) {
    const [tree, file, file2] = await Promise.all([fs.grep('e', '/'), fs.grep('e', '/d/f.txt'), fs.grep('e', '/d/f.txt')]);
    for (const m of [...(tree.matches ?? []), ...(file.matches ?? []), ...(file2.matches ?? [])]) {
      if (m.text.includes(SECRET)) leaked++;
      else found++;
    }
  }
  expect(leaked).toBe(0);
  expect(found).toBeGreaterThan(0);
}, 120_000);
