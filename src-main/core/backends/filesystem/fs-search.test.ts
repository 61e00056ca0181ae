// grep and glob on disk: ripgrep and the Node search must give identical results on a
// tree full of edge cases, and both must follow the documented filtering rules.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilesystemBackend } from './filesystem';
import type { GlobResult, GrepResult } from '../protocol';
import { bundledRipgrep } from './ripgrep-binary';

// The ripgrep the app ships (ripgrep-binary.test.ts fails where one should ship but does not).
const RG = await bundledRipgrep();
const describeRg = RG ? describe : describe.skip;

function write(root: string, rel: string, content: string | Uint8Array): void {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

/** The tricky tree: nested .gitignore with negation, a nested repository, dot files, .git, binaries, CRLF, unicode, a big sparse file. */
function buildTree(root: string): void {
  write(root, '.gitignore', '*.log\n/build/\nsecret*\n!secret-ok.txt\nnode_modules\ndocs/**/*.gen.md\n');
  write(root, '.git/config', 'needle in git config\n');
  write(root, '.git/objects/ab/cdef', 'needle\n');
  write(root, 'a.txt', 'needle one\nno\nneedle two\n');
  write(root, 'app.log', 'needle in log\n');
  write(root, 'build/out.txt', 'needle built\n');
  write(root, 'build/deep/more.txt', 'needle deeper\n');
  write(root, 'src/build/keep.txt', 'needle kept: /build/ is anchored\n');
  write(root, 'src/main.ts', 'const needle = 1;\nexport {}\n');
  write(root, 'src/node_modules/pkg/index.js', 'needle in node_modules\n');
  write(root, 'secret.txt', 'needle secret\n');
  write(root, 'secret-ok.txt', 'needle not secret\n');
  write(root, 'docs/a/b/page.gen.md', 'needle generated\n');
  write(root, 'docs/a/b/page.md', 'needle written\n');
  write(root, 'sub/.gitignore', '!important.log\n*.tmp\n');
  write(root, 'sub/important.log', 'needle important\n');
  write(root, 'sub/other.log', 'needle other\n');
  write(root, 'sub/x.tmp', 'needle tmp\n');
  write(root, 'sub/deeper/.gitignore', '!*.tmp\n');
  write(root, 'sub/deeper/y.tmp', 'needle re-included tmp\n');
  write(root, 'x.tmp', 'needle tmp at root\n');
  write(root, '.hidden/dot.txt', 'needle dot\n');
  write(root, '.env', 'NEEDLE=needle\n');
  write(root, 'nested/.git/HEAD', 'ref: needle\n');
  write(root, 'nested/y.log', 'needle: root *.log does not reach into a nested repository\n');
  write(root, 'nested/.gitignore', 'ignored-here.txt\n');
  write(root, 'nested/ignored-here.txt', 'needle\n');
  write(root, 'bin.dat', Buffer.from('needle\0needle\n'));
  write(root, 'late-nul.txt', Buffer.concat([Buffer.from('x'.repeat(9000) + '\nneedle before\n'), Buffer.from([0]), Buffer.from('\nneedle after\n')]));
  write(root, 'crlf.txt', 'needle\r\nx\r\nneedle crlf\r\n');
  write(root, 'ünïcødé/😀 file.txt', 'needle ü\n');
  write(root, 'ünïcødé/é.txt', 'é needle\n');
  write(root, 'spaced name.txt', 'a needle\n');
  write(root, 'colon:name.txt', 'needle:colon\n');
  if (process.platform !== 'win32') write(root, 'new\nline.txt', 'needle in a name with a newline\n');
  write(root, 'invalid-utf8.txt', Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x20, 0xff, 0xfe, 0x0a]));
  write(root, 'bom.txt', '\uFEFFneedle bom\nsecond\n');
  write(root, 'empty.txt', '');
  write(root, 'last.txt', 'x\nneedle last line without newline');
  write(root, 'many.txt', 'needle\n'.repeat(2000));
  write(root, 'B.txt', 'needle upper\n');
  write(root, 'sub.txt', 'needle\n');
  // Over the 10 MB limit, made sparse so it costs no disk.
  write(root, 'big.txt', 'needle big\n');
  fs.truncateSync(path.join(root, 'big.txt'), 11 * 1024 * 1024);
  if (process.platform !== 'win32') {
    fs.symlinkSync('a.txt', path.join(root, 'link.txt'));
    fs.symlinkSync('src', path.join(root, 'linkdir'));
  }
}

