import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalShellBackend } from '../backends/filesystem/local-shell';
import { CheckpointHistory } from './history';
import { MAYBE_YOURS } from './restore';
import { CheckpointRecorder, type StepInfo } from './recorder';
import { CheckpointStore } from './store';

let dir: string;
let root: string;
let store: CheckpointStore;
let history: CheckpointHistory;
let recorder: CheckpointRecorder;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-cp-')));
  root = path.join(dir, 'project');
  fs.mkdirSync(root);
  store = CheckpointStore.open(path.join(dir, 'data'));
  history = new CheckpointHistory(store);
  recorder = new CheckpointRecorder(store, root);
});

afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const info = (threadId = 't1', messageIndex = 0, line = 'do it'): StepInfo => ({ threadId, messageIndex, messageLine: line, tool: 'execute' });
const p = (rel: string): string => path.join(root, rel);
const write = (rel: string, data: string | Buffer, mode?: number): void => {
  fs.mkdirSync(path.dirname(p(rel)), { recursive: true });
  fs.writeFileSync(p(rel), data);
  if (mode !== undefined) fs.chmodSync(p(rel), mode);
};
const read = (rel: string): Buffer => fs.readFileSync(p(rel));
const exists = (rel: string): boolean => {
  try {
    fs.lstatSync(p(rel));
    return true;
  } catch {
    return false;
  }
};
const modeOf = (rel: string): number => fs.lstatSync(p(rel)).mode & 0o7777;

