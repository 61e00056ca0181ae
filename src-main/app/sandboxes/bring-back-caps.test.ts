// What comes back from a provider's sandbox (SPEC §18) is capped per file and per step (Settings ›
// Sandboxes), fits on the disk, and streams to the layer folder in pieces: the agent host's
// memory stays flat whatever the sandbox made. Checked by effect over a real box.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LocalBoxProvider } from '../../core/sandbox-providers/testing/local-box-provider';
import type { ProviderSandbox } from '../../core/sandbox-providers/provider';
import { formatBlockedLine, type BlockedItem } from '../../core/sandbox/blocked';
import { resolvePolicy } from '../../core/sandbox/policy';
import { folderSandboxPolicy } from '../../core/sandbox/protected-entry-files';
import { planUpload, uploadFolder, type Manifest } from './folder-upload';
import { bringBack, scanSandbox } from './bring-back';
import { BRING_BACK_FILE_SETTING, BRING_BACK_STEP_SETTING, downloadToDisk } from './bring-back-download';
import { posixCksumFile } from './posix-cksum';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const f of cleanup.splice(0).reverse()) f();
});

const MB = 1024 * 1024;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-data-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

async function started(): Promise<{ folder: string; sandbox: ProviderSandbox; manifest: Manifest }> {
  const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-back-')));
  cleanup.push(() => fs.rmSync(folder, { recursive: true, force: true }));
  execFileSync('git', ['init', '-q'], { cwd: folder });
  fs.writeFileSync(path.join(folder, 'a.txt'), 'alpha\n');
  const provider = new LocalBoxProvider();
  cleanup.push(() => provider.dispose());
  const sandbox = await provider.create({ labels: {} });
  const manifest = await uploadFolder(sandbox, folder, await planUpload(folder, { dataDir, env: process.env }));
  return { folder, sandbox, manifest };
}

const home = os.homedir();
const said = (items: readonly BlockedItem[], folder: string) => items.map((b) => ('path' in b ? [path.relative(folder, b.path), b.why] : [b.host, '']));

describe('what comes back is capped', () => {
  it('leaves a file over the per-file cap in the sandbox (a sparse file that cost it nothing), naming it, its size and the Settings field', async () => {
    const { folder, sandbox, manifest } = await started();
    await sandbox.execute('truncate -s 300M sparse.bin && echo ok > small.txt', { timeoutMs: 30_000 });
    const back = await bringBack({ sandbox, folder, manifest, home, protectedPaths: [] });
    expect(fs.existsSync(path.join(folder, 'sparse.bin'))).toBe(false);
    expect(fs.readFileSync(path.join(folder, 'small.txt'), 'utf8')).toBe('ok\n');
    expect(said(back.blocked, folder)).toEqual([['sparse.bin', expect.stringContaining(`300 MB, over the 50 MB cap per file brought back; not brought back — raise ${BRING_BACK_FILE_SETTING}`)]]);
    const policy = resolvePolicy(folderSandboxPolicy({ projectDir: folder, dataDir }), { homes: [home] });
    expect(formatBlockedLine(back.blocked, policy)).toMatch(/sparse\.bin.*300 MB.*Bring-back cap per file \(MB\)/);
    // Not recorded as known: under a raised cap it comes back with a later step.
    expect(back.manifest['sparse.bin']).toBeUndefined();
    const raised = await bringBack({ sandbox, folder, manifest: back.manifest, home, protectedPaths: [], limits: { maxFileBytes: 400 * MB, maxStepBytes: 400 * MB } });
    expect(raised.applied).toEqual(['sparse.bin']);
    expect(fs.statSync(path.join(folder, 'sparse.bin')).size).toBe(300 * MB);
  }, 120_000);

  it('leaves the largest files in the sandbox when a step is over the per-step cap, naming them and the Settings field', async () => {
    const { folder, sandbox, manifest } = await started();
    await sandbox.execute('head -c 3000000 /dev/urandom > big.bin && head -c 1000000 /dev/urandom > mid.bin && echo ok > small.txt', { timeoutMs: 30_000 });
    const back = await bringBack({ sandbox, folder, manifest, home, protectedPaths: [], limits: { maxFileBytes: 10 * MB, maxStepBytes: 2 * MB } });
    expect(fs.existsSync(path.join(folder, 'big.bin'))).toBe(false);
    expect(fs.statSync(path.join(folder, 'mid.bin')).size).toBe(1_000_000);
    expect(fs.existsSync(path.join(folder, 'small.txt'))).toBe(true);
    expect(said(back.blocked, folder)).toEqual([['big.bin', expect.stringMatching(new RegExp(`^3 MB; .*over the 2 MB cap per step brought back; not brought back — raise ${BRING_BACK_STEP_SETTING.replace(/[()]/g, '\\$&')}$`))]]);
  }, 60_000);
});

