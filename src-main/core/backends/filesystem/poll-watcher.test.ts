// The polling folder watcher of remote folders (SPEC §13), against a real folder through
// FilesystemBackend: the same Backend protocol a remote folder's backend serves.

import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FilesystemBackend } from './filesystem';
import { PollWatcher, type PolledChange, type PollWatcherOptions } from './poll-watcher';
import type { Backend } from '../protocol';

let root: string;
let watchers: PollWatcher[] = [];
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'deepdesk-poll-watcher-'));
});
afterEach(async () => {
  for (const w of watchers) await w.close();
  watchers = [];
  rmSync(root, { recursive: true, force: true });
});

/** The folder's backend, counting the folders each ls call lists. */
function countingBackend(): { backend: Backend; listed: string[] } {
  const inner = new FilesystemBackend({ rootDir: root });
  const listed: string[] = [];
  const backend = Object.create(inner) as Backend;
  backend.ls = (path: string) => {
    listed.push(path);
    return inner.ls(path);
  };
  return { backend, listed };
}

function watcher(extra: Partial<PollWatcherOptions> = {}) {
  const { backend, listed } = countingBackend();
  const changes: PolledChange[][] = [];
  const errors: string[] = [];
  const w = new PollWatcher({ backend, onChanges: (c) => changes.push(c), onError: (e) => errors.push(e), ...extra });
  watchers.push(w);
  /** One tick's changes, sorted by path then kind. */
  const tick = async (): Promise<PolledChange[]> => {
    const before = changes.length;
    await w.tick();
    return changes.slice(before).flat().sort((a, b) => a.path.localeCompare(b.path) || a.kind.localeCompare(b.kind));
  };
  return { w, tick, listed, errors };
}

