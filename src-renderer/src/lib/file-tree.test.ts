import { describe, it, expect } from 'vitest';
import { agentChangedPaths, changeMarks, dirKey, folderCounts, foldersToRefresh, nameOf, parentKey, sortEntries, visibleRows, type Listings } from './file-tree';

const f = (path: string) => ({ path, isDir: false, size: 1 });
const d = (path: string) => ({ path, isDir: true });

describe('file tree', () => {
  it('normalises folder keys', () => {
    expect(dirKey('/src/')).toBe('/src');
    expect(dirKey('/')).toBe('/');
    expect(dirKey('src')).toBe('/src');
    expect(parentKey('/src/a.ts')).toBe('/src');
    expect(parentKey('/a.ts')).toBe('/');
    expect(parentKey('/src/')).toBe('/');
    expect(nameOf('/src/lib/')).toBe('lib');
  });

  it('lists the visible rows with levels and positions', () => {
    const listings: Listings = {
      '/': { entries: [d('/src/'), f('/README.md')] },
      '/src': { entries: [d('/src/lib/'), f('/src/a.ts')] },
    };
    const rows = visibleRows(listings, new Set(['/src', '/src/lib']));
    expect(rows.map((r) => [r.name, r.level, r.posinset, r.setsize, r.expanded, r.loading])).toEqual([
      ['src', 1, 1, 2, true, false],
      ['lib', 2, 1, 2, true, true],
      ['a.ts', 2, 2, 2, false, false],
      ['README.md', 1, 2, 2, false, false],
    ]);
    expect(visibleRows(listings, new Set()).map((r) => r.name)).toEqual(['src', 'README.md']);
  });

  it('re-lists the parents of changed paths that are loaded', () => {
    const loaded = ['/', '/src', '/src/lib', '/docs'];
    expect(foldersToRefresh([{ path: '/src/a.ts', kind: 'add' }, { path: '/src/b.ts', kind: 'change' }, { path: '/x/y.ts', kind: 'change' }], loaded)).toEqual({ refresh: ['/src'], drop: [] });
    // a file added inside a folder nobody listed: the nearest listed ancestor shows the new folder
    expect(foldersToRefresh([{ path: '/src/new/deep/a.ts', kind: 'add' }], loaded)).toEqual({ refresh: ['/src'], drop: [] });
    expect(foldersToRefresh([{ path: '/x/y.ts', kind: 'add' }], loaded)).toEqual({ refresh: ['/'], drop: [] });
    expect(foldersToRefresh([{ path: '/new', kind: 'addDir' }], loaded)).toEqual({ refresh: ['/'], drop: [] });
    expect(foldersToRefresh([{ path: '/src', kind: 'unlinkDir' }, { path: '/src/lib/q.ts', kind: 'unlink' }], loaded)).toEqual({ refresh: ['/'], drop: ['/src', '/src/lib'] });
    // The watcher reports a deleted folder as a plain unlink: a listed one is dropped all the same.
    expect(foldersToRefresh([{ path: '/src', kind: 'unlink' }], loaded)).toEqual({ refresh: ['/'], drop: ['/src', '/src/lib'] });
  });

  it('sorts folders first', () => {
    expect(sortEntries([f('/b.txt'), d('/z/'), f('/A.txt')]).map((e) => e.path)).toEqual(['/z/', '/A.txt', '/b.txt']);
  });
});

describe('agentChangedPaths', () => {
  it('collects successful writes and edits only', () => {
    const items = [
      { kind: 'tool', name: 'write_file', args: { file_path: '/src/a.ts' }, output: 'Updated file /src/a.ts' },
      { kind: 'tool', name: 'edit_file', args: { file_path: 'b.md' }, output: "Successfully replaced 1 instance(s) of the string in '/b.md'" },
      { kind: 'tool', name: 'edit_file', args: { file_path: '/c.md' }, output: 'Error: String not found in file', isError: true },
      { kind: 'tool', name: 'write_file', args: { file_path: '/pending.md' } },
      { kind: 'tool', name: 'read_file', args: { file_path: '/d.md' }, output: '     1\tx' },
      { kind: 'user', text: 'hi' },
    ];
    expect([...agentChangedPaths(items).keys()].sort()).toEqual(['/b.md', '/src/a.ts']);
  });

  it('marks a file its first change made as added, any other as modified', () => {
    const items = [
      { kind: 'tool', name: 'write_file', args: { file_path: '/new.py' }, output: 'Updated file /new.py', change: { created: true } },
      { kind: 'tool', name: 'edit_file', args: { file_path: '/new.py' }, output: "Successfully replaced 1 instance(s) of the string in '/new.py'", change: { created: false } },
      { kind: 'tool', name: 'write_file', args: { file_path: '/old.py' }, output: 'Updated file /old.py', change: { created: false } },
    ];
    expect(Object.fromEntries(agentChangedPaths(items))).toEqual({ '/new.py': 'added', '/old.py': 'modified' });
  });
});

describe('changeMarks', () => {
  it("takes the checkpoints' word over the calls', and adds what commands changed", () => {
    const calls = new Map([['/a.py', 'modified' as const], ['/b.py', 'modified' as const]]);
    const recorded = [
      { path: '/a.py', status: 'added' },
      { path: '/made.txt', status: 'added' },
      { path: '/ran.txt', status: 'modified' },
      { path: '/gone.txt', status: 'deleted' },
    ];
    expect(Object.fromEntries(changeMarks(calls, recorded))).toEqual({ '/a.py': 'added', '/b.py': 'modified', '/made.txt': 'added', '/ran.txt': 'modified' });
  });
});

describe('folderCounts', () => {
  it('counts the changed files every folder above them holds (the root aside)', () => {
    expect(Object.fromEntries(folderCounts(['/src/lib/a.ts', '/src/b.ts', '/README.md', '/docs/x/y/z.md']))).toEqual({ '/src/lib': 1, '/src': 2, '/docs/x/y': 1, '/docs/x': 1, '/docs': 1 });
  });
});
