import { describe, expect, it } from 'vitest';
import { splitPath } from './path-name';

describe('splitPath', () => {
  it('keeps the file name whole and puts every folder before it', () => {
    expect(splitPath('/src/deep/calc.py')).toEqual({ dir: '/src/deep/', base: 'calc.py' });
    expect(splitPath('src/calc.py')).toEqual({ dir: 'src/', base: 'calc.py' });
    expect(splitPath('/memories/short.md')).toEqual({ dir: '/memories/', base: 'short.md' });
  });

  it('a bare name, the root and a folder path', () => {
    expect(splitPath('README.md')).toEqual({ dir: '', base: 'README.md' });
    expect(splitPath('/')).toEqual({ dir: '', base: '/' });
    expect(splitPath('/a.md')).toEqual({ dir: '/', base: 'a.md' });
    expect(splitPath('/src/lib/')).toEqual({ dir: '/src/', base: 'lib/' });
  });

  it('loses nothing: the parts put together are the path', () => {
    for (const path of ['/x/y/z.ts', 'a', '/', '/src/lib/', 'docs/guide.md', '//odd//name']) {
      const { dir, base } = splitPath(path);
      expect(dir + base).toBe(path);
      expect(base).not.toBe('');
    }
  });
});
