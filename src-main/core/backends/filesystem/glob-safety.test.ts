// issue 9 §5: a glob pattern cannot take the app down. Brace expansion is bounded with a
// clear error, matching is linear (no regex backtracking), a pathological search leaves
// the event loop responsive, and the semantics equal the old matcher's on ordinary input.
// The work is counted in the matcher's steps (globWork), never timed.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceCompileGlob } from './__fixtures__/regex-glob-reference';
import { FilesystemBackend } from './filesystem';
import { compileGlob, expandBraces, globWork, GlobPatternError, MAX_BRACE_ALTERNATIVES } from './glob-match';
import { createTestWorkspace, type TestWorkspace } from '../../tools/test-workspace.test-support';

const braces24 = '{a,b}'.repeat(24);
const starQ25 = '*?'.repeat(25);
const longName = 'a'.repeat(60) + '.txt';

/**
 * The matcher's steps that `run` takes. Past `bound` the matcher is stopped with an error, so
 * a runaway (backtracking, a full expansion) fails the test instead of hanging it.
 */
async function stepsWithin(bound: number, run: () => unknown): Promise<number> {
  const start = globWork.steps;
  let taken = 0;
  Object.defineProperty(globWork, 'steps', {
    configurable: true,
    get: () => start + taken,
    set: (value: number) => {
      taken = value - start;
      if (taken > bound) throw new Error(`the matcher took more than ${bound} steps`);
    },
  });
  try {
    await run();
  } finally {
    Object.defineProperty(globWork, 'steps', { configurable: true, enumerable: true, writable: true, value: start + taken });
  }
  return taken;
}

describe('brace expansion is bounded', () => {
  it.each([
    ['{a,b} × 24', braces24],
    ['{a,b} × 11', '{a,b}'.repeat(11)],
    ['one group of 1,001', `{${Array.from({ length: 1001 }, (_, i) => i).join(',')}}`],
    ['nested 11 deep', '{'.repeat(11) + 'a,b' + '}'.repeat(11)],
    ['nested products', '{{a,b}{c,d}{e,f},{g,h}}'.repeat(6)],
    ['300 groups', '{a}'.repeat(300)],
  ])('%s → a clear error, before expanding past the bound', async (_name, pattern) => {
    // Expanding {a,b}×24 in full would take 2^25 steps; stopping at the bound takes a few per alternative.
    await stepsWithin(3 * MAX_BRACE_ALTERNATIVES, () => expect(() => compileGlob(pattern)).toThrow(GlobPatternError));
  });

  it('accepts up to the bound and keeps the old expansion', () => {
    expect(expandBraces('{a,b}'.repeat(9))).toHaveLength(512);
    expect(expandBraces(`{${Array.from({ length: MAX_BRACE_ALTERNATIVES }, (_, i) => i).join(',')}}`)).toHaveLength(MAX_BRACE_ALTERNATIVES);
    expect(expandBraces('a{b,c{d,e}}f')).toEqual(['abf', 'acdf', 'acef']);
    expect(expandBraces('a{b')).toEqual(['a{b']);
    expect(expandBraces('x{y}{1,2}')).toEqual(['x{y}1', 'x{y}2']);
  });
});

describe('matching runs in linear time', () => {
  it.each([
    ['*?×25', starQ25],
    ['*a×30 then b', '*a'.repeat(30) + 'b'],
    ['?*×40 anchored', `src/${'?*'.repeat(40)}x`],
    ['classes and stars', '*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*!'],
    ['**×30', `${'**/'.repeat(30)}*.x`],
    ['**/a ×15', `${'**/a/'.repeat(15)}b`],
  ])('%s against hostile names and paths', async (_name, pattern) => {
    const matcher = compileGlob(pattern);
    const deepPath = 'a/'.repeat(40) + longName;
    // At most (path × pattern) steps per call; backtracking would take exponentially many.
    await stepsWithin(4 * (deepPath.length + 1) * (pattern.length + 1), () => {
      matcher.matches(longName);
      matcher.matches(deepPath);
      matcher.mayMatchBelow('a/'.repeat(40).slice(0, -1));
      // One `a` folder short of `**/a ×15`: every way of placing the `**` fails.
      matcher.matches(`${'x/'.repeat(26)}${'a/'.repeat(14)}b`);
    });
  });
});