const GREP_PATTERNS = ['needle', '', 'e', ' ', 'ü', '.*', '\uFEFFneedle', 'needle\r'];
const GLOBS = [undefined, '*.txt', '**/*.txt', '/*.txt', '*.{log,tmp}', '.*', 'deeper/*'];
const PATHS = ['/', '/sub', '/sub/deeper', '/nested', '/build', '/src', '/ünïcødé', '/many.txt', '/.git'];
const GLOB_PATTERNS = ['*', '**/*', '*.log', '.*', '*.tmp', 'sub/**', '*.txt', '**', '{a,B}.txt', '*/*.txt'];

/**
 * `ripgrep`: how many folder searches must really run ripgrep (counted through a wrapper
 * script that leaves out its nested-repository check), so equality is not the Node search
 * compared with itself: 'every' folder search, or 'some'.
 */
/**
 * What a line holds (a BOM, a CR, ü, a regex) reads the same in every tree and from every
 * folder: the first tree runs every pattern from its root; the other folders and trees differ in
 * what is ignored, which the patterns that reach every line show (some 3,400 fewer ripgrep runs).
 */
const LINE_PATTERNS = ['needle', ''];

function describeEquality(name: string, ripgrep: 'every' | 'some', setUp: (root: string) => string, patterns: readonly string[] = LINE_PATTERNS): void {
  describeRg(`${name}: ripgrep and the Node search agree`, () => {
    let dir = '';
    let log = '';
    let withRg: FilesystemBackend;
    let withoutRg: FilesystemBackend;
    let folderSearches = 0;
    const exists = (virtual: string) => fs.existsSync(path.join(withRg.rootDir, virtual));
    const isFolder = (virtual: string) => fs.statSync(path.join(withRg.rootDir, virtual)).isDirectory();

    beforeAll(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fsb-search-'));
      const root = setUp(dir);
      const tools = fs.mkdtempSync(path.join(os.tmpdir(), 'fsb-rgwrap-'));
      log = path.join(tools, 'calls.log');
      const wrapper = path.join(tools, 'rg');
      fs.writeFileSync(wrapper, `#!/bin/sh\ncase "$*" in *.git/HEAD*) ;; *) echo call >> '${log}' ;; esac\nexec '${RG}' "$@"\n`, { mode: 0o755 });
      withRg = new FilesystemBackend({ rootDir: root, ripgrepPath: wrapper });
      withoutRg = new FilesystemBackend({ rootDir: root, ripgrepPath: null });
    });
    afterAll(() => {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(path.dirname(log), { recursive: true, force: true });
    });

    it('grep gives identical matches for every pattern, glob, path and maxCount', { timeout: 240_000 }, async () => {
      let compared = 0;
      for (const searchPath of PATHS.filter(exists)) {
        for (const pattern of searchPath === '/' ? patterns : LINE_PATTERNS) {
          for (const glob of GLOBS) {
            for (const maxCount of glob === undefined ? [1000, 7, 1] : [1000]) {
              const a = await withRg.grep(pattern, searchPath, glob, maxCount);
              const b = await withoutRg.grep(pattern, searchPath, glob, maxCount);
              expect(a, `grep ${JSON.stringify(pattern)} in ${searchPath} glob ${glob} max ${maxCount}`).toEqual(b);
              expect(a.error).toBeUndefined();
              compared += a.matches?.length ?? 0;
              if (isFolder(searchPath)) folderSearches++;
            }
          }
        }
      }
      expect(compared).toBeGreaterThan(1000);
    });

    it('glob gives identical files for every pattern and path', { timeout: 120_000 }, async () => {
      for (const searchPath of PATHS.filter((p) => p !== '/many.txt' && exists(p))) {
        for (const pattern of GLOB_PATTERNS) {
          const a = await withRg.glob(pattern, searchPath);
          const b = await withoutRg.glob(pattern, searchPath);
          expect(a, `glob ${pattern} in ${searchPath}`).toEqual(b);
          expect(a.error).toBeUndefined();
          folderSearches++;
        }
      }
      const calls = fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
      if (ripgrep === 'every') expect(calls).toBe(folderSearches);
      else expect(calls).toBeGreaterThan(0);
    });
  });
}

describeEquality(
  'a tree whose root is a git repository',
  'every',
  (dir) => {
    buildTree(dir);
    return dir;
  },
  GREP_PATTERNS,
);

describeEquality('a tree without .git or nested repositories (ripgrep must not climb past the root)', 'every', (dir) => {
  buildTree(dir);
  fs.rmSync(path.join(dir, '.git'), { recursive: true });
  fs.rmSync(path.join(dir, 'nested/.git'), { recursive: true });
  return dir;
});

// Outside any repository ripgrep (14 and later) applies outer rules inside a nested one, so
// a folder holding one is searched in Node (searches inside the nested one use ripgrep).
describeEquality('a tree without .git holding a nested repository', 'some', (dir) => {
  buildTree(dir);
  fs.rmSync(path.join(dir, '.git'), { recursive: true });
  return dir;
});

