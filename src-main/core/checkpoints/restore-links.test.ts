// Restore, Revert and Undo restore run as the person, outside the sandbox (SPEC §8): they
// never write, create, delete or read through a symbolic link in a parent folder of a path,
// whoever made the link and whenever, never outside the folder and never into `.git`. Such a
// path is a conflict (`goes through a link`) and is left alone even with take-restore.
// Everything here acts on real folders: a real git repository, real links.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CheckpointHistory } from './history';
import { CheckpointRecorder, type StepInfo } from './recorder';
import { setRaceHookForTests, setWalkModeForTests, walkMode, type WalkMode } from '../fs/no-follow';
import { currentState, scanPaths, sha256 } from './scan';
import { CheckpointStore } from './store';

let dir: string;
let root: string;
let home: string;
let store: CheckpointStore;
let history: CheckpointHistory;
let recorder: CheckpointRecorder;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-cp-links-')));
  root = path.join(dir, 'project');
  home = path.join(dir, 'home');
  fs.mkdirSync(root);
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
  execFileSync('git', ['init', '-q'], { cwd: root });
  fs.mkdirSync(path.join(root, '.git', 'hooks'), { recursive: true });
  store = CheckpointStore.open(path.join(dir, 'data'));
  history = new CheckpointHistory(store);
  recorder = new CheckpointRecorder(store, root);
});

afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const info = (threadId = 't1', messageIndex = 0): StepInfo => ({ threadId, messageIndex, messageLine: 'do it', tool: 'execute' });
const p = (rel: string): string => path.join(root, rel);
const write = (abs: string, data: string, mode?: number): void => {
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, data);
  if (mode !== undefined) fs.chmodSync(abs, mode);
};
const exists = (abs: string): boolean => {
  try {
    fs.lstatSync(abs);
    return true;
  } catch {
    return false;
  }
};
/** Every entry below `abs`, with content: what "untouched" means for a folder outside the project. */
const listing = (abs: string): Record<string, string> => {
  const out: Record<string, string> = {};
  const walk = (a: string, rel: string): void => {
    for (const name of fs.readdirSync(a).sort()) {
      const child = path.join(a, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = fs.lstatSync(child);
      if (st.isSymbolicLink()) out[r] = `link ${fs.readlinkSync(child)}`;
      else if (st.isDirectory()) {
        out[r + '/'] = `dir ${(st.mode & 0o777).toString(8)}`;
        walk(child, r);
      } else out[r] = `file ${(st.mode & 0o777).toString(8)} ${fs.readFileSync(child, 'utf8')}`;
    }
  };
  walk(abs, '');
  return out;
};
/** Replaces a folder of the project by a symbolic link, as the agent's shell or the person would. */
const replaceByLink = (rel: string, target: string): void => {
  fs.rmSync(p(rel), { recursive: true, force: true });
  fs.symlinkSync(target, p(rel));
};
const LINK = 'goes through a link';
const hooks = (): string => path.join(root, '.git', 'hooks');

/** Step 1 creates `x/post-checkout` (v1), step 2 changes it (v2): restoring to before step 2 writes v1 back. */
async function hookSteps(rel = 'x/post-checkout'): Promise<{ first: string; second: string }> {
  await recorder.step(info(), 'all', async () => {}); // baseline
  const first = await recorder.step(info(), 'all', async () => write(p(rel), '#!/bin/sh\necho v1\n', 0o755));
  const second = await recorder.step(info(), 'all', async () => write(p(rel), '#!/bin/sh\necho v2\n', 0o755));
  return { first: first.checkpoint!.id, second: second.checkpoint!.id };
}

it.runIf(process.platform === 'linux')('walks with held folder descriptors on Linux', () => {
  expect(walkMode()).toBe('fd');
});

// Both mechanisms run here: the fd walk (Linux) and the lstat checks (elsewhere).
describe.each<WalkMode>(['fd', 'lstat'])('restores never go through a link in a parent folder (%s walk)', (mode) => {
  beforeEach(() => setWalkModeForTests(mode));
  afterEach(() => {
    setWalkModeForTests(null);
    setRaceHookForTests(null);
  });

  it('a link to .git/hooks made by the person between steps: restore, take-restore and revert never install the hook', async () => {
    const { second } = await hookSteps();
    const gitBefore = listing(path.join(root, '.git'));
    replaceByLink('x', '.git/hooks');

    const asked = await history.restoreTo(second, 'ask');
    expect(asked.applied).toBe(false);
    expect(asked.conflicts).toContainEqual(expect.objectContaining({ path: 'x/post-checkout', reason: LINK }));

    const forced = await history.restoreTo(second, 'take-restore');
    expect(forced.applied).toBe(true);
    expect(forced.conflicts).toContainEqual(expect.objectContaining({ path: 'x/post-checkout', reason: LINK }));
    expect(forced.restored).not.toContain('x/post-checkout');
    expect(exists(path.join(hooks(), 'post-checkout'))).toBe(false);
    expect(fs.readlinkSync(p('x'))).toBe('.git/hooks');

    const reverted = await history.revertFile('t1', 'x/post-checkout', 'take-restore');
    expect(reverted?.conflicts).toContainEqual(expect.objectContaining({ path: 'x/post-checkout', reason: LINK }));
    expect(listing(path.join(root, '.git'))).toEqual(gitBefore);
  });

  it('a link to .git/hooks made by the agent in a recorded step of another thread: restore and undo restore never install the hook', async () => {
    const { second } = await hookSteps();
    const restored = await history.restoreTo(second, 'ask');
    expect(restored.restored).toEqual(['x/post-checkout']);
    expect(fs.readFileSync(p('x/post-checkout'), 'utf8')).toBe('#!/bin/sh\necho v1\n');

    // Another agent (thread B) swaps the folder for a link, inside a recorded step.
    const swap = await recorder.step(info('B'), 'all', async () => replaceByLink('x', '.git/hooks'));
    expect(swap.changes.map((c) => c.path)).toEqual(['x', 'x/post-checkout']);
    const gitBefore = listing(path.join(root, '.git'));

    const undone = await history.undoRestore(restored.checkpoint!.id, 'take-restore');
    expect(undone.conflicts).toContainEqual(expect.objectContaining({ path: 'x/post-checkout', reason: LINK }));
    expect(exists(path.join(hooks(), 'post-checkout'))).toBe(false);

    // Reverting the file would delete x/post-checkout: the person's own hook behind the link stays.
    write(path.join(hooks(), 'post-checkout'), '#!/bin/sh\necho the person’s hook\n', 0o755);
    const withHook = listing(path.join(root, '.git'));
    const reverted = await history.revertFile('t1', 'x/post-checkout', 'take-restore');
    expect(reverted?.conflicts).toEqual([{ path: 'x/post-checkout', reason: LINK, refused: true }]);
    expect(listing(path.join(root, '.git'))).toEqual(withHook);
    fs.unlinkSync(path.join(hooks(), 'post-checkout'));
    expect(listing(path.join(root, '.git'))).toEqual(gitBefore);
    expect(fs.readlinkSync(p('x'))).toBe('.git/hooks');
  });

  it('a link to a folder outside the project (a home’s .ssh): nothing is written there', async () => {
    const { second } = await hookSteps('y/authorized_keys2');
    write(path.join(home, '.ssh', 'known_hosts'), 'host key\n');
    const before = listing(home);
    replaceByLink('y', path.join(home, '.ssh'));
    const forced = await history.restoreTo(second, 'take-restore');
    expect(forced.conflicts).toEqual([{ path: 'y/authorized_keys2', reason: LINK, refused: true }]);
    expect(listing(home)).toEqual(before);
    const reverted = await history.revertFile('t1', 'y/authorized_keys2', 'keep-mine');
    expect(reverted?.conflicts).toEqual([{ path: 'y/authorized_keys2', reason: LINK, refused: true }]);
    expect(listing(home)).toEqual(before);
  });

  it('never reads through a link either: the content behind it is neither reported as the path’s nor kept', async () => {
    const { second } = await hookSteps('y/id_rsa');
    write(path.join(home, '.ssh', 'id_rsa'), 'SECRET KEY\n', 0o600);
    replaceByLink('y', path.join(home, '.ssh'));
    expect(currentState(recorder.root, 'y/id_rsa').state).toBeNull();
    expect(scanPaths(recorder.root, ['y', 'y/id_rsa'], () => undefined).states.get('y/id_rsa')).toBeNull();
    const forced = await history.restoreTo(second, 'take-restore');
    expect(forced.conflicts).toContainEqual(expect.objectContaining({ path: 'y/id_rsa', reason: LINK }));
    expect(fs.readFileSync(path.join(home, '.ssh', 'id_rsa'), 'utf8')).toBe('SECRET KEY\n');
    expect(store.blob(sha256('SECRET KEY\n'))).toBeUndefined();
  });

  it('a dangling link as a parent: nothing is created where it points', async () => {
    const { second } = await hookSteps('z/a/b.txt');
    replaceByLink('z', path.join(home, 'missing'));
    const forced = await history.restoreTo(second, 'take-restore');
    expect(forced.conflicts).toContainEqual(expect.objectContaining({ path: 'z/a/b.txt', reason: LINK }));
    expect(exists(path.join(home, 'missing'))).toBe(false);
    expect(fs.readlinkSync(p('z'))).toBe(path.join(home, 'missing'));
  });

  it('never deletes through a link: the files and folders behind it survive', async () => {
    fs.mkdirSync(p('w'));
    await recorder.step(info(), 'all', async () => {}); // baseline: w is the person's
    const step = await recorder.step(info(), 'all', async () => {
      write(p('w/file.txt'), 'agent\n');
      fs.mkdirSync(p('w/sub'));
    });
    write(path.join(home, 'keep', 'file.txt'), 'agent\n');
    fs.mkdirSync(path.join(home, 'keep', 'sub'));
    const before = listing(home);
    replaceByLink('w', path.join(home, 'keep'));
    const forced = await history.restoreTo(step.checkpoint!.id, 'take-restore');
    expect(forced.conflicts.map((c) => [c.path, c.reason])).toEqual([
      ['w/file.txt', LINK],
      ['w/sub', LINK],
    ]);
    expect(listing(home)).toEqual(before);
  });

  it('never touches .git, the project’s or a nested repository’s, even when the agent wrote there', async () => {
    fs.mkdirSync(p('sub/.git'), { recursive: true });
    await recorder.step(info(), 'all', async () => {});
    const step = await recorder.step({ ...info(), tool: 'write_file' }, ['.git/hooks/pre-commit'], async () => write(p('.git/hooks/pre-commit'), '#!/bin/sh\n'));
    const nested = await recorder.step({ ...info(), tool: 'write_file' }, ['sub/.git/config'], async () => write(p('sub/.git/config'), '[core]\n'));
    expect(step.changes.map((c) => c.path)).toEqual(['.git/hooks/pre-commit']);
    expect(nested.changes.map((c) => c.path)).toEqual(['sub/.git/config']);
    const forced = await history.restoreTo(step.checkpoint!.id, 'take-restore');
    expect(forced.conflicts).toEqual([
      { path: '.git/hooks/pre-commit', reason: 'inside .git: never restored', refused: true },
      { path: 'sub/.git/config', reason: 'inside .git: never restored', refused: true },
    ]);
    expect(fs.readFileSync(p('.git/hooks/pre-commit'), 'utf8')).toBe('#!/bin/sh\n');
    expect(fs.readFileSync(p('sub/.git/config'), 'utf8')).toBe('[core]\n');
  });

  it('a folder the agent replaced by a link comes back as a real folder with its files; the link’s target is untouched', async () => {
    write(p('cfg/a.txt'), 'mine\n');
    write(path.join(home, 'elsewhere', 'a.txt'), 'outside\n');
    const before = listing(home);
    await recorder.step(info(), 'all', async () => {});
    const step = await recorder.step(info(), 'all', async () => replaceByLink('cfg', path.join(home, 'elsewhere')));
    // The walk does not follow the link: cfg/a.txt is gone from the folder, whatever is behind it.
    expect(step.changes.map((c) => [c.path, c.after?.type ?? null])).toEqual([
      ['cfg', 'l'],
      ['cfg/a.txt', null],
    ]);
    const restored = await history.restoreTo(step.checkpoint!.id, 'ask');
    expect(restored.conflicts).toEqual([]);
    expect(restored.restored.sort()).toEqual(['cfg', 'cfg/a.txt']);
    expect(fs.lstatSync(p('cfg')).isDirectory()).toBe(true);
    expect(fs.readFileSync(p('cfg/a.txt'), 'utf8')).toBe('mine\n');
    expect(listing(home)).toEqual(before);
  });

  // A link swapped in after the walk reached the folder and before the operation: the fd walk
  // holds the folder itself, so the operation lands in it (wherever it was moved), never
  // behind the link, and the path is reported. The lstat walk can only notice a change
  // afterwards (Node has no openat), so the write and delete races run with the fd walk
  // only; a read it notices is thrown away, so that race runs with both.
  describe('races', () => {
    const fdWalk = mode === 'fd' && process.platform === 'linux';
    /** Once, right before the first operation of `kind` on `rel`: `x` is moved away and a link takes its place. */
    const swapBefore = (rel: string, kind: 'read' | 'change', folder: string, target: string): void => {
      let done = false;
      setRaceHookForTests((at, op) => {
        if (done || at !== rel || op !== kind) return;
        done = true;
        fs.renameSync(p(folder), p(`${folder}-held`));
        fs.symlinkSync(target, p(folder));
      });
    };

    it.runIf(fdWalk)('a write: the hook is never installed, the content goes to the folder that was checked', async () => {
      const { second } = await hookSteps();
      swapBefore('x/post-checkout', 'change', 'x', '.git/hooks');
      const forced = await history.restoreTo(second, 'take-restore');
      expect(forced.conflicts).toEqual([{ path: 'x/post-checkout', reason: LINK, refused: true }]);
      expect(forced.restored).toEqual([]);
      expect(exists(path.join(hooks(), 'post-checkout'))).toBe(false);
      expect(fs.readFileSync(p('x-held/post-checkout'), 'utf8')).toBe('#!/bin/sh\necho v1\n');
    });

    it.runIf(fdWalk)('a deletion: the file behind the link survives', async () => {
      fs.mkdirSync(p('w'));
      await recorder.step(info(), 'all', async () => {});
      const step = await recorder.step(info(), 'all', async () => write(p('w/file.txt'), 'agent\n'));
      write(path.join(home, 'keep', 'file.txt'), 'agent\n');
      swapBefore('w/file.txt', 'change', 'w', path.join(home, 'keep'));
      const forced = await history.restoreTo(step.checkpoint!.id, 'take-restore');
      expect(forced.conflicts).toEqual([{ path: 'w/file.txt', reason: LINK, refused: true }]);
      expect(fs.readFileSync(path.join(home, 'keep', 'file.txt'), 'utf8')).toBe('agent\n');
      expect(exists(p('w-held/file.txt'))).toBe(false);
    });

    it('a read: what is behind the link is never read nor kept', async () => {
      const { second } = await hookSteps('y/id_rsa');
      write(path.join(home, '.ssh', 'id_rsa'), 'SECRET KEY\n', 0o600);
      swapBefore('y/id_rsa', 'read', 'y', path.join(home, '.ssh'));
      await history.restoreTo(second, 'take-restore');
      expect(fs.readFileSync(path.join(home, '.ssh', 'id_rsa'), 'utf8')).toBe('SECRET KEY\n');
      expect(store.blob(sha256('SECRET KEY\n'))).toBeUndefined();
    });
  });
});