describe('what comes back streams to disk', () => {
  it('brings back a 64 MB file with the host’s memory flat (no whole-file buffer)', async () => {
    const { folder, sandbox: inner, manifest } = await started();
    await inner.execute('head -c 67108864 /dev/urandom > big.bin && cksum big.bin > /tmp/sum', { timeoutMs: 60_000 });
    const sum = (await inner.execute('cat /tmp/sum', { timeoutMs: 10_000 })).output.split(' ');
    // What the host holds live while a download's answer is in hand (after a full collection), at its peak.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage();
    let peakLive = 0;
    let peakCall = 0;
    let peakRss = before.rss;
    const sandbox: ProviderSandbox = {
      ...inner,
      execute: (c, o) => inner.execute(c, o),
      upload: (f, s) => inner.upload(f, s),
      close: () => inner.close(),
      download: async (paths, signal) => {
        const got = await inner.download(paths, signal);
        peakCall = Math.max(peakCall, got.reduce((n, d) => n + (d.content?.length ?? 0), 0));
        gc();
        const now = process.memoryUsage();
        peakLive = Math.max(peakLive, now.arrayBuffers - before.arrayBuffers);
        peakRss = Math.max(peakRss, now.rss);
        return got;
      },
    };
    const back = await bringBack({ sandbox, folder, manifest, home, protectedPaths: [], limits: { maxFileBytes: 100 * MB, maxStepBytes: 100 * MB } });
    expect(back.applied).toEqual(['big.bin']);
    expect(posixCksumFile(path.join(folder, 'big.bin'))).toEqual({ crc: Number(sum[0]), size: 64 * MB });
    // A whole-file download holds all 64 MB at once; pieces hold at most a batch.
    console.log(`memory: largest download ${peakCall}, live ${peakLive}, rss +${peakRss - before.rss}`);
    expect(peakCall).toBeLessThanOrEqual(8 * MB);
    // Under the file's size with room for GC timing on a loaded machine: a whole-file buffer alone would be 64 MB.
    expect(peakLive).toBeLessThan(60 * MB);
    expect(peakRss - before.rss).toBeLessThan(60 * MB);
  }, 120_000);
});

