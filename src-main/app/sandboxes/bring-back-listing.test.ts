// A bring-back's listing reads (cksum) only the files changed since an earlier listing saw them:
// a file is taken as unchanged only when its change time, inode and size are the ones that
// listing saw, well before it began. Over a real bubblewrap box (the in-process provider).

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalBoxProvider } from '../../core/sandbox-providers/testing/local-box-provider';
import type { ProviderSandbox, SandboxExecOptions } from '../../core/sandbox-providers/provider';
import { planUpload, uploadFolder, type Manifest, type ManifestEntry } from './folder-upload';
import { bringBack } from './bring-back';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-data-'));
cleanup.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));

function folderWith(files: Record<string, string>): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-listing-')));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  execFileSync('git', ['init', '-q'], { cwd: dir });
  return dir;
}

interface Counted {
  sandbox: ProviderSandbox;
  read: () => string[];
  /** Scripts run and files downloaded so far. */
  calls: { execute: number; downloaded: string[] };
  /** Runs before each download (in the sandbox, as the agent could). */
  beforeDownload: { hook?: (paths: readonly string[]) => Promise<void> };
}

/** The sandbox, with every file `cksum` read in it counted (by the `cksum` lines of the scripts' answers), and its calls. */
async function countingSandbox(): Promise<Counted> {
  const provider = new LocalBoxProvider();
  cleanup.push(() => provider.dispose());
  const inner = await provider.create({ labels: {} });
  const read: string[] = [];
  const calls = { execute: 0, downloaded: [] as string[] };
  const beforeDownload: Counted['beforeDownload'] = {};
  const sandbox: ProviderSandbox = Object.assign(Object.create(inner) as ProviderSandbox, {
    async download(paths: readonly string[], signal?: AbortSignal) {
      await beforeDownload.hook?.(paths);
      calls.downloaded.push(...paths);
      return inner.download(paths, signal);
    },
    async execute(command: string, options: SandboxExecOptions) {
      calls.execute++;
      const r = await inner.execute(command, options);
      if (command.includes('cksum')) for (const line of r.output.split(/[\n\0]/)) {
          const m = /^\d+ \d+ \.\/(.+)$/.exec(line);
          if (m) read.push(m[1]!);
        }
      return r;
    },
  });
  return {
    sandbox,
    read: () => read.splice(0).sort(),
    calls,
    beforeDownload,
  };
}

const FILES = { 'a.txt': 'alpha\n', 'b.txt': 'bravo\n', 'one.txt': 'one\n', 'two.txt': 'two\n', 'deep/c.txt': 'charlie\n' };

async function uploaded(files: Record<string, string> = FILES): Promise<Counted & { folder: string; manifest: Manifest }> {
  const folder = folderWith(files);
  const counted = await countingSandbox();
  const { sandbox, read } = counted;
  const manifest = await uploadFolder(sandbox, folder, await planUpload(folder, { dataDir, env: process.env }));
  // The first listing: every file read (the upload's manifest has seen none); then the files are well older than a listing.
  await new Promise((r) => setTimeout(r, 200));
  const first = await bringBack({ sandbox, folder, manifest, home: os.homedir(), protectedPaths: [] });
  expect(first.applied).toEqual([]);
  expect(read()).toEqual(Object.keys(files).sort());
  await new Promise((r) => setTimeout(r, 200));
  return { ...counted, folder, manifest: first.manifest };
}

function fileEntry(manifest: Manifest, rel: string): Extract<ManifestEntry, { crc: number }> {
  const e = manifest[rel];
  if (!e || !('crc' in e) || !e.seen) throw new Error(`no listed file entry for ${rel}`);
  return e;
}

