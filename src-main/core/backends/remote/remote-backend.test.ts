// RemoteBackend against a real sshd on 127.0.0.1 (SPEC §13), beyond the shared conformance
// cases: the same results as FilesystemBackend on the same folder (paged reads of a large
// file, .gitignore in grep and glob), confinement through symlinks resolved on the remote,
// hostile file names, kept file modes, atomic writes that survive a lost connection.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FilesystemBackend } from '../filesystem/filesystem';
import { messages } from '../messages';
import { withTargetGuard } from '../target-guard';
import { WHOLE_READ_BYTES } from './remote-backend';
import { startTestSshd, type TestSshd } from './testing/sshd';
import { openTestRemoteFolder, type TestRemoteFolder } from './testing/remote-folder';

let sshd: TestSshd;
let folder: TestRemoteFolder;
const opened: TestRemoteFolder[] = [];

beforeAll(async () => {
  sshd = await startTestSshd();
});
afterAll(async () => {
  await sshd?.dispose();
});
afterEach(() => {
  for (const f of opened.splice(0)) f.remove();
});

function open(options: Parameters<typeof openTestRemoteFolder>[1] = {}): TestRemoteFolder {
  folder = openTestRemoteFolder(sshd, options);
  opened.push(folder);
  return folder;
}

function put(rel: string, content: string | Buffer): void {
  const file = path.join(folder.dir, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

/** Counts the bytes the remote sends back, per call. */
function meterReplies(f: TestRemoteFolder): number[] {
  const sizes: number[] = [];
  const run = f.connection.run.bind(f.connection);
  f.connection.run = async (script, options) => {
    const r = await run(script, options);
    sizes.push(r.stdout.length);
    return r;
  };
  return sizes;
}

describe('RemoteBackend reads like FilesystemBackend', () => {
  it('reads a window of a large file without copying the file, with the same result as on disk', async () => {
    open();
    const lines = Array.from({ length: 120_000 }, (_, i) => (i % 7 === 0 ? `line ${i + 1}\r` : `line ${i + 1} ${'x'.repeat(i % 40)}`));
    put('big.txt', lines.join('\n'));
    expect(fs.statSync(path.join(folder.dir, 'big.txt')).size).toBeGreaterThan(WHOLE_READ_BYTES * 4);
    const local = new FilesystemBackend({ rootDir: folder.dir });
    const sizes = meterReplies(folder);
    for (const [offset, limit] of [[0, 2000], [60_000, 5], [119_998, 10], [0, 0]] as const) {
      const remote = await folder.backend.read('/big.txt', offset, limit);
      expect(remote.error).toBeUndefined();
      const { fileData, ...rest } = remote;
      const onDisk = await local.read('/big.txt', offset, limit);
      expect(fileData).toEqual(onDisk.fileData);
      expect(rest).toEqual({ startLine: onDisk.startLine, endLine: onDisk.endLine, totalLines: onDisk.totalLines, ...(onDisk.nextOffset !== undefined ? { nextOffset: onDisk.nextOffset } : {}) });
    }
    expect((await folder.backend.read('/big.txt', 120_000)).error).toBe(messages.offsetPastEnd(120_000, 120_000));
    // The whole file is over 2 MB; no reply came near it.
    expect(Math.max(...sizes)).toBeLessThan(200_000);
  });

  it('refuses a binary file over 10 MB by its size, reading only its head', async () => {
    open();
    const big = Buffer.alloc(11 * 1024 * 1024, 0);
    put('huge.bin', big);
    const sizes = meterReplies(folder);
    const res = await folder.backend.read('/huge.bin');
    expect(res.error).toBe(messages.binaryTooLarge('/huge.bin', big.length));
    expect(Math.max(...sizes)).toBeLessThan(20_000);
  });

  it('reads a large PNG whole as base64', async () => {
    open();
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(WHOLE_READ_BYTES * 2, 7)]);
    put('big.png', png);
    const res = await folder.backend.read('/big.png');
    expect(res.fileData?.mimeType).toBe('image/png');
    expect(Buffer.from(res.fileData?.content ?? '', 'base64').equals(png)).toBe(true);
  });
});

