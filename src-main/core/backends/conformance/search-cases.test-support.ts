// Conformance cases for grep and glob (SPEC §2, §3): literal search, ordering,
// truncation and the shared glob semantics.

import { describe, expect, it } from 'vitest';
import { messages } from '../messages';
import { compareCodePoints } from '../paths';
import type { GrepMatch } from '../protocol';
import type { SuiteContext } from './context.test-support';
import { expectIsoTimestamp, pathsOf } from './context.test-support';

/** The SPEC §3 example tree. */
const SPEC_TREE = { 'a.py': 'needle a\n', 'sub/b.py': 'needle b\n', '.hidden.py': 'needle h\n', '.hidden/x.py': 'needle x\n' };

export function searchCases(ctx: SuiteContext): void {
  const { v } = ctx;
  const b = () => ctx.backend();
  const hit = (rel: string, line: number, text: string): GrepMatch => ({ path: v(rel), line, text });
  const grepPaths = async (pattern: string, path: string, glob?: string) => {
    const res = await b().grep(pattern, path, glob);
    expect(res.error, `grep ${pattern} in ${path} glob ${glob}`).toBeUndefined();
    return [...new Set(pathsOf(res.matches))];
  };
  const globPaths = async (pattern: string, path: string) => {
    const res = await b().glob(pattern, path);
    expect(res.error, `glob ${pattern} in ${path}`).toBeUndefined();
    return pathsOf(res.matches);
  };

  describe('grep', () => {
    it('matches regex metacharacters literally', async () => {
      await ctx.seed({ 'm.txt': 'a.c\nabc\n(x) here\nx here\n[a]\n\\d1\n12\nfoo|bar\nfoo\n.*\nhéllo wörld\n' });
      const lines = async (pattern: string) => ((await b().grep(pattern, v(''))).matches ?? []).map((m) => m.line);
      expect(await lines('a.c')).toEqual([1]);
      expect(await lines('(x)')).toEqual([3]);
      expect(await lines('[a]')).toEqual([5]);
      expect(await lines('\\d')).toEqual([6]);
      expect(await lines('foo|bar')).toEqual([8]);
      expect(await lines('.*')).toEqual([10]);
      expect(await lines('ö')).toEqual([11]);
    });

    it('skips .git/ in grep and glob', async () => {
      await ctx.seed({ '.git/config': 'needle in git\n', 'sub/.git/HEAD': 'needle\n', 'a.txt': 'needle\n', '.gitignore.txt': 'needle\n' });
      expect(await grepPaths('needle', v(''))).toEqual([v('.gitignore.txt'), v('a.txt')]);
      expect(await globPaths('*', v(''))).toEqual([v('a.txt')]);
      expect(await globPaths('.*', v(''))).toEqual([v('.gitignore.txt')]);
    });

    it('is case-sensitive', async () => {
      await ctx.seed({ 'c.txt': 'Needle\nneedle\nNEEDLE\n' });
      const res = await b().grep('needle', v(''));
      expect(res.matches).toEqual([hit('c.txt', 2, 'needle')]);
    });

    it('returns whole lines without line endings', async () => {
      await ctx.seed({ 'w.txt': '  indented needle here  \n', 'crlf.txt': 'first\r\nthe needle\r\n' });
      const res = await b().grep('needle', v(''));
      expect(res.matches).toEqual([hit('crlf.txt', 2, 'the needle'), hit('w.txt', 1, '  indented needle here  ')]);
    });

    it('sorts matches by path (code point) then line', async () => {
      await ctx.seed({
        'b.txt': 'needle 1\nhay\nneedle 3\n',
        'sub/c.txt': 'needle\n',
        'B.txt': 'hay\nneedle\n',
        'a.txt': 'hay\nneedle two\n',
        'sub.txt': 'needle\n',
      });
      const res = await b().grep('needle', v(''));
      expect(res.error).toBeUndefined();
      expect(res.matches).toEqual([
        hit('B.txt', 2, 'needle'),
        hit('a.txt', 2, 'needle two'),
        hit('b.txt', 1, 'needle 1'),
        hit('b.txt', 3, 'needle 3'),
        hit('sub.txt', 1, 'needle'),
        hit('sub/c.txt', 1, 'needle'),
      ]);
      expect(res.truncated).toBeFalsy();
    });

    it('searches a folder given as path', async () => {
      await ctx.seed({ 'top.txt': 'needle\n', 'sub/in.txt': 'needle\n', 'sub/deep/d.txt': 'x needle\n', 'subway.txt': 'needle\n' });
      const res = await b().grep('needle', v('sub'));
      expect(res.matches).toEqual([hit('sub/deep/d.txt', 1, 'x needle'), hit('sub/in.txt', 1, 'needle')]);
    });

    it('searches a single file given as path', async () => {
      await ctx.seed({ 'one.txt': 'a needle\nno\nneedle b\n', 'two.txt': 'needle\n' });
      const res = await b().grep('needle', v('one.txt'));
      expect(res.matches).toEqual([hit('one.txt', 1, 'a needle'), hit('one.txt', 3, 'needle b')]);
    });

    it('finds files under the root with the default path', async () => {
      await ctx.seed({ 'sub/f.txt': 'needle\n' });
      const res = await b().grep('needle');
      expect(res.error).toBeUndefined();
      expect(res.matches).toEqual([hit('sub/f.txt', 1, 'needle')]);
    });

    it('filters files by glob with the SPEC §3 semantics', async () => {
      await ctx.seed({ ...SPEC_TREE, 'c.txt': 'needle c\n' });
      expect(await grepPaths('needle', v(''), '*.py')).toEqual([v('.hidden/x.py'), v('a.py'), v('sub/b.py')]);
      expect(await grepPaths('needle', v(''), '**/*.py')).toEqual([v('a.py'), v('sub/b.py')]);
      expect(await grepPaths('needle', v(''), '/*.py')).toEqual([v('a.py')]);
      expect(await grepPaths('needle', v(''), '.*.py')).toEqual([v('.hidden.py')]);
      expect(await grepPaths('needle', v(''), '*.{txt,md}')).toEqual([v('c.txt')]);
    });

    it('applies the glob relative to the searched folder', async () => {
      await ctx.seed({ ...SPEC_TREE, 'sub/deeper/y.py': 'needle y\n' });
      expect(await grepPaths('needle', v('sub'), '/*.py')).toEqual([v('sub/b.py')]);
      expect(await grepPaths('needle', v('sub'), 'deeper/*.py')).toEqual([v('sub/deeper/y.py')]);
      expect(await grepPaths('needle', v('sub'), '*.py')).toEqual([v('sub/b.py'), v('sub/deeper/y.py')]);
    });

    it('keeps the first maxCount matches in (path, line) order and sets truncated', async () => {
      await ctx.seed({ 'z.txt': 'hit 5\n', 'm.txt': 'hit 3\nhit 4\n', 'a.txt': 'hit 1\nmiss\nhit 2\n' });
      const res = await b().grep('hit', v(''), undefined, 3);
      expect(res.matches).toEqual([hit('a.txt', 1, 'hit 1'), hit('a.txt', 3, 'hit 2'), hit('m.txt', 1, 'hit 3')]);
      expect(res.truncated).toBe(true);
      const all = await b().grep('hit', v(''), undefined, 5);
      expect(all.matches).toHaveLength(5);
      expect(all.truncated).toBeFalsy();
    });

    it('truncates by order, not by discovery, across many folders', async () => {
      const files: Record<string, string> = {};
      for (let i = 24; i >= 0; i--) files[`d${i}/f${i % 3}.txt`] = `hit ${i}\nhit ${i} again\n`;
      await ctx.seed(files);
      const expected = Object.keys(files)
        .map((rel) => v(rel))
        .sort(compareCodePoints)
        .flatMap((path) => [1, 2].map((line) => `${path}:${line}`));
      const res = await b().grep('hit', v(''), undefined, 7);
      expect((res.matches ?? []).map((m) => `${m.path}:${m.line}`)).toEqual(expected.slice(0, 7));
      expect(res.truncated).toBe(true);
    });

    it('stops at 1000 matches by default', async () => {
      await ctx.seed({ 'many.txt': 'x\n'.repeat(1001) });
      const res = await b().grep('x', v(''));
      expect(res.matches).toHaveLength(1000);
      expect(res.matches?.[999]).toEqual(hit('many.txt', 1000, 'x'));
      expect(res.truncated).toBe(true);
    });

    it('returns an empty list when nothing matches', async () => {
      await ctx.seed({ 'f.txt': 'hay\n' });
      const res = await b().grep('needle', v(''));
      expect(res.error).toBeUndefined();
      expect(res.matches).toEqual([]);
      expect(res.truncated).toBeFalsy();
    });

    it('skips binary files', async () => {
      await ctx.seedBytes('blob.dat', new TextEncoder().encode('needle\0needle\n'));
      await ctx.seed({ 'text.txt': 'needle\n' });
      const res = await b().grep('needle', v(''));
      expect(res.matches).toEqual([hit('text.txt', 1, 'needle')]);
    });

    it('reports a missing path', async () => {
      expect((await b().grep('needle', v('nope'))).error).toBeTruthy();
    });
  });

  describe('glob', () => {
    it('follows the SPEC §3 example exactly', async () => {
      await ctx.seed(SPEC_TREE);
      expect(await globPaths('*.py', v(''))).toEqual([v('.hidden/x.py'), v('a.py'), v('sub/b.py')]);
      expect(await globPaths('**/*.py', v(''))).toEqual([v('a.py'), v('sub/b.py')]);
      expect(await globPaths('/*.py', v(''))).toEqual([v('a.py')]);
      expect(await globPaths('.*.py', v(''))).toEqual([v('.hidden.py')]);
    });

    it('returns files only, sorted, with size and modifiedAt', async () => {
      await ctx.seed({ 'b.txt': 'bb', 'a.txt': 'a', 'A.txt': 'AAA', 'dir.txt/inner.md': 'x', '😀.txt': '', '\uFF5A.txt': 'z' });
      const res = await b().glob('*.txt', v(''));
      expect(res.error).toBeUndefined();
      expect(pathsOf(res.matches)).toEqual([v('A.txt'), v('a.txt'), v('b.txt'), v('\uFF5A.txt'), v('😀.txt')]);
      expect(res.matches?.map((m) => m.size)).toEqual([3, 1, 2, 1, 0]);
      for (const m of res.matches ?? []) {
        expect(m.isDir).toBeFalsy();
        expectIsoTimestamp(m);
      }
      expect(res.truncated).toBeFalsy();
    });

    it('supports {a,b}, ?, [...] and [!...]', async () => {
      await ctx.seed({ 'src/a.ts': '', 'src/b.ts': '', 'src/c.ts': '', 'src/ab.ts': '', 'src/d.js': '' });
      const src = v('src');
      expect(await globPaths('{a,b}.ts', src)).toEqual([v('src/a.ts'), v('src/b.ts')]);
      expect(await globPaths('?.ts', src)).toEqual([v('src/a.ts'), v('src/b.ts'), v('src/c.ts')]);
      expect(await globPaths('[ab].ts', src)).toEqual([v('src/a.ts'), v('src/b.ts')]);
      expect(await globPaths('[!ab].ts', src)).toEqual([v('src/c.ts')]);
      expect(await globPaths('*.{ts,js}', src)).toEqual([v('src/a.ts'), v('src/ab.ts'), v('src/b.ts'), v('src/c.ts'), v('src/d.js')]);
    });

    it('searches below the path argument and returns full paths', async () => {
      await ctx.seed({ ...SPEC_TREE, 'sub/deeper/y.py': '' });
      expect(await globPaths('*.py', v('sub'))).toEqual([v('sub/b.py'), v('sub/deeper/y.py')]);
      expect(await globPaths('/*.py', v('sub'))).toEqual([v('sub/b.py')]);
      expect(await globPaths('deeper/*.py', v('sub'))).toEqual([v('sub/deeper/y.py')]);
      expect(await globPaths('**/*.py', v('sub'))).toEqual([v('sub/b.py'), v('sub/deeper/y.py')]);
    });

    it('finds files under the root with the default path', async () => {
      await ctx.seed({ 'sub/f.md': '' });
      const res = await b().glob('*.md');
      expect(res.error).toBeUndefined();
      expect(pathsOf(res.matches)).toEqual([v('sub/f.md')]);
    });

    it('returns an empty list when nothing matches', async () => {
      await ctx.seed({ 'f.txt': '' });
      const res = await b().glob('*.py', v(''));
      expect(res.error).toBeUndefined();
      expect(res.matches).toEqual([]);
    });

    it('reports a missing path with the exact message', async () => {
      expect((await b().glob('*', v('nope'))).error).toBe(messages.pathNotFound(v('nope')));
    });
  });
}
