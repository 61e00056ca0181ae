import { describe, expect, it } from 'vitest';
import { BATCH, PathExistence } from './path-exists';

/** A store whose questions are answered from `files`, and run when `tick` is called. */
function setup(files: Set<string>) {
  const asked: string[][] = [];
  let pending: Array<() => void> = [];
  const store = new PathExistence(
    async (paths) => {
      asked.push(paths);
      return paths.map((p) => files.has(p));
    },
    (run) => void pending.push(run),
  );
  const tick = async (): Promise<void> => {
    const runs = pending;
    pending = [];
    for (const run of runs) run();
    await new Promise((r) => setTimeout(r, 0));
  };
  return { store, asked, tick };
}

describe('PathExistence', () => {
  it('asks once, in one batch, for the paths shown, and tells who listens', async () => {
    const { store, asked, tick } = setup(new Set(['/README.md']));
    let told = 0;
    store.subscribe(() => told++);
    expect(store.get('/README.md')).toBeUndefined();
    expect(store.get('/missing.md')).toBeUndefined();
    expect(store.get('/README.md')).toBeUndefined();
    await tick();
    expect(asked).toEqual([['/README.md', '/missing.md']]);
    expect(told).toBeGreaterThan(0);
    expect(store.get('/README.md')).toBe(true);
    expect(store.get('/missing.md')).toBe(false);
    await tick();
    expect(asked).toHaveLength(1);
  });

  it('follows the folder: a file created later becomes a link, a deleted one (or one in a deleted folder) stops', async () => {
    const { store, tick } = setup(new Set(['/src/a.py', '/src/b.py']));
    store.get('/src/a.py');
    store.get('/src/b.py');
    store.get('/new.md');
    await tick();
    expect(store.get('/new.md')).toBe(false);
    store.apply([{ path: '/new.md', kind: 'add' }]);
    expect(store.peek('/new.md')).toBe(true);
    store.apply([{ path: '/src/a.py', kind: 'unlink' }]);
    expect(store.peek('/src/a.py')).toBe(false);
    // A folder deleted (reported as unlink or unlinkDir): what was known below it is asked again.
    store.apply([{ path: '/src', kind: 'unlink' }]);
    expect(store.peek('/src/b.py')).toBeUndefined();
    store.apply([{ path: '/docs', kind: 'addDir' }]);
    expect(store.peek('/docs')).toBe(false);
  });

  it('asks in batches the contract allows, and without an answer keeps paths links', async () => {
    const { store, asked, tick } = setup(new Set());
    for (let i = 0; i < BATCH + 5; i++) store.get(`/f${i}.txt`);
    await tick();
    expect(asked.map((b) => b.length)).toEqual([BATCH, 5]);

    const failing = new PathExistence(() => Promise.reject(new Error('unknown method')), (run) => run());
    failing.get('/a.md');
    await new Promise((r) => setTimeout(r, 0));
    expect(failing.peek('/a.md')).toBe(true);
  });

  it('an answer does not undo what the folder said meanwhile', async () => {
    const { store, tick } = setup(new Set());
    store.get('/late.md');
    store.apply([{ path: '/late.md', kind: 'add' }]);
    await tick();
    expect(store.peek('/late.md')).toBe(true);
  });
});
