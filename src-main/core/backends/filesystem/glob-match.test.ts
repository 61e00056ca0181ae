import { describe, expect, it } from 'vitest';
import { compileGlob, expandBraces } from './glob-match';

const files = ['a.py', 'sub/b.py', '.hidden.py', '.hidden/x.py'];
const run = (pattern: string) => files.filter((f) => compileGlob(pattern).matches(f)).sort();

describe('compileGlob', () => {
  it('follows the SPEC example', () => {
    expect(run('*.py')).toEqual(['.hidden/x.py', 'a.py', 'sub/b.py']);
    expect(run('**/*.py')).toEqual(['a.py', 'sub/b.py']);
    expect(run('/*.py')).toEqual(['a.py']);
    expect(run('.*.py')).toEqual(['.hidden.py']);
  });

  it('anchors patterns with a slash at the search folder', () => {
    expect(run('sub/*.py')).toEqual(['sub/b.py']);
    expect(run('/sub/*.py')).toEqual(['sub/b.py']);
    expect(run('.hidden/*.py')).toEqual(['.hidden/x.py']);
    expect(run('.hidden/**/*.py')).toEqual(['.hidden/x.py']);
    expect(compileGlob('src/**').matches('src/a/b.ts')).toBe(true);
    expect(compileGlob('src/**').matches('src/.git/b.ts')).toBe(false);
  });

  it('supports ?, classes, negated classes and braces', () => {
    const g = (p: string, f: string) => compileGlob(p).matches(f);
    expect(g('?.py', 'a.py')).toBe(true);
    expect(g('?.py', 'ab.py')).toBe(false);
    expect(g('?py', '.py')).toBe(false);
    expect(g('[ab].py', 'b.py')).toBe(true);
    expect(g('[!ab].py', 'b.py')).toBe(false);
    expect(g('[!ab].py', 'c.py')).toBe(true);
    expect(g('[^a].py', 'c.py')).toBe(true);
    expect(g('[a-c].py', 'b.py')).toBe(true);
    expect(g('*.{ts,tsx}', 'deep/x.tsx')).toBe(true);
    expect(g('{src,lib}/**/*.ts', 'lib/a/b.ts')).toBe(true);
    expect(g('{src,lib}/**/*.ts', 'test/a.ts')).toBe(false);
    expect(g('a.py', 'sub/a.py')).toBe(true);
    expect(g('a+b(1).txt', 'a+b(1).txt')).toBe(true);
    expect(g('*', '.env')).toBe(false);
  });

  it('matches whole code points: astral names, and lone surrogates in a pattern never match half of one', () => {
    const g = (p: string, f: string) => compileGlob(p).matches(f);
    expect(g('?', '🙂')).toBe(true);
    expect(g('??', '🙂')).toBe(false);
    expect(g('*🙂', 'a🙂')).toBe(true);
    expect(g('🙂*', '🙂.py')).toBe(true);
    expect(g('*.py', '🙂.py')).toBe(true);
    expect(g('*\uDE42', 'a🙂')).toBe(false);
    expect(g('\uD83D*', '🙂x')).toBe(false);
    expect(g('*\uDE42*', 'a🙂b')).toBe(false);
    expect(g('*\uDE42', 'a\uDE42')).toBe(true);
    expect(g('*[\uDE42]', 'a🙂')).toBe(false);
  });

  it('lets ** take any folders but dot-folders, at any depth', () => {
    const g = (p: string, f: string) => compileGlob(p).matches(f);
    expect(g('**/*.py', 'a/b/c/d.py')).toBe(true);
    expect(g('**/*.py', 'a/.b/c/d.py')).toBe(false);
    expect(g('**/*.py', 'a/b/.c/d.py')).toBe(false);
    expect(g('**/.*.py', 'a/b/.d.py')).toBe(true);
    expect(g('**/d.py', 'a/b.c/d.py')).toBe(true);
    expect(compileGlob('**/*.py').mayMatchBelow('a/b/.c')).toBe(false);
    expect(compileGlob('**/*.py').mayMatchBelow('a.b/c')).toBe(true);
    expect(compileGlob('**/*.py').mayMatchBelow('')).toBe(true);
  });

  it('expands nested braces', () => {
    expect(expandBraces('a{b,c{d,e}}f')).toEqual(['abf', 'acdf', 'acef']);
    expect(expandBraces('a{b')).toEqual(['a{b']);
  });

  it('tells walkers which folders can hold matches', () => {
    expect(compileGlob('src/*.ts').mayMatchBelow('src')).toBe(true);
    expect(compileGlob('src/*.ts').mayMatchBelow('lib')).toBe(false);
    expect(compileGlob('src/*.ts').mayMatchBelow('src/deeper')).toBe(false);
    expect(compileGlob('**/*.ts').mayMatchBelow('a/b/c')).toBe(true);
    expect(compileGlob('**/*.ts').mayMatchBelow('.git')).toBe(false);
    expect(compileGlob('*.ts').mayMatchBelow('.hidden')).toBe(true);
  });
});