/** Every entry of the folder (not .git) with its type, mode and content: what "exactly as before" means. */
function tree(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (abs: string, rel: string): void => {
    for (const name of fs.readdirSync(abs).sort()) {
      if (name === '.git') continue;
      const a = path.join(abs, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = fs.lstatSync(a);
      if (st.isSymbolicLink()) out[r] = `link ${fs.readlinkSync(a)}`;
      else if (st.isDirectory()) {
        out[r + '/'] = `dir ${(st.mode & 0o777).toString(8)}`;
        walk(a, r);
      } else out[r] = `file ${(st.mode & 0o777).toString(8)} ${fs.readFileSync(a).toString('base64')}`;
    }
  };
  walk(root, '');
  return out;
}

const binary = Buffer.from([0, 1, 2, 255, 254, 0, 10, 13, 10, 0x89, 0x50]);

describe('checkpoints of a folder', () => {
  it('records and reverts every kind of change a command makes, byte for byte, and the restore can be undone', async () => {
    write('keep.txt', 'untouched\n');
    write('crlf.txt', 'one\r\ntwo\r\n');
    write('bin.dat', binary);
    write('script.sh', '#!/bin/sh\necho hi\n', 0o755);
    write('old name.txt', 'renamed content\n');
    write('ünïcødé/файл 1.md', '# hello\n');
    write('gone/deep/file.txt', 'will be deleted\n', 0o640);
    fs.mkdirSync(p('empty-before'));
    fs.symlinkSync('keep.txt', p('link-to-keep'));
    fs.symlinkSync('/definitely/outside', p('dangling'));
    const before = tree();

    const outcome = await recorder.step(info(), 'all', async () => {
      fs.writeFileSync(p('crlf.txt'), 'one\r\nTWO\r\nthree\r\n');
      fs.writeFileSync(p('bin.dat'), Buffer.concat([binary, binary]));
      fs.chmodSync(p('script.sh'), 0o644);
      fs.renameSync(p('old name.txt'), p('new name.txt'));
      fs.writeFileSync(p('ünïcødé/файл 1.md'), '# changed\n');
      fs.rmSync(p('gone'), { recursive: true });
      fs.rmdirSync(p('empty-before'));
      fs.mkdirSync(p('empty-after/inner'), { recursive: true });
      fs.unlinkSync(p('link-to-keep'));
      fs.symlinkSync('crlf.txt', p('link-to-keep'));
      fs.unlinkSync(p('dangling'));
      write('made/by agent.txt', 'new\n');
      return 'done';
    });
    expect(outcome.result).toBe('done');
    expect(outcome.checkpoint).toBeDefined();
    const byPath = Object.fromEntries(outcome.changes.map((c) => [c.path, c.before === null ? 'added' : c.after === null ? 'deleted' : 'modified']));
    expect(byPath).toMatchObject({
      'crlf.txt': 'modified',
      'bin.dat': 'modified',
      'script.sh': 'modified',
      'old name.txt': 'deleted',
      'new name.txt': 'added',
      'ünïcødé/файл 1.md': 'modified',
      'gone/deep/file.txt': 'deleted',
      'gone/deep': 'deleted',
      gone: 'deleted',
      'empty-before': 'deleted',
      'empty-after': 'added',
      'empty-after/inner': 'added',
      'link-to-keep': 'modified',
      dangling: 'deleted',
      'made/by agent.txt': 'added',
    });
    expect(byPath['keep.txt']).toBeUndefined();
    const after = tree();

    const restored = await history.restoreTo(outcome.checkpoint!.id, 'ask');
    expect(restored.conflicts).toEqual([]);
    expect(restored.applied).toBe(true);
    expect(tree()).toEqual(before);
    expect(fs.readlinkSync(p('link-to-keep'))).toBe('keep.txt');
    expect(read('crlf.txt').toString()).toBe('one\r\ntwo\r\n');
    expect(modeOf('gone/deep/file.txt')).toBe(0o640);

    const undo = history.undoableRestore('t1');
    expect(undo?.id).toBe(restored.checkpoint!.id);
    const undone = await history.undoRestore(undo!.id, 'ask');
    expect(undone.conflicts).toEqual([]);
    expect(tree()).toEqual(after);
    expect(history.undoableRestore('t1')).toBeNull();
  });

  it('snapshots only the named file for write and edit steps, and removes what the agent created on restore', async () => {
    write('a.txt', 'a\n');
    const step = await recorder.step({ ...info(), tool: 'write_file' }, ['new/dir/file.txt'], async () => write('new/dir/file.txt', 'hello\n'));
    expect(step.changes.map((c) => c.path)).toEqual(['new', 'new/dir', 'new/dir/file.txt']);
    const edit = await recorder.step({ ...info(), tool: 'edit_file' }, ['a.txt'], async () => write('a.txt', 'b\n'));
    expect(edit.changes).toHaveLength(1);
    expect(history.diff(edit.checkpoint!.id)).toBe('diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-a\n+b\n');
    const changes = history.threadChanges('t1');
    expect(changes.map((c) => [c.path, c.status, c.added, c.removed])).toEqual([
      ['a.txt', 'modified', 1, 1],
      ['new/dir/file.txt', 'added', 1, 0],
    ]);
    await history.restoreTo(step.checkpoint!.id, 'ask');
    expect(exists('new')).toBe(false);
    expect(read('a.txt').toString()).toBe('a\n');
    expect(history.threadChanges('t1')).toEqual([]);
  });

  it('records the person’s edits between steps as theirs, and a restore asks before discarding them', async () => {
    write('shared.txt', 'v0\n');
    write('other.txt', 'o0\n');
    await recorder.step(info(), 'all', async () => {}); // baseline
    const first = await recorder.step(info('t1', 0), ['shared.txt'], async () => write('shared.txt', 'v1 agent\n'));
    await recorder.step(info('t1', 0), ['other.txt'], async () => write('other.txt', 'o1 agent\n'));
    // The person edits shared.txt after the agent did.
    write('shared.txt', 'v2 person\n');
    const person = write;
    person('mine.txt', 'the person made this\n');
    // The next step sees the person's changes first and records them as theirs.
    await recorder.step(info('t1', 2), 'all', async () => write('third.txt', 'agent\n'));
    const kinds = store.db.prepare('SELECT kind FROM checkpoints ORDER BY seq').all() as Array<{ kind: string }>;
    expect(kinds.map((k) => k.kind)).toContain('person');
    expect(history.list('t1').every((c) => c.kind === 'agent')).toBe(true);

    const asked = await history.restoreTo(first.checkpoint!.id, 'ask');
    expect(asked.applied).toBe(false);
    expect(asked.conflicts.map((c) => c.path)).toEqual(['shared.txt']);
    expect(read('other.txt').toString()).toBe('o1 agent\n');

    const kept = await history.restoreTo(first.checkpoint!.id, 'keep-mine');
    expect(kept.applied).toBe(true);
    expect(read('shared.txt').toString()).toBe('v2 person\n');
    expect(read('other.txt').toString()).toBe('o0\n');
    expect(exists('third.txt')).toBe(false);
    expect(read('mine.txt').toString()).toBe('the person made this\n');

    await history.undoRestore(kept.checkpoint!.id, 'ask');
    expect(read('other.txt').toString()).toBe('o1 agent\n');
    const taken = await history.restoreTo(first.checkpoint!.id, 'take-restore');
    expect(taken.applied).toBe(true);
    expect(read('shared.txt').toString()).toBe('v0\n');
    expect(read('mine.txt').toString()).toBe('the person made this\n');
    // Undo of a forced restore gives the person's text back too.
    await history.undoRestore(taken.checkpoint!.id, 'ask');
    expect(read('shared.txt').toString()).toBe('v2 person\n');
  });

  it('keeps two threads in one folder apart', async () => {
    write('base.txt', 'base\n');
    const a = await recorder.step(info('A', 0), 'all', async () => write('a.txt', 'from A\n'));
    const b = await recorder.step(info('B', 0), 'all', async () => {
      write('b.txt', 'from B\n');
      write('base.txt', 'B changed base\n');
    });
    await recorder.step(info('A', 2), ['base.txt'], async () => write('base.txt', 'then A\n'));
    expect(history.list('A')).toHaveLength(2);
    expect(history.list('B')).toHaveLength(1);
    // Restoring A to its start leaves B's file alone; base.txt was B's before A touched it.
    const r = await history.restoreTo(a.checkpoint!.id, 'ask');
    expect(r.conflicts).toEqual([]);
    expect(exists('a.txt')).toBe(false);
    expect(read('b.txt').toString()).toBe('from B\n');
    expect(read('base.txt').toString()).toBe('B changed base\n');
    // B's restore now finds base.txt as B left it and reverts it.
    const rb = await history.restoreTo(b.checkpoint!.id, 'ask');
    expect(rb.conflicts).toEqual([]);
    expect(read('base.txt').toString()).toBe('base\n');
    expect(exists('b.txt')).toBe(false);
  });

  it('restores to before a user message, and reverting one file leaves the others', async () => {
    write('x.txt', 'x0\n');
    write('y.txt', 'y0\n');
    await recorder.step(info('t', 0, 'first'), ['x.txt'], async () => write('x.txt', 'x1\n'));
    await recorder.step(info('t', 2, 'second'), ['x.txt'], async () => write('x.txt', 'x2\n'));
    await recorder.step(info('t', 2, 'second'), ['y.txt'], async () => write('y.txt', 'y2\n'));
    const r = await history.restoreToMessage('t', 2, 'second', 'ask');
    expect(r?.restored.sort()).toEqual(['x.txt', 'y.txt']);
    expect(read('x.txt').toString()).toBe('x1\n');
    expect(read('y.txt').toString()).toBe('y0\n');
    await history.undoRestore(r!.checkpoint!.id, 'ask');
    expect(read('x.txt').toString()).toBe('x2\n');
    const one = await history.revertFile('t', '/y.txt', 'ask');
    expect(one?.restored).toEqual(['y.txt']);
    expect(read('y.txt').toString()).toBe('y0\n');
    expect(read('x.txt').toString()).toBe('x2\n');
    expect(history.threadChanges('t').map((c) => c.path)).toEqual(['x.txt']);
  });

  it('records what a stopped step changed before it stopped, so a restore after the interruption reverts it', async () => {
    write('f.txt', 'before\n');
    const stopped = recorder.step(info(), 'all', async () => {
      write('f.txt', 'half done\n');
      write('partial.txt', 'started\n');
      throw new Error('stopped');
    });
    await expect(stopped).rejects.toThrow('stopped');
    const [checkpoint] = history.list('t1');
    expect(checkpoint).toBeDefined();
    await history.restoreTo(checkpoint!.id, 'ask');
    expect(read('f.txt').toString()).toBe('before\n');
    expect(exists('partial.txt')).toBe(false);
  });

  it('notes a change inside an ignored folder without snapshotting it', async () => {
    write('.gitignore', 'build/\n*.log\n');
    write('build/out.js', 'x');
    write('node_modules/pkg/index.js', 'x');
    await recorder.step(info(), 'all', async () => {});
    const step = await recorder.step(info(), 'all', async () => {
      write('node_modules/newpkg/index.js', 'y');
      write('src.ts', 'code\n');
    });
    expect(step.changes.map((c) => [c.path, c.after?.type])).toEqual([
      ['node_modules', 'i'],
      ['src.ts', 'f'],
    ]);
    expect(history.diff(step.checkpoint!.id)).toContain('# changed inside ignored folder node_modules');
    expect(store.manifestRow(recorder.root, 'build/out.js')).toBeUndefined();
    const r = await history.restoreTo(step.checkpoint!.id, 'ask');
    expect(r.skipped.map((s) => s.path)).toEqual(['node_modules']);
    expect(exists('src.ts')).toBe(false);
  });

  it('sees commands run through the real shell backend: sed -i and 1,000 new files, with and without git on PATH', async () => {
    write('config.ini', 'name=old\r\nport=1\r\n');
    const withoutGit = fs.mkdtempSync(path.join(dir, 'bin-'));
    for (const tool of ['sh', 'bash', 'sed', 'mkdir', 'seq', 'xargs', 'touch', 'cat', 'env', 'printf']) {
      const real = ['/usr/bin', '/bin'].map((d) => path.join(d, tool)).find((f) => fs.existsSync(f));
      if (real) fs.symlinkSync(real, path.join(withoutGit, tool));
    }
    const shell = new LocalShellBackend({ rootDir: root, env: { PATH: withoutGit } });
    const probe = await shell.execute('command -v git || echo no-git');
    expect(probe.output).toContain('no-git');
    const sed = await recorder.step(info(), 'all', (attribution) => shell.execute("sed -i 's/old/new/' config.ini", { attribution }));
    expect(sed.result.exitCode).toBe(0);
    expect(sed.changes.map((c) => c.path)).toEqual(['config.ini']);
    expect(read('config.ini').toString()).toBe('name=new\r\nport=1\r\n');
    const many = await recorder.step(info(), 'all', (attribution) => shell.execute('mkdir -p gen && cd gen && seq 1 1000 | xargs touch', { attribution }));
    expect(many.result.exitCode).toBe(0);
    expect(many.changes.filter((c) => c.after?.type === 'f')).toHaveLength(1000);
    expect(fs.existsSync(path.join(root, '.git'))).toBe(false);
    // Run outside a sandbox, whose writes cannot be told from the person's: a restore asks first.
    const asked = await history.restoreTo(sed.checkpoint!.id, 'ask');
    expect(asked.applied).toBe(false);
    expect(asked.conflicts.map((c) => c.reason)).toContain(MAYBE_YOURS);
    await history.restoreTo(sed.checkpoint!.id, 'take-restore');
    expect(exists('gen')).toBe(false);
    expect(read('config.ini').toString()).toBe('name=old\r\nport=1\r\n');
    // And with git available the result is the same; the project's .git is never touched.
    const withGit = new LocalShellBackend({ rootDir: root });
    await withGit.execute('git init -q . && git add -A && git -c user.email=a@b -c user.name=n commit -qm init');
    const gitHead = fs.readFileSync(p('.git/HEAD'), 'utf8');
    const gitIndex = fs.statSync(p('.git/index')).mtimeMs;
    const step = await recorder.step(info(), 'all', (attribution) => withGit.execute('printf "x\\n" > with-git.txt', { attribution }));
    expect(step.changes.map((c) => c.path)).toEqual(['with-git.txt']);
    await history.restoreTo(step.checkpoint!.id, 'take-restore');
    expect(exists('with-git.txt')).toBe(false);
    expect(fs.readFileSync(p('.git/HEAD'), 'utf8')).toBe(gitHead);
    expect(fs.statSync(p('.git/index')).mtimeMs).toBe(gitIndex);
  });

  it('deletes a thread’s history with the thread and bounds the store by dropping the oldest threads', async () => {
    write('f.txt', 'x');
    await recorder.step(info('old'), ['big.bin'], async () => write('big.bin', Buffer.alloc(300_000, 1)));
    await recorder.step(info('old'), ['big.bin'], async () => write('big.bin', Buffer.alloc(300_000, 2)));
    await recorder.step(info('new'), ['n.txt'], async () => write('n.txt', 'newest\n'));
    const total = store.storedBytes();
    const dropped = history.collectGarbage(total - 1000);
    expect(dropped).toEqual(['old']);
    expect(history.list('old')).toEqual([]);
    expect(history.list('new')).toHaveLength(1);
    expect(store.storedBytes()).toBeLessThan(total);
    history.deleteThread('new');
    expect(history.list('new')).toEqual([]);
  });
});
