// glob's results (files, order, sizes, times) must be exactly those of the straightforward
// computation: walk with the documented filters, match with the old regex matcher, lstat
// each file one by one, sort by code point. Checked on a tree of hostile names big enough
// to span many ripgrep output chunks and many stat slices, with ripgrep, in Node, and with
// the asynchronous stats a slow file system switches to.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceCompileGlob } from './__fixtures__/regex-glob-reference';
import { FileInfoGatherer, isoTime } from './fs-file-infos';
import { FilesystemBackend } from './filesystem';
import { Walker } from './fs-walk';
import { compareCodePoints, joinVirtual } from '../paths';
import type { FileInfo, GlobResult } from '../protocol';
import { bundledRipgrep } from './ripgrep-binary';

const RG = await bundledRipgrep();
const posix = process.platform !== 'win32';

// Names a shell, a parser or a sort could trip on.
const HOSTILE_NAMES = [
  'plain.ts', 'with space.ts', ' leading space.ts', 'trailing space.ts ', '-leading-dash.ts', '--help.ts', '-rf',
  'ünïcødé.ts', 'e\u0301-decomposed.ts', 'é-composed.ts', '😀 emoji.ts', '𝒜-astral.md', 'עברית.ts', '日本語.md',
  '\uFF5Efullwidth.ts', 'star*name.ts', 'q?mark.ts', '[bracket].ts', '{brace,comma}.ts', 'back\\slash.ts', 'colon:name.ts',
  "quote'single.ts", 'quote"double.ts', 'semi;colon.ts', '$dollar.ts', 'tab\tname.ts', 'hash#.ts', 'percent%41.ts',
  '.dotfile.ts', '..double-dot.ts', 'UPPER.TS', 'no-extension', 'a.ts.md', '.ts', 'x.ts',
  ...(posix ? ['new\nline.ts', 'carriage\rreturn.ts', '\nleading-newline.ts'] : []),
];
const DIRS = ['', 'src', 'src/deep/er/still', 'dir with space', '-dash-dir', 'ünï', '😀', '.dotdir', 'node_modules/pkg', 'dist', 'keep/dist'];
const PATTERNS = [
  '**/*.ts', '*.ts', '*', '**/*', '**', '-*', '*-*', '* *', '*😀*', '**/[-]*', 'src/**', '/*.md', '*.{ts,md}', '?*', '.*', '**/.*',
  '*\n*', 'dir with space/*', '**/still/*', '*[!a-z].ts', '[[]*', 'star[*]name.ts', '/dist/*', '**/dist/*',
];

function buildTree(root: string): number {
  let count = 0;
  const write = (rel: string, bytes: number) => {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'x'.repeat(bytes));
    // Distinct, fractional modification times (the ISO string keeps milliseconds).
    const seconds = 1_600_000_000 + count * 7.0137 + (count % 3) * 0.0005;
    fs.utimesSync(file, seconds, seconds);
    count++;
  };
  fs.writeFileSync(path.join(root, '.gitignore'), 'node_modules/\n/dist/\n*.log\n!keep.log\n');
  fs.mkdirSync(path.join(root, '.git/objects'), { recursive: true });
  fs.writeFileSync(path.join(root, '.git/HEAD'), 'ref: refs/heads/main\n');
  fs.writeFileSync(path.join(root, '.git/objects/x.ts'), '');
  for (const dir of DIRS) HOSTILE_NAMES.forEach((name, i) => write(path.join(dir, name), i * 13 + dir.length));
  write('a.log', 5);
  write('keep.log', 6);
  // Enough files for several 64 KiB chunks of ripgrep output and several 4 ms stat slices.
  for (let d = 0; d < 40; d++) {
    for (let f = 0; f < 60; f++) write(`bulk/${d % 2 ? '-' : ''}d${d} ${'ü'.repeat(d % 5)}/${'long-name-'.repeat(3)}${f}${f % 4 ? '.ts' : '.md'}`, f);
  }
  if (posix) {
    // A name that is not UTF-8: decoded with U+FFFD by both searches, so its lstat fails and it is left out.
    fs.writeFileSync(Buffer.from(path.join(root, 'src/') + '\xff-latin1.ts', 'latin1'), 'x');
    fs.symlinkSync('plain.ts', path.join(root, 'link-to-file.ts'));
    fs.symlinkSync('src', path.join(root, 'link-to-dir'));
    fs.symlinkSync('missing.ts', path.join(root, 'dangling.ts'));
    fs.symlinkSync('.', path.join(root, 'src/loop'));
  }
  return count;
}

/** The straightforward computation glob must equal. */
async function expectedGlob(root: string, searchPath: string, pattern: string): Promise<FileInfo[]> {
  const matcher = referenceCompileGlob(pattern);
  const start = path.join(root, searchPath);
  const infos: FileInfo[] = [];
  for await (const file of new Walker({ root, start }).files()) {
    if (!matcher.matches(file.rel)) continue;
    let st: fs.Stats;
    try {
      st = fs.lstatSync(file.real);
    } catch {
      continue;
    }
    infos.push({ path: joinVirtual(searchPath, file.rel), size: st.size, modifiedAt: st.mtime.toISOString() });
  }
  return infos.sort((a, b) => compareCodePoints(a.path, b.path));
}