describe('RemoteBackend searches like FilesystemBackend', () => {
  it('applies .gitignore files (nested, negated, in a nested repository) in grep and glob', async () => {
    open();
    put('.gitignore', 'ignored/\n*.log\n!keep.log\n');
    put('a.txt', 'needle a\n');
    put('debug.log', 'needle log\n');
    put('keep.log', 'needle keep\n');
    put('ignored/x.txt', 'needle ignored\n');
    put('sub/.gitignore', 'local.txt\n');
    put('sub/local.txt', 'needle local\n');
    put('sub/other.txt', 'needle other\n');
    put('nested/.git/HEAD', 'ref\n');
    put('nested/.gitignore', 'n-only.txt\n');
    put('nested/debug.log', 'needle nested log\n');
    put('nested/n-only.txt', 'needle n\n');
    put('.git/config', 'needle in git\n');
    const local = new FilesystemBackend({ rootDir: folder.dir, ripgrepPath: null });
    for (const dir of ['/', '/sub', '/nested']) {
      const remote = await folder.backend.grep('needle', dir);
      expect(remote.error).toBeUndefined();
      expect(remote).toEqual(await local.grep('needle', dir));
      expect(await folder.backend.glob('*', dir)).toEqual(await local.glob('*', dir));
      expect(await folder.backend.ls(dir)).toEqual(await local.ls(dir));
      expect(await folder.backend.stat(dir)).toMatchObject({ info: (await local.stat(dir)).info });
    }
    const paths = ((await folder.backend.grep('needle')).matches ?? []).map((m) => m.path);
    expect(paths).toEqual(['/a.txt', '/keep.log', '/nested/debug.log', '/sub/other.txt']);
  });

  it('sends only the matched lines of a large file', async () => {
    open();
    put('big.log', `${'filler line\n'.repeat(400_000)}the needle\r\n${'more\n'.repeat(10)}`);
    const sizes = meterReplies(folder);
    const res = await folder.backend.grep('needle');
    expect(res).toEqual(await new FilesystemBackend({ rootDir: folder.dir }).grep('needle'));
    expect(res.matches).toEqual([{ path: '/big.log', line: 400_001, text: 'the needle' }]);
    expect(Math.max(...sizes)).toBeLessThan(10_000);
  });

  it('skips files over the size limit in grep, as on disk', async () => {
    open({ maxFileSizeMb: 1 });
    put('small.txt', 'needle\n');
    put('large.txt', 'needle\n' + 'x'.repeat(2 * 1024 * 1024));
    const remote = await folder.backend.grep('needle');
    expect(remote).toEqual(await new FilesystemBackend({ rootDir: folder.dir, maxFileSizeMb: 1 }).grep('needle'));
    expect(remote.matches?.map((m) => m.path)).toEqual(['/small.txt']);
  });
});

