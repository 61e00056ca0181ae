import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ancestorRules, childStack, compileGitignore, isIgnored } from './fs-gitignore';
import { Walker } from './fs-walk';

describe('gitignore stacks', () => {
  const root = path.join(path.sep, 'r');
  const top = compileGitignore(root, '*.log\n/build/\ndocs/*.md\n!keep.md\nCase.txt\n');
  const sub = compileGitignore(path.join(root, 'sub'), '!important.log\n');
  const stack = childStack(childStack([], top, false), sub, false);
  const at = (...parts: string[]) => path.join(root, ...parts);

  it('lets the deepest file with a matching rule decide', () => {
    expect(isIgnored(stack, at('sub', 'important.log'), false)).toBe(false);
    expect(isIgnored(stack, at('sub', 'other.log'), false)).toBe(true);
  });

  it('anchors patterns to their own folder and matches folders only with a trailing slash rule', () => {
    expect(isIgnored(stack, at('build'), true)).toBe(true);
    expect(isIgnored(stack, at('build'), false)).toBe(false);
    expect(isIgnored(stack, at('src', 'build'), true)).toBe(false);
    expect(isIgnored(stack, at('docs', 'a.md'), false)).toBe(true);
    expect(isIgnored(stack, at('docs', 'keep.md'), false)).toBe(false);
    expect(isIgnored(stack, at('docs', 'deep', 'a.md'), false)).toBe(false);
  });

  it('tests a path on its own, not through its parent folders (as ripgrep does)', () => {
    expect(isIgnored(stack, at('build', 'x.txt'), false)).toBe(false);
  });

  it('is case-sensitive', () => {
    expect(isIgnored(stack, at('Case.txt'), false)).toBe(true);
    expect(isIgnored(stack, at('case.txt'), false)).toBe(false);
  });

  it('starts over in a folder that holds .git', () => {
    const nested = childStack(stack, null, true);
    expect(isIgnored(nested, at('sub', 'repo', 'x.log'), false)).toBe(false);
  });
});

describe('Walker', () => {
  let dir = '';
  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fsb-walk-')));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const put = (rel: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), 'x');
  };

  it('walks files with ancestor rules, skipping .git, ignored folders and pruned folders', async () => {
    put('.gitignore');
    fs.writeFileSync(path.join(dir, '.gitignore'), 'out/\n*.tmp\n');
    for (const rel of ['a.txt', 'b.tmp', '.git/HEAD', 'out/x.txt', 'src/y.ts', 'src/z.tmp', 'skip/w.txt', '.dot/v.txt']) put(rel);
    const seen: string[] = [];
    for await (const f of new Walker({ root: dir, start: dir, enterDir: (rel) => rel !== 'skip' }).files()) seen.push(f.rel);
    expect(seen.sort()).toEqual(['.dot/v.txt', '.gitignore', 'a.txt', 'src/y.ts']);
    const below: string[] = [];
    for await (const f of new Walker({ root: dir, start: path.join(dir, 'src') }).files()) below.push(f.rel);
    expect(below).toEqual(['y.ts']);
    expect((await ancestorRules(dir, path.join(dir, 'src'))).stack).toHaveLength(1);
  });

  it('stops early when asked and says it did not complete', async () => {
    for (let i = 0; i < 20; i++) put(`d${i}/f.txt`);
    const walker = new Walker({ root: dir, start: dir, shouldStop: () => true });
    const seen: string[] = [];
    for await (const f of walker.files()) seen.push(f.rel);
    expect(seen).toEqual([]);
    expect(walker.completed).toBe(false);
  });
});