describe('glob on a tree of hostile names gives exactly the straightforward results', () => {
  let dir = '';
  let tools = '';
  let rgCalls = '';
  let filesWritten = 0;
  const backends: [string, FilesystemBackend][] = [];

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fsb-glob-results-'));
    filesWritten = buildTree(dir);
    backends.push(['Node', new FilesystemBackend({ rootDir: dir, ripgrepPath: null })]);
    if (RG) {
      // Counts ripgrep runs, so the ripgrep results are not the Node search's in disguise.
      tools = fs.mkdtempSync(path.join(os.tmpdir(), 'fsb-glob-rg-'));
      rgCalls = path.join(tools, 'calls.log');
      fs.writeFileSync(path.join(tools, 'rg'), `#!/bin/sh\necho call >> '${rgCalls}'\nexec '${RG}' "$@"\n`, { mode: 0o755 });
      backends.push(['ripgrep', new FilesystemBackend({ rootDir: dir, ripgrepPath: path.join(tools, 'rg') })]);
    }
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    if (tools) fs.rmSync(tools, { recursive: true, force: true });
  });

  it('for every pattern and folder, with ripgrep and in Node', { timeout: 120_000 }, async () => {
    let compared = 0;
    for (const searchPath of ['/', '/src', '/dir with space', '/-dash-dir', '/😀', '/dist', '/bulk']) {
      for (const pattern of PATTERNS) {
        const expected = await expectedGlob(dir, searchPath, pattern);
        for (const [name, backend] of backends) {
          const got: GlobResult = await backend.glob(pattern, searchPath);
          expect(got, `${name}: glob ${JSON.stringify(pattern)} in ${searchPath}`).toEqual({ matches: expected, truncated: false });
        }
        compared += expected.length;
      }
    }
    expect(compared).toBeGreaterThan(filesWritten);
    if (RG) expect(fs.readFileSync(rgCalls, 'utf8').split('\n').filter(Boolean).length).toBeGreaterThan(100);
    // The tree holds what it is meant to: ignored folders, symlinks and the dot folder are really skipped or kept.
    const all = (await backends[0]![1].glob('**/*')).matches!.map((m) => m.path);
    expect(all.length).toBeGreaterThan(2500);
    expect(all).toContain('/-dash-dir/--help.ts');
    expect(all).toContain('/keep/dist/😀 emoji.ts');
    if (posix) expect(all).toContain('/src/new\nline.ts');
    for (const skipped of ['/node_modules/pkg/plain.ts', '/dist/plain.ts', '/a.log', '/link-to-file.ts', '/link-to-dir/plain.ts', '/.git/objects/x.ts']) {
      expect(all, skipped).not.toContain(skipped);
    }
  });
});

describe('FileInfoGatherer', () => {
  let dir = '';
  let files: string[] = [];
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fsb-gatherer-'));
    files = Array.from({ length: 3000 }, (_, i) => path.join(dir, `${i % 7 ? '' : '-'}f ${i}${i % 11 ? '' : '😀'}.txt`));
    files.forEach((file, i) => {
      fs.writeFileSync(file, 'y'.repeat(i % 50));
      fs.utimesSync(file, 1_500_000_000 + i * 0.0137, 1_500_000_000 + i * 0.0137);
    });
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const expected = (reals: string[]): FileInfo[] =>
    reals
      .filter((real) => fs.existsSync(real))
      .map((real) => {
        const st = fs.lstatSync(real);
        return { path: '/' + path.basename(real), size: st.size, modifiedAt: st.mtime.toISOString() };
      })
      .sort((a, b) => compareCodePoints(a.path, b.path));

  it.each([
    ['synchronous slices', undefined],
    ['asynchronous calls (a slow file system)', 0],
  ])('gives every existing file, sorted, with lstat size and mtime: %s', async (_name, slowStatMs) => {
    const gatherer = new FileInfoGatherer({ slowStatMs });
    const reals = [...files, path.join(dir, 'gone.txt'), path.join(dir, 'f 1.txt', 'below-a-file.txt')];
    for (const real of reals) gatherer.add(real, '/' + path.basename(real));
    const got = await gatherer.finish();
    expect(got).toEqual(expected(reals));
    expect(got).toHaveLength(files.length);
  });

  it('formats modification times exactly as Stats.mtime.toISOString()', () => {
    for (const file of files.slice(0, 500)) {
      const st = fs.lstatSync(file);
      expect(isoTime(st.mtimeMs)).toBe(st.mtime.toISOString());
    }
    // Times near half a millisecond, where rounding shows.
    const probe = path.join(dir, 'probe');
    fs.writeFileSync(probe, '');
    for (const seconds of [1, 1.0005, 1.0015, 2.4995, 1_600_000_000.0005, 4_102_444_800.9995]) {
      fs.utimesSync(probe, seconds, seconds);
      const st = fs.lstatSync(probe);
      expect(isoTime(st.mtimeMs), `${seconds}`).toBe(st.mtime.toISOString());
    }
    fs.rmSync(probe);
  });

  it('formats any time as Date.toISOString() does, across days, leap years and the year 10000', () => {
    const day = 86_400_000;
    const times = [0, 0.5, 1.4999, 999.5, day - 1, day, day - 0.5, 951_782_400_000 - 1, 951_782_400_000, 4_107_542_400_000, 253_402_300_799_999, 253_402_300_800_000, -1, -0.4, -day - 1.5];
    let seed = 7;
    for (let i = 0; i < 20_000; i++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      times.push((seed / 2147483648) * 260_000_000_000_000 - 1_000_000_000_000);
    }
    for (const ms of times) expect(isoTime(ms), `${ms}`).toBe(new Date(Math.round(ms)).toISOString());
  });
});