describe('small files come back many to a download', () => {
  it('cuts a batch at the listed sizes: what changed since the listing (grown, shrunk, a link to a device) makes no download longer and does not come back; the rest does', async () => {
    const { sandbox: inner } = await started();
    const names = ['a', 'c', 'd', 'e', 'b'].map((n) => `f/${n}.txt`);
    const made = await inner.execute(`mkdir f && ${names.map((n, i) => `seq ${100 * (i + 1)} > ${n}`).join(' && ')}`, { timeoutMs: 30_000 });
    expect(made.exitCode).toBe(0);
    const listed = await scanSandbox(inner, ['./f']);
    const wanted = names.map((rel) => ({ rel, ...listed.files.get(rel)! }));
    const total = wanted.reduce((n, f) => n + f.size, 0);
    const change = await inner.execute('echo more >> f/b.txt && rm f/c.txt && ln -s /dev/zero f/c.txt && seq 3 > f/d.txt', { timeoutMs: 30_000 });
    expect(change.exitCode).toBe(0);
    const downloads: number[][] = [];
    const sandbox: ProviderSandbox = {
      ...inner,
      execute: (c, o) => inner.execute(c, o),
      upload: (f, sig) => inner.upload(f, sig),
      close: () => inner.close(),
      download: async (paths, signal) => {
        const got = await inner.download(paths, signal);
        downloads.push(got.map((d) => d.content?.length ?? 0));
        return got;
      },
    };
    const dest = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-dest-'));
    cleanup.push(() => fs.rmSync(dest, { recursive: true, force: true }));
    const destOf = (rel: string): string => {
      fs.mkdirSync(path.dirname(path.join(dest, rel)), { recursive: true });
      return path.join(dest, rel);
    };
    const got = await downloadToDisk(sandbox, wanted, destOf);
    // The unchanged ones, the one after the changes included (it came again by itself).
    expect([...got].sort()).toEqual(['f/a.txt', 'f/e.txt']);
    for (const f of wanted) {
      const there = fs.existsSync(path.join(dest, f.rel));
      expect(there).toBe(got.has(f.rel));
      if (there) expect(posixCksumFile(path.join(dest, f.rel))).toEqual({ crc: f.crc, size: f.size });
    }
    // The batch: one file, never longer than the listed sizes and a byte, whatever /dev/zero gives.
    expect(downloads[0]).toHaveLength(1);
    expect(downloads[0]![0]).toBeLessThanOrEqual(total + 1);
    // Unchanged, 40 files come in one download.
    downloads.length = 0;
    const many = Array.from({ length: 40 }, (_, i) => `g/${i}.txt`);
    expect((await inner.execute(`mkdir g && for i in $(seq 0 39); do seq $i > g/$i.txt; done`, { timeoutMs: 30_000 })).exitCode).toBe(0);
    const again = await scanSandbox(inner, ['./g']);
    // A listing with no stage folder keeps its lists in one of its own, gone when it answers.
    expect((await inner.execute('ls -a /tmp', { timeoutMs: 10_000 })).output).not.toMatch(/deepdesk-list/);
    const back = await downloadToDisk(sandbox, many.map((rel) => ({ rel, ...again.files.get(rel)! })), destOf);
    expect(back.size).toBe(40);
    expect(downloads).toHaveLength(1);
    expect(fs.readFileSync(path.join(dest, 'g/39.txt'), 'utf8')).toBe(Array.from({ length: 39 }, (_, i) => `${i + 1}\n`).join(''));
  }, 60_000);
});

let canMount = process.getuid?.() === 0;
if (canMount) {
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
  } catch {
    canMount = false;
  }
  fs.rmSync(probe, { recursive: true, force: true });
}

describe('what comes back fits on the disk', () => {
  it.skipIf(!canMount)('refuses before downloading when the layer folder’s disk is too full, and nothing is applied', async () => {
    const { folder, sandbox, manifest } = await started();
    const small = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-small-disk-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', small]);
    cleanup.push(() => {
      execFileSync('umount', [small]);
      fs.rmSync(small, { recursive: true, force: true });
    });
    await sandbox.execute('head -c 4000000 /dev/urandom > four.bin && echo ok > small.txt', { timeoutMs: 30_000 });
    const refused = await bringBack({ sandbox, folder, manifest, home, protectedPaths: [], layerRoot: small });
    expect(refused.applied).toEqual([]);
    const policy = resolvePolicy(folderSandboxPolicy({ projectDir: folder, dataDir }), { homes: [home] });
    expect(formatBlockedLine(refused.blocked, policy)).toMatch(
      /^\[Sandbox blocked a write \(4 MB of changes\) not brought back: the disk of .*dd-small-disk-.* has 8 MB free and 20 MB is needed\. Free some space there; the changes stay in the sandbox and come back with the next step\]$/,
    );
    expect(fs.existsSync(path.join(folder, 'four.bin'))).toBe(false);
    expect(fs.existsSync(path.join(folder, 'small.txt'))).toBe(false);
    expect(fs.readdirSync(small)).toEqual([]);
    // With room, the same step comes back whole.
    const back = await bringBack({ sandbox, folder, manifest: refused.manifest, home, protectedPaths: [] });
    expect(back.applied.sort()).toEqual(['four.bin', 'small.txt']);
  }, 60_000);
});