describe('the same results as before on ordinary patterns (differential against the old regex matcher)', () => {
  it('agrees on thousands of generated pattern/path pairs', () => {
    let seed = 42;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
    // Lone surrogates and astral names check that `*lit`-style shortcuts never split a code point.
    const atoms = ['a', 'b', '.', '*', '?', '**', '[ab]', '[!a]', '[a-c]', '[^b]', '{a,b}', '{,.}', 'x', '[', ']', '.py', '日', '🙂', '{a,{b,c}}', '-', '\uDE42', '\uD83D'];
    const names = ['a', 'b', '.a', 'ab', 'a.py', '.hidden', 'x', 'b.py', '日本', '🙂', 'a-b', '[a]', 'abc', '.', 'a🙂', '🙂.py', '.py🙂b', 'a\uD83D', '\uDE42b'];
    let compared = 0;
    for (let i = 0; i < 4000; i++) {
      const segs = Array.from({ length: 1 + rand(3) }, () => Array.from({ length: 1 + rand(4) }, () => atoms[rand(atoms.length)]!).join(''));
      const pattern = (rand(3) === 0 ? '/' : '') + segs.join('/');
      let reference;
      try {
        reference = referenceCompileGlob(pattern);
      } catch {
        continue; // the old matcher could not compile it (e.g. a reversed range)
      }
      const current = compileGlob(pattern);
      for (let k = 0; k < 6; k++) {
        const path = Array.from({ length: 1 + rand(3) }, () => names[rand(names.length)]!).join('/');
        expect(current.matches(path), `${pattern} ~ ${path}`).toBe(reference.matches(path));
        const dir = path.slice(0, Math.max(0, path.lastIndexOf('/')));
        expect(current.mayMatchBelow(dir), `${pattern} below ${dir}`).toBe(reference.mayMatchBelow(dir));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(10_000);
  });
});

describe('searches through the tools', () => {
  let ws: TestWorkspace;
  beforeAll(() => {
    ws = createTestWorkspace({ execute: false });
    for (let d = 0; d < 20; d++) {
      mkdirSync(join(ws.folder, `dir${d}`, 'a'.repeat(40)), { recursive: true });
      for (let f = 0; f < 20; f++) writeFileSync(join(ws.folder, `dir${d}`, 'a'.repeat(40), `${'a'.repeat(50)}${f}.txt`), 'needle\n');
    }
  });
  afterAll(() => ws.dispose());

  it.each(['glob', 'grep'])('%s with {a,b}×24 returns Error: and the process lives', async (tool) => {
    const args = tool === 'glob' ? { pattern: braces24 } : { pattern: 'needle', glob: braces24 };
    const out = await ws.run(tool, args);
    expect(out).toMatch(/^Error: .*more than 1000 alternatives/);
  });

  it.each(['glob', 'grep'])('%s with *?×25 finishes, in linear work, and a timer keeps firing meanwhile', async (tool) => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const pattern = `${starQ25}.txt`;
    try {
      const args = tool === 'glob' ? { pattern } : { pattern: 'needle', glob: pattern, output_mode: 'count' };
      // Each of the 440 names (400 files, 40 folders) costs at most (name × pattern) steps.
      const steps = await stepsWithin(440 * 57 * (pattern.length + 1), async () => {
        const out = await ws.run(tool, args);
        expect(out.split('\n').length).toBe(400);
      });
      expect(steps).toBeGreaterThan(0);
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(0);
  });

  it('the backend answers with an error object, not an exception', async () => {
    const fs = new FilesystemBackend({ rootDir: ws.folder });
    expect((await fs.glob(braces24)).error).toMatch(/alternatives/);
    expect((await fs.grep('needle', '/', braces24)).error).toMatch(/alternatives/);
    expect((await ws.mounts.backend.glob(braces24)).error).toMatch(/alternatives/);
    expect((await ws.mounts.backend.grep('x', '/', braces24)).error).toMatch(/alternatives/);
  });
});