describe('PollWatcher', () => {
  it('reports files and folders added, changed and removed in a watched folder, nothing on its first listing', async () => {
    writeFileSync(join(root, 'keep.txt'), 'same\n');
    writeFileSync(join(root, 'grow.txt'), 'a\n');
    mkdirSync(join(root, 'old-dir'));
    const { w, tick } = watcher();
    w.watch('/');
    expect(await tick()).toEqual([]);

    writeFileSync(join(root, 'new.txt'), 'hello\n');
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'grow.txt'), 'a\nb\n');
    rmSync(join(root, 'old-dir'), { recursive: true });
    expect(await tick()).toEqual([
      { path: '/grow.txt', kind: 'change' },
      { path: '/new.txt', kind: 'add' },
      { path: '/old-dir', kind: 'unlinkDir' },
      { path: '/src', kind: 'addDir' },
    ]);
    // Nothing changed: nothing told.
    expect(await tick()).toEqual([]);

    // The same size, a new modification time.
    utimesSync(join(root, 'keep.txt'), new Date(), new Date(Date.now() + 60_000));
    rmSync(join(root, 'new.txt'));
    expect(await tick()).toEqual([
      { path: '/keep.txt', kind: 'change' },
      { path: '/new.txt', kind: 'unlink' },
    ]);

    // A file that became a folder.
    rmSync(join(root, 'grow.txt'));
    mkdirSync(join(root, 'grow.txt'));
    expect(await tick()).toEqual([
      { path: '/grow.txt', kind: 'addDir' },
      { path: '/grow.txt', kind: 'unlink' },
    ]);
  });

  it('is lazy: a folder is listed only while watched, and its changes told only then', async () => {
    mkdirSync(join(root, 'a'));
    const { w, tick, listed } = watcher();
    w.watch('/');
    await tick();
    writeFileSync(join(root, 'a', 'inside.txt'), 'x\n');
    expect(await tick()).toEqual([]);
    expect(listed.every((p) => p === '/')).toBe(true);

    w.watch('/a/');
    expect(await tick()).toEqual([]); // its baseline, inside.txt included
    writeFileSync(join(root, 'a', 'second.txt'), 'y\n');
    expect(await tick()).toEqual([{ path: '/a/second.txt', kind: 'add' }]);

    w.unwatch('/a');
    writeFileSync(join(root, 'a', 'third.txt'), 'z\n');
    const seen = listed.length;
    expect(await tick()).toEqual([]);
    expect(listed.slice(seen)).toEqual(['/']);
  });

  it('takes the tree’s own listing as the baseline, so what changed since is told on the first tick', async () => {
    const backend = new FilesystemBackend({ rootDir: root });
    const known = (await backend.ls('/')).entries!;
    const { w, tick } = watcher();
    w.watch('/', known);
    writeFileSync(join(root, 'after.txt'), 'x\n');
    expect(await tick()).toEqual([{ path: '/after.txt', kind: 'add' }]);
  });

  it('bounds the work of a tick, every watched folder taking its turn', async () => {
    const { w, tick, listed } = watcher({ maxListsPerTick: 3 });
    const dirs = Array.from({ length: 10 }, (_, i) => `/d${i}`);
    for (const dir of dirs) mkdirSync(join(root, dir));
    for (const dir of dirs) w.watch(dir);
    // Baselines: 10 folders, 3 a tick.
    for (let i = 0; i < 4; i++) {
      const seen = listed.length;
      await tick();
      expect(listed.length - seen).toBeLessThanOrEqual(3);
    }
    expect(new Set(listed)).toEqual(new Set(dirs));

    for (const dir of dirs) writeFileSync(join(root, dir, 'f.txt'), 'x\n');
    const told: PolledChange[] = [];
    for (let i = 0; i < 4; i++) {
      const seen = listed.length;
      told.push(...(await tick()));
      expect(listed.length - seen).toBeLessThanOrEqual(3);
    }
    expect(told.map((c) => c.path).sort()).toEqual(dirs.map((d) => `${d}/f.txt`).sort());
  });

  it('stops following a folder that went (its parent tells it), and anything below it', async () => {
    mkdirSync(join(root, 'a', 'b'), { recursive: true });
    const { w, tick, errors } = watcher();
    w.watch('/');
    w.watch('/a');
    w.watch('/a/b');
    await tick();
    rmSync(join(root, 'a'), { recursive: true });
    expect(await tick()).toEqual([{ path: '/a', kind: 'unlinkDir' }]);
    expect(w.watched()).toEqual(['/']);
    expect(errors).toEqual([]);
  });

  it('tells a failing root once, and follows changes again once it can be listed', async () => {
    const inner = new FilesystemBackend({ rootDir: root });
    let down = false;
    const backend = Object.create(inner) as Backend;
    backend.ls = (path: string) => (down ? Promise.resolve({ error: 'lost the connection (dev@box): Connection reset' }) : inner.ls(path));
    const changes: PolledChange[] = [];
    const errors: string[] = [];
    const w = new PollWatcher({ backend, onChanges: (c) => changes.push(...c), onError: (e) => errors.push(e) });
    watchers.push(w);
    w.watch('/');
    await w.tick();
    down = true;
    writeFileSync(join(root, 'while-down.txt'), 'x\n');
    await w.tick();
    await w.tick();
    expect(errors).toEqual(['lost the connection (dev@box): Connection reset']);
    expect(changes).toEqual([]);
    down = false;
    await w.tick();
    expect(changes).toEqual([{ path: '/while-down.txt', kind: 'add' }]);
    expect(w.watched()).toEqual(['/']);
  });

  it('neither lists nor tells what is in ignored folders', async () => {
    const { w, tick, listed } = watcher({ ignoredNames: ['node_modules', '.git'] });
    w.watch('/');
    w.watch('/node_modules');
    await tick();
    mkdirSync(join(root, 'node_modules'));
    mkdirSync(join(root, 'lib'));
    expect(await tick()).toEqual([{ path: '/lib', kind: 'addDir' }]);
    expect(listed).not.toContain('/node_modules');
  });

  it('ticks by itself once started; close ends it', async () => {
    const { w, listed } = watcher({ intervalMs: 20 });
    const changes: PolledChange[] = [];
    const started = new PollWatcher({ backend: new FilesystemBackend({ rootDir: root }), intervalMs: 20, onChanges: (c) => changes.push(...c) });
    watchers.push(started);
    started.watch('/');
    started.start();
    await expect
      .poll(() => {
        writeFileSync(join(root, 'tick.txt'), String(Date.now()));
        return changes.some((c) => c.path === '/tick.txt');
      })
      .toBe(true);
    await started.close();
    expect(started.watched()).toEqual([]);
    // A closed watcher lists nothing, started or ticked.
    w.watch('/');
    await w.close();
    w.start();
    await w.tick();
    expect(listed).toEqual([]);
  });
});
