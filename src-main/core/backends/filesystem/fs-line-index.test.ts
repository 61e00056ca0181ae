// Windowed reads of files of any size: exact lines across chunk boundaries, the cached
// sparse index, the window byte cap, and a 1 GB file read in bounded memory.

import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LineIndexCache, MAX_WINDOW_BYTES, readLineWindow } from './fs-line-index';
import { splitLines } from '../text';
import type * as Rolldown from 'rolldown';

let dir = '';
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fsb-lines-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function windowOf(file: string, offset: number, limit: number, cache?: LineIndexCache) {
  const handle = await fsp.open(file, 'r');
  try {
    const st = await handle.stat({ bigint: true });
    const key = `${file}:${st.ino}:${st.size}:${st.mtimeNs}`;
    return await readLineWindow(handle, Number(st.size), offset, limit, cache ? { store: cache, key } : undefined);
  } finally {
    await handle.close();
  }
}

/** Deterministic pseudo-random text: empty lines, CRLF, multi-byte characters, long lines. */
function sampleText(lines: number, seed: number): string {
  let x = seed;
  const rand = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
  const parts: string[] = [];
  for (let i = 0; i < lines; i++) {
    const r = rand();
    let line = r < 0.1 ? '' : r < 0.2 ? 'é😀 ' + i : r < 0.25 ? 'long '.repeat(Math.floor(rand() * 600)) : `line ${i}`;
    if (rand() < 0.2) line += '\r';
    parts.push(line);
  }
  return parts.join('\n');
}

describe('readLineWindow', () => {
  it('matches splitLines for every window shape, with and without the cached index', async () => {
    for (const [i, trailingNewline] of [true, false].entries()) {
      const text = sampleText(60_000, 7 + i) + (trailingNewline ? '\n' : '');
      expect(Buffer.byteLength(text)).toBeGreaterThan(2 * 1024 * 1024);
      const file = path.join(dir, `sample${i}.txt`);
      fs.writeFileSync(file, text);
      const expected = splitLines(text);
      const cache = new LineIndexCache(2);
      for (const [offset, limit] of [[0, 10], [0, 70_000], [1023, 2], [1024, 1], [2047, 3000], [59_990, 100], [59_999, 1], [60_000, 5], [70_000, 5]] as const) {
        for (const store of [undefined, cache, cache]) {
          const w = await windowOf(file, offset, limit, store);
          expect(w.totalLines).toBe(expected.length);
          expect(w.lines, `offset ${offset} limit ${limit}`).toEqual(expected.slice(offset, offset + limit));
        }
      }
      expect(cache.size).toBe(1);
    }
  });

  it('counts lines like splitLines in small cases', async () => {
    for (const text of ['', '\n', 'a', 'a\n', 'a\nb', 'a\r\nb\r\n', '\n\n\n', 'x\ry\n', '\r\n']) {
      const file = path.join(dir, 'small.txt');
      fs.writeFileSync(file, text);
      const w = await windowOf(file, 0, 100);
      expect(w.lines, JSON.stringify(text)).toEqual(splitLines(text));
      expect(w.totalLines).toBe(splitLines(text).length);
    }
  });

  it('keeps a window under the byte cap: fewer lines, or the start of one huge line', async () => {
    const file = path.join(dir, 'huge-line.txt');
    const big = 'é'.repeat(MAX_WINDOW_BYTES / 2 + 10);
    fs.writeFileSync(file, `short\n${big}\nafter\n`);
    const both = await windowOf(file, 0, 3);
    expect(both.totalLines).toBe(3);
    expect(both.lines).toEqual(['short']);
    const cut = await windowOf(file, 1, 1);
    expect(cut.lines).toHaveLength(1);
    expect(cut.lines[0]!.length).toBe(MAX_WINDOW_BYTES / 2);
    expect(cut.lines[0]!.endsWith('é')).toBe(true);
  });

  it('evicts the least recently used index', () => {
    const cache = new LineIndexCache(2);
    cache.set('a', { offsets: [0], totalLines: 1 });
    cache.set('b', { offsets: [0], totalLines: 1 });
    cache.get('a');
    cache.set('c', { offsets: [0], totalLines: 1 });
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
  });
});