describe('a bring-back reads only what changed since it was last listed', () => {
  it('reads no unchanged file again; an edit of the same size with its times set back, and a rename over a file of the same size, come back', async () => {
    const { folder, sandbox, read, manifest } = await uploaded();
    const nothing = await bringBack({ sandbox, folder, manifest, home: os.homedir(), protectedPaths: [] });
    expect(nothing.applied).toEqual([]);
    expect(read()).toEqual([]);

    const r = await sandbox.execute('printf "ALPHA\\n" > a.txt && touch -d "2001-01-01 00:00:00" a.txt && mv two.txt one.txt', { timeoutMs: 10_000 });
    expect(r.exitCode).toBe(0);
    const back = await bringBack({ sandbox, folder, manifest: nothing.manifest, home: os.homedir(), protectedPaths: [] });
    expect(fs.readFileSync(path.join(folder, 'a.txt'), 'utf8')).toBe('ALPHA\n');
    expect(fs.readFileSync(path.join(folder, 'one.txt'), 'utf8')).toBe('two\n');
    expect(fs.existsSync(path.join(folder, 'two.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(folder, 'b.txt'), 'utf8')).toBe('bravo\n');
    // Only the files whose change time moved were read.
    expect(read()).toEqual(['a.txt', 'one.txt']);
    expect(fileEntry(back.manifest, 'a.txt').size).toBe(6);
    // The staging in the sandbox was removed (while the layer was applied here) before the bring-back ended.
    const left = await sandbox.execute('ls -a /tmp', { timeoutMs: 10_000 });
    expect(left.output).not.toMatch(/deepdesk-back-/);
  });

  it('reads a file again when the earlier listing saw it within a clock tick of its start: a write in that tick comes back', async () => {
    const { folder, sandbox, read, manifest } = await uploaded();
    // The sandbox holds `alpha`; the manifest says otherwise (as if the file was written again in
    // the tick right after `find` saw it, keeping that change time) and the folder holds the person's text.
    fs.writeFileSync(path.join(folder, 'a.txt'), 'the person’s\n');
    const seen = fileEntry(manifest, 'a.txt');
    const wrongCrc = (seen.crc + 1) % 2 ** 32;

    // Seen well after its change time: trusted, not read (the control).
    const trusted = { ...manifest, 'a.txt': { ...seen, crc: wrongCrc, seen: { ...seen.seen!, at: Number(seen.seen!.ctime) + 10 } } };
    const untouched = await bringBack({ sandbox, folder, manifest: trusted, home: os.homedir(), protectedPaths: [] });
    expect(untouched.applied).toEqual([]);
    expect(read()).toEqual([]);
    expect(fs.readFileSync(path.join(folder, 'a.txt'), 'utf8')).toBe('the person’s\n');

    // Seen within the tick after its change time: read again, and the sandbox's text comes back.
    const racy = { ...manifest, 'a.txt': { ...seen, crc: wrongCrc, seen: { ...seen.seen!, at: Number(seen.seen!.ctime) + 0.01 } } };
    const back = await bringBack({ sandbox, folder, manifest: racy, home: os.homedir(), protectedPaths: [] });
    expect(back.applied).toContain('a.txt');
    expect(read()).toContain('a.txt');
    expect(fs.readFileSync(path.join(folder, 'a.txt'), 'utf8')).toBe('alpha\n');
  });

  it('reads a file whose change time is not the one seen, even one older than every listing (a clock set back), in a second script', async () => {
    const { folder, sandbox, read, manifest } = await uploaded();
    fs.writeFileSync(path.join(folder, 'deep/c.txt'), 'the person’s\n');
    const seen = fileEntry(manifest, 'deep/c.txt');
    // Every listing "began" far in the future, so the listing's own script reads nothing; the entry's change time is not the file's.
    const future: Manifest = {};
    for (const [rel, e] of Object.entries(manifest)) future[rel] = 'crc' in e && e.seen ? { ...e, seen: { ...e.seen, at: e.seen.at + 1e6 } } : e;
    future['deep/c.txt'] = { ...seen, crc: (seen.crc + 1) % 2 ** 32, seen: { ...seen.seen!, at: seen.seen!.at + 1e6, ctime: '1000000000.5000000000' } };
    const back = await bringBack({ sandbox, folder, manifest: future, home: os.homedir(), protectedPaths: [] });
    expect(read()).toEqual(['deep/c.txt']);
    expect(back.applied).toContain('deep/c.txt');
    expect(fs.readFileSync(path.join(folder, 'deep/c.txt'), 'utf8')).toBe('charlie\n');
    // Now listed as it is: the next bring-back reads nothing.
    const again = await bringBack({ sandbox, folder, manifest: back.manifest, home: os.homedir(), protectedPaths: [] });
    expect(again.applied).toEqual([]);
    expect(read()).toEqual([]);
  });
});

describe('what the listing reads, it stages', () => {
  it('a change comes down in one download after the listing, with no staging script of its own, and the staging is gone after', async () => {
    const { folder, sandbox, read, calls, manifest } = await uploaded();
    const r = await sandbox.execute('printf "ALPHA!\\n" > a.txt && printf "new\\n" > deep/new.txt && printf "BRAVO\\n" > b.txt', { timeoutMs: 10_000 });
    expect(r.exitCode).toBe(0);
    read();
    const before = { execute: calls.execute, downloaded: calls.downloaded.length };
    const back = await bringBack({ sandbox, folder, manifest, home: os.homedir(), protectedPaths: [] });
    expect(back.applied).toEqual(expect.arrayContaining(['a.txt', 'b.txt', 'deep/new.txt']));
    expect(fs.readFileSync(path.join(folder, 'a.txt'), 'utf8')).toBe('ALPHA!\n');
    expect(fs.readFileSync(path.join(folder, 'b.txt'), 'utf8')).toBe('BRAVO\n');
    expect(fs.readFileSync(path.join(folder, 'deep/new.txt'), 'utf8')).toBe('new\n');
    // The listing, then its staging removed: two scripts; one download.
    expect(calls.execute - before.execute).toBe(2);
    expect(calls.downloaded.slice(before.downloaded)).toHaveLength(1);
    expect(calls.downloaded.at(-1)).toMatch(/\/pre$/);
    expect((await sandbox.execute('ls -a /tmp', { timeoutMs: 10_000 })).output).not.toMatch(/deepdesk-back-/);
  });

  it('staged bytes that are not what was listed do not come back from the staging: the file comes the usual way, as it is listed', async () => {
    const { folder, sandbox, calls, manifest, beforeDownload } = await uploaded();
    const r = await sandbox.execute('printf "ALPHA!\\n" > a.txt && printf "BRAVO!\\n" > b.txt', { timeoutMs: 10_000 });
    expect(r.exitCode).toBe(0);
    // Between the listing and the download, the staged bytes change (as a file changing while it was staged would make them).
    beforeDownload.hook = async (paths) => {
      const pre = paths.find((p) => p.endsWith('/pre'));
      if (pre) expect((await sandbox.execute(`printf Z | dd of=${pre} bs=1 seek=2 conv=notrunc 2>/dev/null`, { timeoutMs: 10_000 })).exitCode).toBe(0);
    };
    const before = calls.downloaded.length;
    const back = await bringBack({ sandbox, folder, manifest, home: os.homedir(), protectedPaths: [] });
    beforeDownload.hook = undefined;
    expect(back.applied).toEqual(expect.arrayContaining(['a.txt', 'b.txt']));
    expect(fs.readFileSync(path.join(folder, 'a.txt'), 'utf8')).toBe('ALPHA!\n');
    expect(fs.readFileSync(path.join(folder, 'b.txt'), 'utf8')).toBe('BRAVO!\n');
    // The staged batch, then the usual staging of what did not match.
    expect(calls.downloaded.slice(before)).toHaveLength(2);
  });

  it('what the caps refuse never comes down, not even in the listing’s staging', async () => {
    const big = 'x'.repeat(700 * 1024);
    const { folder, sandbox, calls, manifest } = await uploaded({ ...FILES, 'big1.bin': big, 'big2.bin': big });
    const r = await sandbox.execute('printf y >> big1.bin && printf yy >> big2.bin', { timeoutMs: 10_000 });
    expect(r.exitCode).toBe(0);
    const before = calls.downloaded.length;
    const back = await bringBack({ sandbox, folder, manifest, home: os.homedir(), protectedPaths: [], limits: { maxFileBytes: 50 * 1024 * 1024, maxStepBytes: 1024 * 1024 } });
    // The larger is refused by the step cap; the other comes back, and the staging with both in it was never downloaded.
    expect(back.blocked.map((b) => ('path' in b ? path.relative(folder, b.path) : ''))).toEqual(['big2.bin']);
    expect(fs.readFileSync(path.join(folder, 'big1.bin'), 'utf8')).toBe(`${big}y`);
    expect(fs.readFileSync(path.join(folder, 'big2.bin'), 'utf8')).toBe(big);
    expect(calls.downloaded.slice(before).some((p) => p.endsWith('/pre'))).toBe(false);
  });
});