// ripgrep would read the outer .gitignore for a subfolder search, so those run in Node.
function projectInsideIgnoringFolder(dir: string, keepNested: boolean): string {
  // The outer rules must not apply: only the project folder's .gitignore files count.
  write(dir, '.gitignore', '*.txt\nsub/\n');
  const root = path.join(dir, 'project');
  fs.mkdirSync(root);
  buildTree(root);
  fs.rmSync(path.join(root, '.git'), { recursive: true });
  if (!keepNested) fs.rmSync(path.join(root, 'nested/.git'), { recursive: true });
  return root;
}

describeEquality('a project folder inside a folder with its own .gitignore', 'some', (dir) => projectInsideIgnoringFolder(dir, false));
describeEquality('a project folder inside a folder with its own .gitignore, holding a nested repository', 'some', (dir) => projectInsideIgnoringFolder(dir, true));

const paths = (r: GrepResult | GlobResult) => [...new Set((r.matches ?? []).map((m) => m.path))];

describe.each([
  ['ripgrep', RG],
  ['Node', null],
] as const)('search rules with %s', (_name, ripgrepPath) => {
  let dir = '';
  let be: FilesystemBackend;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fsb-rules-'));
    buildTree(dir);
    be = new FilesystemBackend({ rootDir: dir, ripgrepPath });
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('honours .gitignore files, sees dot files, skips .git, binary and big files and symlinks', async () => {
    const found = paths(await be.grep('needle', '/', undefined, 100_000));
    for (const p of [
      '/.env', '/.hidden/dot.txt', '/B.txt', '/a.txt', '/bom.txt', '/colon:name.txt', '/crlf.txt', '/docs/a/b/page.md',
      '/invalid-utf8.txt', '/last.txt', '/late-nul.txt', '/many.txt', '/nested/y.log', '/secret-ok.txt', '/spaced name.txt',
      '/src/build/keep.txt', '/src/main.ts', '/sub.txt', '/sub/deeper/y.tmp', '/sub/important.log', '/x.tmp',
      '/ünïcødé/é.txt', '/ünïcødé/😀 file.txt',
    ]) {
      expect(found, p).toContain(p);
    }
    for (const p of [
      '/.git/config', '/.git/objects/ab/cdef', '/app.log', '/build/out.txt', '/build/deep/more.txt', '/secret.txt',
      '/src/node_modules/pkg/index.js', '/docs/a/b/page.gen.md', '/sub/other.log', '/sub/x.tmp', '/nested/ignored-here.txt',
      '/nested/.git/HEAD', '/bin.dat', '/big.txt', '/link.txt', '/linkdir/main.ts', '/empty.txt',
    ]) {
      expect(found, p).not.toContain(p);
    }
  });

  it('returns whole lines: CRLF stripped, invalid UTF-8 replaced, BOM kept, last line without newline', async () => {
    const res = await be.grep('needle', '/', '{crlf,invalid-utf8,bom,last,late-nul}.txt');
    expect(res.matches).toEqual([
      { path: '/bom.txt', line: 1, text: '\uFEFFneedle bom' },
      { path: '/crlf.txt', line: 1, text: 'needle' },
      { path: '/crlf.txt', line: 3, text: 'needle crlf' },
      { path: '/invalid-utf8.txt', line: 1, text: 'needle \uFFFD\uFFFD' },
      { path: '/last.txt', line: 2, text: 'needle last line without newline' },
      { path: '/late-nul.txt', line: 2, text: 'needle before' },
      { path: '/late-nul.txt', line: 4, text: 'needle after' },
    ]);
  });

  it('applies ancestor .gitignore files when searching a subfolder', async () => {
    expect(paths(await be.grep('needle', '/sub'))).toEqual(['/sub/deeper/y.tmp', '/sub/important.log']);
    expect(paths(await be.glob('*', '/sub'))).toEqual(['/sub/deeper/y.tmp', '/sub/important.log']);
    expect(paths(await be.glob('.*', '/sub'))).toEqual(['/sub/.gitignore', '/sub/deeper/.gitignore']);
  });

  it('never applies a .gitignore above the project folder', async () => {
    const outer = fs.mkdtempSync(path.join(os.tmpdir(), 'fsb-outer-'));
    try {
      write(outer, '.gitignore', '*.txt\nsub/\n');
      write(outer, 'project/a.txt', 'needle\n');
      write(outer, 'project/sub/b.txt', 'needle\n');
      write(outer, 'project/sub/c.log', 'needle\n');
      write(outer, 'project/sub/.gitignore', '*.log\n');
      const inner = new FilesystemBackend({ rootDir: path.join(outer, 'project'), ripgrepPath });
      expect(paths(await inner.grep('needle'))).toEqual(['/a.txt', '/sub/b.txt']);
      expect(paths(await inner.grep('needle', '/sub'))).toEqual(['/sub/b.txt']);
      expect(paths(await inner.glob('*.txt', '/sub'))).toEqual(['/sub/b.txt']);
    } finally {
      fs.rmSync(outer, { recursive: true, force: true });
    }
  });

  it('searches an explicitly given ignored folder, as ripgrep does', async () => {
    expect(paths(await be.grep('needle', '/build'))).toEqual(['/build/deep/more.txt', '/build/out.txt']);
  });

  it('cuts at maxCount in path order and flags truncation', async () => {
    const res = await be.grep('needle', '/', undefined, 3);
    expect(res.matches?.map((m) => `${m.path}:${m.line}`)).toEqual(['/.env:1', '/.hidden/dot.txt:1', '/B.txt:1']);
    expect(res.truncated).toBe(true);
    const many = await be.grep('needle', '/many.txt', undefined, 2000);
    expect(many.matches).toHaveLength(2000);
    expect(many.truncated).toBe(false);
    const cut = await be.grep('needle', '/many.txt', undefined, 1999);
    expect(cut.truncated).toBe(true);
  });

  it('skips files over maxFileSizeMb (a file exactly at the limit is searched)', async () => {
    const small = fs.mkdtempSync(path.join(os.tmpdir(), 'fsb-limit-'));
    try {
      write(small, 'at-limit.txt', 'needle\n' + 'x'.repeat(1000 - 7));
      write(small, 'over-limit.txt', 'needle\n' + 'x'.repeat(1001 - 7));
      const limited = new FilesystemBackend({ rootDir: small, ripgrepPath, maxFileSizeMb: 1000 / (1024 * 1024) });
      expect(paths(await limited.grep('needle'))).toEqual(['/at-limit.txt']);
      expect(paths(await limited.grep('needle', '/over-limit.txt'))).toEqual([]);
      expect(paths(await limited.glob('*.txt'))).toEqual(['/at-limit.txt', '/over-limit.txt']);
    } finally {
      fs.rmSync(small, { recursive: true, force: true });
    }
  });

  it('skips a binary file given directly as the path', async () => {
    expect((await be.grep('needle', '/bin.dat')).matches).toEqual([]);
    expect((await be.grep('needle', '/big.txt')).matches).toEqual([]);
  });

  it('reports a missing path and refuses a file for glob', async () => {
    expect((await be.grep('needle', '/nope')).error).toBe("Path '/nope' not found");
    expect((await be.glob('*', '/a.txt')).error).toBeTruthy();
  });

  it('gives glob results with size and modifiedAt', async () => {
    const res = await be.glob('a.txt');
    expect(res.matches).toEqual([{ path: '/a.txt', size: 25, modifiedAt: expect.stringMatching(/^\d{4}-/) }]);
    expect(res.truncated).toBe(false);
  });

  it('ends early with partial results flagged truncated when the time budget runs out', async () => {
    const big = fs.mkdtempSync(path.join(os.tmpdir(), 'fsb-budget-'));
    try {
      for (let d = 0; d < 60; d++) for (let f = 0; f < 50; f++) write(big, `d${d}/f${f}.txt`, 'needle\n');
      const hurried = new FilesystemBackend({ rootDir: big, ripgrepPath, searchTimeBudgetMs: 1 });
      const grep = await hurried.grep('needle', '/', undefined, 100_000);
      expect(grep.truncated).toBe(true);
      expect(grep.matches!.length).toBeLessThan(3000);
      const glob = await hurried.glob('*.txt');
      expect(glob.truncated).toBe(true);
      const patient = new FilesystemBackend({ rootDir: big, ripgrepPath });
      const all = await patient.grep('needle', '/', undefined, 100_000);
      expect(all.matches).toHaveLength(3000);
      expect(all.truncated).toBe(false);
    } finally {
      fs.rmSync(big, { recursive: true, force: true });
    }
  });

  it('stops when the AbortSignal fires', async () => {
    const res = await be.grep('needle', '/', undefined, 1000, { signal: AbortSignal.abort() });
    expect(res.truncated).toBe(true);
  });
});

describeRg('ripgrep fallback', () => {
  it('falls back to the Node search when the ripgrep executable cannot run', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fsb-norg-'));
    try {
      write(dir, 'a.txt', 'needle\n');
      const be = new FilesystemBackend({ rootDir: dir, ripgrepPath: path.join(dir, 'no-such-rg') });
      expect(paths(await be.grep('needle'))).toEqual(['/a.txt']);
      expect(paths(await be.glob('*.txt'))).toEqual(['/a.txt']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
