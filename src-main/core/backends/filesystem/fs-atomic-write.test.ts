import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotADirectoryError, OutsideRootError, atomicWriteFile, makeDirsInside, tempNameFor } from './fs-atomic-write';

let dir = '';
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fsb-atomic-')));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('atomicWriteFile', () => {
  it('writes the bytes and applies the given mode', async () => {
    const file = path.join(dir, 'f.sh');
    await atomicWriteFile(file, Buffer.from('#!/bin/sh\n'), 0o100750);
    expect(fs.readFileSync(file, 'utf8')).toBe('#!/bin/sh\n');
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o750);
    expect(fs.readdirSync(dir)).toEqual(['f.sh']);
  });

  it('removes the temp file when the rename fails', async () => {
    const target = path.join(dir, 'occupied');
    fs.mkdirSync(target);
    fs.writeFileSync(path.join(target, 'inner.txt'), 'x');
    await expect(atomicWriteFile(target, Buffer.from('data'))).rejects.toThrow();
    expect(fs.readdirSync(dir)).toEqual(['occupied']);
    expect(fs.readFileSync(path.join(target, 'inner.txt'), 'utf8')).toBe('x');
  });

  it('keeps temp names short and hidden next to the target', () => {
    const long = path.join(dir, 'n'.repeat(250));
    const temp = tempNameFor(long);
    expect(path.dirname(temp)).toBe(dir);
    expect(path.basename(temp).startsWith('.')).toBe(true);
    expect(path.basename(temp).length).toBeLessThan(255);
  });
});

describe('makeDirsInside', () => {
  it('creates every missing folder', async () => {
    await makeDirsInside(dir, path.join(dir, 'a', 'b', 'c'));
    expect(fs.statSync(path.join(dir, 'a', 'b', 'c')).isDirectory()).toBe(true);
  });

  it('names the file that blocks a folder', async () => {
    fs.writeFileSync(path.join(dir, 'file'), 'x');
    const err = await makeDirsInside(dir, path.join(dir, 'file', 'sub', 'deeper')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotADirectoryError);
    expect((err as NotADirectoryError).real).toBe(path.join(dir, 'file'));
  });

  it.runIf(process.platform !== 'win32')('refuses a folder that resolves outside the root', async () => {
    const root = path.join(dir, 'root');
    const outside = path.join(dir, 'outside');
    fs.mkdirSync(root);
    fs.mkdirSync(outside);
    fs.symlinkSync(outside, path.join(root, 'link'));
    await expect(makeDirsInside(root, path.join(root, 'link', 'new'))).rejects.toBeInstanceOf(OutsideRootError);
    expect(fs.readdirSync(outside)).toEqual([]);
  });
});
