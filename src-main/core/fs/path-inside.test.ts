import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { insideWith, isPathBelow, isPathInside, isSlashPathInside } from './path-inside';

describe('isPathInside(root, path)', () => {
  it('takes the root itself and what lies below it', () => {
    expect(isPathInside('/a/b', '/a/b')).toBe(true);
    expect(isPathInside('/a/b', '/a/b/c')).toBe(true);
    expect(isPathInside('/a/b', '/a/b/c/d.txt')).toBe(true);
    expect(isPathInside('/', '/etc/passwd')).toBe(true);
  });
  it('refuses a sibling that shares the root as a prefix', () => {
    expect(isPathInside('/a/b', '/a/bc')).toBe(false);
    expect(isPathInside('/a/b', '/a/b-c/d')).toBe(false);
  });
  it('refuses the parent and paths that climb out with ..', () => {
    expect(isPathInside('/a/b', '/a')).toBe(false);
    expect(isPathInside('/a/b', '/a/b/../c')).toBe(false);
    expect(isPathInside('/a/b', '/a/b/c/../../x')).toBe(false);
    expect(isPathInside('/a/b', '/a/b/c/..')).toBe(true);
  });
  it('takes a child whose name only starts with two dots', () => {
    expect(isPathInside('/a/b', '/a/b/..hidden')).toBe(true);
    expect(isPathInside('/a/b', '/a/b/...')).toBe(true);
  });
  it('ignores trailing slashes and doubled separators', () => {
    expect(isPathInside('/a/b/', '/a/b')).toBe(true);
    expect(isPathInside('/a/b', '/a/b/')).toBe(true);
    expect(isPathInside('/a/b/', '/a/bc')).toBe(false);
    expect(isPathInside('/a//b', '/a/b/c')).toBe(true);
  });
  it('follows the same rule with Windows paths', () => {
    const win = (root: string, p: string): boolean => insideWith(path.win32, root, p);
    expect(win('C:\\a\\b', 'C:\\a\\b\\c')).toBe(true);
    expect(win('C:\\a\\b', 'c:\\A\\B\\c')).toBe(true);
    expect(win('C:\\a\\b', 'C:\\a\\bc')).toBe(false);
    expect(win('C:\\a\\b', 'D:\\a\\b\\c')).toBe(false);
    expect(win('C:\\a\\b', 'C:\\a\\b\\..\\c')).toBe(false);
    expect(win('C:\\a\\b\\', 'C:\\a\\b')).toBe(true);
  });
});

describe('isPathBelow(root, path)', () => {
  it('is isPathInside without the root itself', () => {
    expect(isPathBelow('/a/b', '/a/b')).toBe(false);
    expect(isPathBelow('/a/b/', '/a/b')).toBe(false);
    expect(isPathBelow('/a/b', '/a/b/c')).toBe(true);
    expect(isPathBelow('/a/b', '/a/bc')).toBe(false);
    expect(isPathBelow('/a/b', '/a/b/c/..')).toBe(false);
  });
});

describe('isSlashPathInside(root, path)', () => {
  it('works on virtual paths, the root `/` holding everything', () => {
    expect(isSlashPathInside('/', '/')).toBe(true);
    expect(isSlashPathInside('/', '/x/y')).toBe(true);
    expect(isSlashPathInside('/skills', '/skills/a')).toBe(true);
    expect(isSlashPathInside('/skills', '/skills')).toBe(true);
    expect(isSlashPathInside('/skills', '/skillset')).toBe(false);
    expect(isSlashPathInside('/skills/', '/skills/a')).toBe(true);
  });
  it('works on folder-relative paths', () => {
    expect(isSlashPathInside('a/b', 'a/b')).toBe(true);
    expect(isSlashPathInside('a/b', 'a/b/c')).toBe(true);
    expect(isSlashPathInside('a/b', 'a/bc')).toBe(false);
    expect(isSlashPathInside('a/b', 'a')).toBe(false);
    expect(isSlashPathInside('', 'a')).toBe(false);
  });
});
