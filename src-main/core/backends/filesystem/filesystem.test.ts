// FilesystemBackend specifics: containment through symlinks, atomic writes that keep the
// file's mode and conventions, binary reads, stat versions, transfers, non-virtual mode.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FilesystemBackend } from './filesystem';
import { messages } from '../messages';

const isRoot = process.getuid?.() === 0;
const posix = process.platform !== 'win32';

let base = '';
let root = '';
let outside = '';
let be: FilesystemBackend;

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fsb-')));
  root = path.join(base, 'project');
  outside = path.join(base, 'outside');
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'top secret\n');
  be = new FilesystemBackend({ rootDir: root, ripgrepPath: null });
});
afterEach(() => {
  fs.rmSync(base, { recursive: true, force: true });
});

const put = (rel: string, content: string | Uint8Array) => {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
};
const bytesOf = (rel: string) => fs.readFileSync(path.join(root, rel));
const textOf = (rel: string) => bytesOf(rel).toString('utf8');

describe('construction', () => {
  it('exposes the real, resolved root', () => {
    if (!posix) return;
    fs.symlinkSync(root, path.join(base, 'alias'));
    const viaLink = new FilesystemBackend({ rootDir: path.join(base, 'alias', '.'), ripgrepPath: null });
    expect(viaLink.rootDir).toBe(root);
    expect(viaLink.virtualMode).toBe(true);
  });
});

describe.runIf(posix)('containment', () => {
  beforeEach(() => {
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'leak.txt'));
    fs.symlinkSync(outside, path.join(root, 'outdir'));
    fs.symlinkSync(path.join(outside, 'nothing-yet.txt'), path.join(root, 'dangling'));
    put('inside/real.txt', 'inside\n');
    fs.symlinkSync(path.join(root, 'inside', 'real.txt'), path.join(root, 'alias.txt'));
    fs.symlinkSync('inside', path.join(root, 'alias-dir'));
  });

  it('refuses reads through a symlink that points outside', async () => {
    expect((await be.read('/leak.txt')).error).toBe(messages.outsideRoot('/leak.txt'));
    expect((await be.readRaw('/leak.txt')).error).toBe(messages.outsideRoot('/leak.txt'));
    expect((await be.read('/outdir/secret.txt')).error).toBe(messages.outsideRoot('/outdir/secret.txt'));
    expect((await be.ls('/outdir')).error).toBe(messages.outsideRoot('/outdir'));
    expect((await be.stat('/leak.txt')).error).toBe(messages.outsideRoot('/leak.txt'));
    expect((await be.grep('secret', '/outdir')).error).toBe(messages.outsideRoot('/outdir'));
    expect((await be.glob('*', '/outdir')).error).toBe(messages.outsideRoot('/outdir'));
    expect(await be.downloadFiles(['/leak.txt'])).toEqual([{ path: '/leak.txt', error: 'invalid_path' }]);
  });

  it('refuses writes through a symlinked folder or file that points outside', async () => {
    expect((await be.write('/outdir/new.txt', 'x')).error).toBe(messages.outsideRoot('/outdir/new.txt'));
    expect((await be.write('/leak.txt', 'overwritten')).error).toBe(messages.outsideRoot('/leak.txt'));
    expect((await be.edit('/leak.txt', 'top', 'bottom')).error).toBe(messages.outsideRoot('/leak.txt'));
    expect((await be.uploadFiles([{ path: '/outdir/up.bin', content: new Uint8Array([1]) }]))[0]?.error).toBe('invalid_path');
    expect(fs.readdirSync(outside)).toEqual(['secret.txt']);
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });

  it('refuses a new file whose missing parents sit under a symlink to outside', async () => {
    expect((await be.write('/outdir/a/b/new.txt', 'x')).error).toBe(messages.outsideRoot('/outdir/a/b/new.txt'));
    expect(fs.readdirSync(outside)).toEqual(['secret.txt']);
  });

  it('refuses to write through a dangling symlink', async () => {
    expect((await be.write('/dangling', 'x')).error).toBe(messages.outsideRoot('/dangling'));
    expect((await be.write('/dangling/child.txt', 'x')).error).toBe(messages.outsideRoot('/dangling/child.txt'));
    expect(fs.readdirSync(outside)).toEqual(['secret.txt']);
  });

  it('refuses .. before touching the disk', async () => {
    expect((await be.read('/../outside/secret.txt')).error).toMatch(/traversal/);
    expect((await be.write('/inside/../../outside/x.txt', 'x')).error).toMatch(/traversal/);
  });

  it('follows symlinks that stay inside; writing through one keeps the link', async () => {
    expect((await be.read('/alias.txt')).fileData?.content).toBe('inside');
    expect((await be.read('/alias-dir/real.txt')).fileData?.content).toBe('inside');
    expect(await be.write('/alias.txt', 'changed\n')).toEqual({ path: '/alias.txt' });
    expect(fs.lstatSync(path.join(root, 'alias.txt')).isSymbolicLink()).toBe(true);
    expect(textOf('inside/real.txt')).toBe('changed\n');
    expect((await be.ls('/alias-dir')).entries?.map((e) => e.path)).toEqual(['/alias-dir/real.txt']);
    expect(await be.write('/alias-dir/new/deep.txt', 'deep')).toEqual({ path: '/alias-dir/new/deep.txt' });
    expect(textOf('inside/new/deep.txt')).toBe('deep');
  });

  it('deletes a symlink itself, never its target', async () => {
    expect(await be.delete('/leak.txt')).toEqual({ path: '/leak.txt' });
    expect(await be.delete('/outdir')).toEqual({ path: '/outdir' });
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
    expect(fs.existsSync(path.join(root, 'leak.txt'))).toBe(false);
  });

  it('lists links inside as what they point to and never follows one outside', async () => {
    const entries = (await be.ls('/')).entries ?? [];
    const byPath = new Map(entries.map((e) => [e.path, e]));
    expect(byPath.get('/alias-dir/')?.isDir).toBe(true);
    expect(byPath.get('/alias.txt')?.size).toBe(7);
    expect(byPath.get('/outdir')?.isDir).toBeFalsy();
    expect(byPath.has('/outdir/')).toBe(false);
  });

  it('never reports a real path in an error', async () => {
    const errors: string[] = [];
    const collect = (r: { error?: string }) => {
      if (r.error) errors.push(r.error);
    };
    for (const p of ['/leak.txt', '/outdir', '/outdir/secret.txt', '/dangling', '/missing/x.txt', '/inside', '/inside/real.txt/below']) {
      collect(await be.read(p));
      collect(await be.readRaw(p));
      collect(await be.ls(p));
      collect(await be.stat(p));
      collect(await be.write(p, 'x'));
      collect(await be.edit(p, 'a', 'b'));
      collect(await be.grep('x', p));
      collect(await be.glob('*', p));
    }
    collect(await be.delete('/missing/x.txt'));
    collect(await be.delete('/inside'));
    expect(errors.length).toBeGreaterThan(40);
    for (const e of errors) {
      expect(e).not.toContain(base);
      expect(e).not.toContain(os.tmpdir());
    }
  });

  it('grep and glob do not follow symlinks out of the folder', async () => {
    put('visible.txt', 'secret here\n');
    const grep = await be.grep('secret');
    expect(grep.matches?.map((m) => m.path)).toEqual(['/visible.txt']);
    const glob = await be.glob('*.txt');
    expect(glob.matches?.map((m) => m.path)).toEqual(['/inside/real.txt', '/visible.txt']);
  });
});