describe('a 1 GB file', () => {
  const LINE = 16;
  const LINES_PER_BLOCK = (1024 * 1024) / LINE;
  const BLOCKS = 1024;

  function freeBytes(where: string): number {
    try {
      const st = fs.statfsSync(where);
      return st.bavail * st.bsize;
    } catch {
      return 0;
    }
  }

  it('reads 100 lines at offset 1,000,000 in a child process under 100 MB RSS', { timeout: 180_000 }, async (ctx) => {
    if (freeBytes(dir) < 3 * 1024 ** 3) {
      ctx.skip();
      return;
    }
    let build: (typeof Rolldown)['build'];
    try {
      ({ build } = await import('rolldown'));
    } catch {
      ctx.skip();
      return;
    }
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fsb-gig-'));
    try {
      // Each line is its index within a 1 MiB block, 15 digits and '\n'.
      const block = Buffer.alloc(1024 * 1024);
      for (let j = 0; j < LINES_PER_BLOCK; j++) block.write(`${String(j).padStart(LINE - 1, '0')}\n`, j * LINE, 'latin1');
      const fd = fs.openSync(path.join(work, 'huge.txt'), 'w');
      for (let b = 0; b < BLOCKS; b++) fs.writeSync(fd, block);
      fs.closeSync(fd);

      const entry = path.join(work, 'child.ts');
      const backend = fileURLToPath(new URL('./filesystem.ts', import.meta.url));
      fs.writeFileSync(entry, `
        import { readFileSync } from 'node:fs';
        import { open } from 'node:fs/promises';
        import { FilesystemBackend } from ${JSON.stringify(backend)};
        // Every byte the backend reads goes through a FileHandle's read: count them.
        const probe = await open(process.argv[2] + '/huge.txt');
        const handles = Object.getPrototypeOf(probe);
        await probe.close();
        const read = handles.read;
        let bytes = 0;
        handles.read = async function (...args) {
          const result = await read.apply(this, args);
          bytes += result.bytesRead;
          return result;
        };
        const be = new FilesystemBackend({ rootDir: process.argv[2], ripgrepPath: null });
        const first = await be.read('/huge.txt', 1_000_000, 100);
        const firstBytes = bytes;
        const second = await be.read('/huge.txt', 60_000_000, 100);
        const secondBytes = bytes - firstBytes;
        // Peak RSS of this process image: VmHWM on Linux (getrusage's maxRSS would include
        // the forked parent's peak from before exec), else sampled rss.
        const peak = () => {
          try {
            const m = /VmHWM:\\s+(\\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
            if (m) return Number(m[1]) * 1024;
          } catch {}
          return process.memoryUsage().rss;
        };
        const summary = (r) => ({ error: r.error, lines: r.fileData?.content.split('\\n'), startLine: r.startLine, endLine: r.endLine, totalLines: r.totalLines, nextOffset: r.nextOffset });
        console.log(JSON.stringify({ first: summary(first), second: summary(second), firstBytes, secondBytes, rss: process.memoryUsage().rss, peak: peak() }));
      `);
      const bundle = path.join(work, 'child.mjs');
      await build({ input: entry, platform: 'node', logLevel: 'silent', output: { file: bundle, format: 'esm' } });
      const run = spawnSync(process.execPath, [bundle, work], { encoding: 'utf8', timeout: 150_000 });
      expect(run.status, run.stderr).toBe(0);
      const out = JSON.parse(run.stdout.trim().split('\n').pop()!) as {
        first: { lines: string[]; startLine: number; endLine: number; totalLines: number; nextOffset: number };
        second: { lines: string[]; startLine: number; totalLines: number };
        firstBytes: number; secondBytes: number; rss: number; peak: number;
      };
      const expectedLine = (n: number) => String(n % LINES_PER_BLOCK).padStart(LINE - 1, '0');
      const total = LINES_PER_BLOCK * BLOCKS;
      expect(out.first).toMatchObject({ startLine: 1_000_001, endLine: 1_000_100, totalLines: total, nextOffset: 1_000_100 });
      expect(out.first.lines).toEqual(Array.from({ length: 100 }, (_, i) => expectedLine(1_000_000 + i)));
      expect(out.second.lines).toEqual(Array.from({ length: 100 }, (_, i) => expectedLine(60_000_000 + i)));
      expect(out.second.totalLines).toBe(total);
      expect(out.rss).toBeLessThan(100 * 1024 * 1024);
      expect(out.peak).toBeLessThan(100 * 1024 * 1024);
      // The first window scans the whole 1 GB once; the second seeks through the cached index
      // and reads a few MB at most instead of rescanning it.
      expect(out.firstBytes).toBeGreaterThanOrEqual(BLOCKS * 1024 * 1024);
      expect(out.secondBytes).toBeLessThan(4 * 1024 * 1024);
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
});