describe('RemoteBackend keeps to the folder', () => {
  it('refuses links that lead outside the folder, and new files below them', async () => {
    open();
    const outside = fs.mkdtempSync(path.join(path.dirname(folder.dir), 'deepdesk-outside-'));
    try {
      fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret\n');
      fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(folder.dir, 'link.txt'));
      fs.symlinkSync(outside, path.join(folder.dir, 'out'));
      fs.symlinkSync(path.join(outside, 'nothing-yet.txt'), path.join(folder.dir, 'dangling.txt'));
      const b = folder.backend;
      expect((await b.read('/link.txt')).error).toBe(messages.outsideRoot('/link.txt'));
      expect((await b.readRaw('/out/secret.txt')).error).toBe(messages.outsideRoot('/out/secret.txt'));
      expect((await b.write('/out/new.txt', 'x')).error).toBe(messages.outsideRoot('/out/new.txt'));
      expect((await b.write('/dangling.txt', 'x')).error).toBe(messages.outsideRoot('/dangling.txt'));
      expect((await b.grep('secret', '/out')).error).toBe(messages.outsideRoot('/out'));
      expect((await b.edit('/link.txt', 'secret', 'changed')).error).toBe(messages.outsideRoot('/link.txt'));
      const local = new FilesystemBackend({ rootDir: folder.dir });
      for (const p of ['/link.txt', '/out/secret.txt', '/out/new.txt', '/dangling.txt']) expect(await b.linkTarget(p), p).toEqual(await local.linkTarget(p));
      expect(await b.linkTarget('/link.txt')).toEqual({ outside: path.join(outside, 'secret.txt') });
      expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('secret\n');
      expect(fs.existsSync(path.join(outside, 'new.txt'))).toBe(false);
      expect(fs.existsSync(path.join(outside, 'nothing-yet.txt'))).toBe(false);
      // ls shows the links themselves, never their targets' details.
      const listed = (await b.ls('/')).entries?.map((e) => e.path);
      expect(listed).toEqual(['/dangling.txt', '/link.txt', '/out']);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('follows links inside the folder, and asks the call guard when a path reaches another file', async () => {
    open();
    put('real/target.txt', 'inside\n');
    fs.symlinkSync('real/target.txt', path.join(folder.dir, 'alias.txt'));
    expect((await folder.backend.read('/alias.txt')).fileData?.content).toBe('inside');
    expect(await folder.backend.linkTarget('/alias.txt')).toEqual({ virtual: '/real/target.txt' });
    expect(await folder.backend.linkTarget('/real/target.txt')).toBeNull();
    const asked: string[] = [];
    const guard = { check: (op: string, named: string, resolved: string) => (asked.push(`${op} ${named} ${resolved}`), 'refused by the guard') };
    const res = await withTargetGuard(guard, () => folder.backend.write('/alias.txt', 'changed\n'));
    expect(res.error).toBe('refused by the guard');
    expect(asked).toEqual(['write /alias.txt /real/target.txt']);
    expect(fs.readFileSync(path.join(folder.dir, 'real/target.txt'), 'utf8')).toBe('inside\n');
  });

  it('handles names with spaces, quotes, newlines, a leading dash, $() and non-ASCII', async () => {
    open();
    const names = ['with space.txt', `it's "q".txt`, 'new\nline.txt', '-rf', '$(touch pwned).txt', '`id`.txt', 'é 😀.txt', '*.txt'];
    const b = folder.backend;
    for (const name of names) {
      expect(await b.write(`/d/${name}`, `needle ${name}\n`), name).toEqual({ path: `/d/${name}` });
      expect((await b.read(`/d/${name}`)).fileData?.content).toBe(`needle ${name}`);
    }
    expect(fs.existsSync(path.join(folder.dir, 'd', 'pwned).txt'))).toBe(false);
    const sorted = names.map((n) => `/d/${n}`).sort((x, y) => (x < y ? -1 : 1));
    expect((await b.ls('/d')).entries?.map((e) => e.path).sort((x, y) => (x < y ? -1 : 1))).toEqual(sorted);
    expect(((await b.grep('needle', '/d')).matches ?? []).map((m) => m.path).sort((x, y) => (x < y ? -1 : 1))).toEqual(sorted);
    expect(((await b.glob('*', '/d')).matches ?? []).map((m) => m.path).sort((x, y) => (x < y ? -1 : 1))).toEqual(sorted);
    for (const name of names) expect(await b.delete(`/d/${name}`), name).toEqual({ path: `/d/${name}` });
    expect(fs.readdirSync(path.join(folder.dir, 'd'))).toEqual([]);
  });
});

describe('RemoteBackend asks before git runs what it writes', () => {
  it('always asks for paths in or named .git', async () => {
    open();
    expect(await folder.backend.alwaysAskReason('/.git/hooks/pre-commit')).toBe('it is inside a git folder');
    expect(await folder.backend.alwaysAskReason('/sub/.git')).toBe('it is where git looks for a repository');
    expect(await folder.backend.alwaysAskReason('/src/main.ts')).toBeNull();
  });
});

describe('RemoteBackend writes atomically', () => {
  it('keeps the file mode through write and edit', async () => {
    open();
    put('run.sh', '#!/bin/sh\necho one\n');
    fs.chmodSync(path.join(folder.dir, 'run.sh'), 0o751);
    expect((await folder.backend.write('/run.sh', '#!/bin/sh\necho two\n')).error).toBeUndefined();
    expect(fs.statSync(path.join(folder.dir, 'run.sh')).mode & 0o7777).toBe(0o751);
    expect((await folder.backend.edit('/run.sh', 'two', 'three')).error).toBeUndefined();
    expect(fs.statSync(path.join(folder.dir, 'run.sh')).mode & 0o7777).toBe(0o751);
    expect(fs.readFileSync(path.join(folder.dir, 'run.sh'), 'utf8')).toBe('#!/bin/sh\necho three\n');
  });

  it('keeps CRLF of a large file', async () => {
    open();
    put('big-crlf.txt', 'row\r\n'.repeat(300_000));
    expect((await folder.backend.write('/big-crlf.txt', 'a\nb\n')).error).toBeUndefined();
    expect(fs.readFileSync(path.join(folder.dir, 'big-crlf.txt'), 'utf8')).toBe('a\r\nb\r\n');
  });

  it('leaves the old file whole when the connection is lost mid-write, names the host, and works again after', async () => {
    open();
    put('data.txt', 'old content\n');
    const big = 'y'.repeat(150 * 1024 * 1024);
    const writing = folder.backend.write('/data.txt', big);
    // Once new bytes are arriving in the folder (wherever they are written), the server goes away.
    const bytesInFolder = () => fs.readdirSync(folder.dir).reduce((sum, n) => sum + (fs.statSync(path.join(folder.dir, n), { throwIfNoEntry: false })?.size ?? 0), 0);
    await expect.poll(bytesInFolder, { timeout: 60_000, interval: 10 }).toBeGreaterThan(1024 * 1024);
    await sshd.stop();
    const res = await writing;
    expect(res.error).toMatch(/deepdesk-test/);
    expect(fs.readFileSync(path.join(folder.dir, 'data.txt'), 'utf8')).toBe('old content\n');
    const down = await folder.backend.read('/data.txt');
    expect(down.error).toMatch(/deepdesk-test/);
    await sshd.start();
    expect((await folder.backend.read('/data.txt')).fileData?.content).toBe('old content');
    await expect.poll(() => fs.readdirSync(folder.dir).filter((n) => n.startsWith('.deepdesk-tmp-')), { timeout: 60_000 }).toEqual([]);
  });
});