describe('atomic writes', () => {
  it.runIf(posix)('keeps the mode of the file it replaces (write, edit, upload)', async () => {
    put('run.sh', '#!/bin/sh\necho hi\n');
    fs.chmodSync(path.join(root, 'run.sh'), 0o755);
    expect((await be.write('/run.sh', '#!/bin/sh\necho bye\n')).error).toBeUndefined();
    expect(fs.statSync(path.join(root, 'run.sh')).mode & 0o777).toBe(0o755);
    expect((await be.edit('/run.sh', 'bye', 'again')).error).toBeUndefined();
    expect(fs.statSync(path.join(root, 'run.sh')).mode & 0o777).toBe(0o755);
    await be.uploadFiles([{ path: '/run.sh', content: new TextEncoder().encode('#!/bin/sh\n') }]);
    expect(fs.statSync(path.join(root, 'run.sh')).mode & 0o777).toBe(0o755);
    fs.chmodSync(path.join(root, 'run.sh'), 0o600);
    await be.write('/run.sh', 'private\n');
    expect(fs.statSync(path.join(root, 'run.sh')).mode & 0o777).toBe(0o600);
  });

  it('replaces the file (new inode) and leaves no temp file behind', async () => {
    put('f.txt', 'old\n');
    const before = fs.statSync(path.join(root, 'f.txt')).ino;
    await be.write('/f.txt', 'new\n');
    // Checked before the edit: a freed inode number may be recycled by the next temp file.
    expect(fs.statSync(path.join(root, 'f.txt')).ino).not.toBe(before);
    await be.edit('/f.txt', 'new', 'newer');
    expect(fs.readdirSync(root)).toEqual(['f.txt']);
  });

  it('creates missing parents and refuses to create a folder below a file', async () => {
    expect(await be.write('/a/b/c/d.txt', 'deep')).toEqual({ path: '/a/b/c/d.txt' });
    expect(textOf('a/b/c/d.txt')).toBe('deep');
    put('file', 'x');
    expect((await be.write('/file/below/x.txt', 'y')).error).toBe(messages.notADirectory('/file'));
    expect(textOf('file')).toBe('x');
  });

  it.skipIf(isRoot || !posix)('reports permission denied without leaving temp files', async () => {
    put('locked/f.txt', 'x');
    fs.chmodSync(path.join(root, 'locked'), 0o555);
    try {
      expect((await be.write('/locked/f.txt', 'y')).error).toBe(messages.permissionDenied('/locked/f.txt'));
      expect(fs.readdirSync(path.join(root, 'locked'))).toEqual(['f.txt']);
    } finally {
      fs.chmodSync(path.join(root, 'locked'), 0o755);
    }
  });
});

describe('line endings and BOM', () => {
  it('keeps CRLF and the BOM on write and edit', async () => {
    put('win.txt', '\uFEFFone\r\ntwo\r\n');
    await be.write('/win.txt', 'uno\ndos\n');
    expect(textOf('win.txt')).toBe('\uFEFFuno\r\ndos\r\n');
    expect((await be.edit('/win.txt', 'uno\ndos', 'eins\nzwei\ndrei')).error).toBeUndefined();
    expect(textOf('win.txt')).toBe('\uFEFFeins\r\nzwei\r\ndrei\r\n');
  });

  it('keeps LF for a mixed file and for an LF file', async () => {
    put('mixed.txt', 'a\r\nb\n');
    await be.write('/mixed.txt', 'x\ny\n');
    expect(textOf('mixed.txt')).toBe('x\ny\n');
  });

  it('sees a CRLF that straddles the 1 MiB read chunk', async () => {
    const head = 'x'.repeat(1024 * 1024 - 1);
    put('straddle.txt', `${head}\r\nend\r\n`);
    await be.write('/straddle.txt', 'a\nb\n');
    expect(textOf('straddle.txt')).toBe('a\r\nb\r\n');
  });

  it('refuses to edit binary and non-UTF-8 files', async () => {
    put('blob.bin', Buffer.from([0x61, 0x00, 0x62]));
    put('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    expect((await be.edit('/blob.bin', 'a', 'b')).error).toBe(messages.binaryEdit('/blob.bin'));
    expect((await be.edit('/latin1.txt', 'caf', 'x')).error).toBe(messages.notUtf8('/latin1.txt'));
  });

  // Its speed is the bench's row (`npm run bench -- --only core`: one replacement in a 50 MB file).
  it('edits a 50 MB file', async () => {
    const line = 'the quick brown fox jumps over the lazy dog 0123456789\n';
    const body = line.repeat(Math.ceil((50 * 1024 * 1024) / line.length));
    put('big.txt', body + 'UNIQUE-MARKER\n');
    expect(await be.edit('/big.txt', 'UNIQUE-MARKER', 'replaced')).toEqual({ path: '/big.txt', occurrences: 1 });
    const fd = fs.openSync(path.join(root, 'big.txt'), 'r');
    const tail = Buffer.alloc(9);
    fs.readSync(fd, tail, 0, 9, fs.fstatSync(fd).size - 9);
    fs.closeSync(fd);
    expect(tail.toString()).toBe('replaced\n');
  });
});

describe('read', () => {
  it('reads media and NUL files whole as base64 with a MIME type and timestamps', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
    put('img.png', png);
    put('blob', Buffer.from([1, 2, 0, 3]));
    const img = await be.read('/img.png');
    expect(img.fileData).toMatchObject({ encoding: 'base64', mimeType: 'image/png', content: png.toString('base64') });
    expect(img.fileData?.modifiedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const blob = await be.read('/blob');
    expect(blob.fileData).toMatchObject({ encoding: 'base64', mimeType: 'application/octet-stream', content: 'AQIAAw==' });
  });

  it('refuses a binary file over 10 MB', async () => {
    put('huge.bin', Buffer.from([0]));
    fs.truncateSync(path.join(root, 'huge.bin'), 10 * 1024 * 1024 + 1);
    expect((await be.read('/huge.bin')).error).toBe(messages.binaryTooLarge('/huge.bin', 10 * 1024 * 1024 + 1));
  });

  it('returns text windows with timestamps', async () => {
    put('f.txt', 'a\nb\nc\n');
    const res = await be.read('/f.txt', 1, 1);
    expect(res).toMatchObject({ startLine: 2, endLine: 2, totalLines: 3, nextOffset: 2 });
    expect(res.fileData).toMatchObject({ content: 'b', encoding: 'utf-8' });
    expect(res.fileData?.modifiedAt).toMatch(/^\d{4}-/);
  });

  it('serves repeated windows of a big file from the cached line index', async () => {
    const lines = Array.from({ length: 200_000 }, (_, i) => `line ${i}${i % 7 === 0 ? '\r' : ''}`);
    put('big.txt', lines.join('\n') + '\n');
    for (const offset of [0, 1023, 1024, 99_999, 150_001, 199_990]) {
      const res = await be.read('/big.txt', offset, 20);
      expect(res.totalLines).toBe(200_000);
      expect(res.fileData?.content).toBe(lines.slice(offset, offset + 20).map((l) => l.replace(/\r$/, '')).join('\n'));
    }
    // A changed file is a new version: the index is rebuilt.
    fs.appendFileSync(path.join(root, 'big.txt'), 'extra\n');
    expect((await be.read('/big.txt', 200_000, 5)).fileData?.content).toBe('extra');
  });
});

describe('stat, ls, delete', () => {
  it('gives a version of inode, size and mtime in ns that changes on write', async () => {
    put('f.txt', 'abc');
    const st = fs.statSync(path.join(root, 'f.txt'), { bigint: true });
    const first = await be.stat('/f.txt');
    expect(first.version).toBe(`${st.ino}:${st.size}:${st.mtimeNs}`);
    await be.write('/f.txt', 'abc');
    expect((await be.stat('/f.txt')).version).not.toBe(first.version);
    expect((await be.stat('/')).info).toMatchObject({ path: '/', isDir: true });
  });

  it('lists dot files, sorted by code point', async () => {
    put('.env', 'x');
    put('.git/config', 'x');
    put('B.txt', 'x');
    put('a.txt', 'x');
    expect((await be.ls('/')).entries?.map((e) => e.path)).toEqual(['/.env', '/.git/', '/B.txt', '/a.txt']);
  });

  it('deletes files and empty folders, refuses the root and non-empty folders', async () => {
    put('d/f.txt', 'x');
    fs.mkdirSync(path.join(root, 'empty'));
    expect((await be.delete('/')).error).toBeTruthy();
    expect((await be.delete('/d')).error).toBeTruthy();
    expect(await be.delete('/d/f.txt')).toEqual({ path: '/d/f.txt' });
    expect(await be.delete('/empty')).toEqual({ path: '/empty' });
    expect((await be.delete('/nope')).error).toBe(messages.pathNotFound('/nope'));
  });
});

describe('uploadFiles / downloadFiles', () => {
  it('maps errors to codes', async () => {
    put('dir/f.txt', 'x');
    expect(await be.downloadFiles(['/dir/f.txt', '/nope', '/dir', '../x'])).toEqual([
      { path: '/dir/f.txt', content: new Uint8Array(Buffer.from('x')) },
      { path: '/nope', error: 'file_not_found' },
      { path: '/dir', error: 'is_directory' },
      { path: '../x', error: 'invalid_path' },
    ]);
    const up = await be.uploadFiles([
      { path: '/dir', content: new Uint8Array([1]) },
      { path: '/dir/f.txt/below', content: new Uint8Array([1]) },
      { path: '/new/deep/x.bin', content: new Uint8Array([1, 2]) },
    ]);
    expect(up).toEqual([
      { path: '/dir', error: 'is_directory' },
      { path: '/dir/f.txt/below', error: 'invalid_path' },
      { path: '/new/deep/x.bin' },
    ]);
  });

  it.skipIf(isRoot || !posix)('reports permission_denied', async () => {
    put('closed.txt', 'x');
    fs.chmodSync(path.join(root, 'closed.txt'), 0o000);
    expect((await be.downloadFiles(['/closed.txt']))[0]?.error).toBe('permission_denied');
  });
});

describe('virtualMode false', () => {
  it('uses real paths without containment', async () => {
    const real = new FilesystemBackend({ rootDir: root, virtualMode: false, ripgrepPath: null });
    const file = path.join(outside, 'secret.txt');
    expect((await real.read(file)).fileData?.content).toBe('top secret');
    expect(await real.write(path.join(outside, 'new.txt'), 'x\n')).toEqual({ path: path.join(outside, 'new.txt') });
    expect((await real.grep('secret', outside)).matches).toEqual([{ path: file, line: 1, text: 'top secret' }]);
    expect((await real.glob('*.txt', outside)).matches?.map((m) => m.path)).toEqual([path.join(outside, 'new.txt'), file]);
  });
});
