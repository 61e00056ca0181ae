// Per-hunk review (SPEC §24) over a real folder and store: who wrote each hunk of a thread's
// change, a hunk put back byte for byte (line ends, mode, other files untouched), and a revert
// asked while the thread's step runs waiting for it to end.

import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { restoreNote } from '../agent/restore-note';
import { CheckpointHistory } from './history';
import { recorderFor, type CheckpointRecorder, type StepInfo } from './recorder';
import { CheckpointStore } from './store';

let dir: string;
let root: string;
let store: CheckpointStore;
let history: CheckpointHistory;
let recorder: CheckpointRecorder;

beforeEach(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-hunks-')));
  root = path.join(dir, 'project');
  fs.mkdirSync(root);
  store = CheckpointStore.open(path.join(dir, 'data'));
  history = new CheckpointHistory(store);
  // The folder's one recorder, as the history's reverts find it.
  recorder = recorderFor(store, root);
  await recorder.prepareBaseline();
});

afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const info = (threadId: string): StepInfo => ({ threadId, messageIndex: 0, messageLine: 'do it', tool: 'execute', model: threadId === 't1' ? 'm1' : 'm2' });
const p = (rel: string): string => path.join(root, rel);
const modeOf = (rel: string): number => fs.statSync(p(rel)).mode & 0o777;
const binary = Buffer.from([0, 1, 2, 255, 254, 0, 10, 13, 10, 0x89, 0x50]);

/** A step of `threadId` that writes `rel`. */
function agentWrites(threadId: string, rel: string, data: string | Buffer): Promise<unknown> {
  return recorder.step(info(threadId), [rel], async () => fs.writeFileSync(p(rel), data));
}

function hunksOf(threadId: string, rel: string) {
  const file = history.threadChanges(threadId).find((f) => f.path === rel);
  if (!file?.hunks) throw new Error(`no hunks for ${rel}`);
  return file.hunks;
}

describe('per-hunk review of a thread’s changes', () => {
  it('puts one hunk back byte for byte: CRLF lines stay CRLF, the mode stays, a binary file is untouched', async () => {
    fs.writeFileSync(p('crlf.txt'), 'one\r\ntwo\r\nthree\r\nfour\r\nfive\r\nsix\r\nseven\r\n');
    fs.chmodSync(p('crlf.txt'), 0o755);
    fs.writeFileSync(p('bin.dat'), binary);
    await recorder.step(info('t1'), 'all', async () => undefined);
    await recorder.step(info('t1'), ['crlf.txt', 'bin.dat'], async () => {
      fs.writeFileSync(p('crlf.txt'), 'one\r\nTWO\r\nthree\r\nfour\r\nfive\r\nSIX\r\nseven\r\n');
      fs.writeFileSync(p('bin.dat'), Buffer.concat([binary, binary]));
    });
    const hunks = hunksOf('t1', 'crlf.txt');
    expect(hunks.map((h) => h.lines)).toEqual([
      ['-two\r', '+TWO\r'],
      ['-six\r', '+SIX\r'],
    ]);
    expect(hunks[0]!.authors).toEqual([{ kind: 'agent', thread: 't1', model: 'm1' }]);
    expect(history.threadChanges('t1').find((f) => f.path === 'bin.dat')?.hunks).toBeUndefined();

    const outcome = await history.revertHunk('t1', '/crlf.txt', hunks[0]!.id, 'ask');
    expect(outcome?.applied).toBe(true);
    expect(outcome?.restored).toEqual(['crlf.txt']);
    expect(fs.readFileSync(p('crlf.txt'), 'latin1')).toBe('one\r\ntwo\r\nthree\r\nfour\r\nfive\r\nSIX\r\nseven\r\n');
    expect(modeOf('crlf.txt')).toBe(0o755);
    expect(fs.readFileSync(p('bin.dat')).equals(Buffer.concat([binary, binary]))).toBe(true);
    // A recorded step of its own, which Undo restore takes back.
    expect(outcome?.checkpoint?.kind).toBe('restore');
    expect(history.undoableRestore('t1')?.id).toBe(outcome?.checkpoint?.id);
    expect(hunksOf('t1', 'crlf.txt').map((h) => h.id)).toEqual([hunks[1]!.id]);
    // The agent is told which lines went back.
    const note = restoreNote(history, outcome!, { kind: 'revert', hunk: outcome!.hunk });
    expect(note?.text).toContain('The person reverted one change this thread\'s agent made to /crlf.txt');
    expect(note?.text).toContain('-TWO\r\n+two\r');

    // The person edits elsewhere in the file: the other hunk still goes back, their line stays.
    fs.writeFileSync(p('crlf.txt'), 'one\r\ntwo\r\nTHREE (mine)\r\nfour\r\nfive\r\nSIX\r\nseven\r\n');
    const second = await history.revertHunk('t1', 'crlf.txt', hunks[1]!.id, 'ask');
    expect(second?.applied).toBe(true);
    expect(fs.readFileSync(p('crlf.txt'), 'latin1')).toBe('one\r\ntwo\r\nTHREE (mine)\r\nfour\r\nfive\r\nsix\r\nseven\r\n');
    expect(modeOf('crlf.txt')).toBe(0o755);
  });

  it('leaves the file alone when the hunk’s lines are no longer where the change left them', async () => {
    fs.writeFileSync(p('a.txt'), 'a\nb\nc\n');
    await recorder.step(info('t1'), 'all', async () => undefined);
    await agentWrites('t1', 'a.txt', 'a\nB\nc\n');
    const [hunk] = hunksOf('t1', 'a.txt');
    fs.writeFileSync(p('a.txt'), 'a\nB, then mine\nc\n');
    const outcome = await history.revertHunk('t1', 'a.txt', hunk!.id, 'take-restore');
    expect(outcome?.restored).toEqual([]);
    expect(outcome?.skipped.map((s) => s.path)).toEqual(['a.txt']);
    expect(fs.readFileSync(p('a.txt'), 'utf8')).toBe('a\nB, then mine\nc\n');
  });

  it('takes back one agent’s one-line change and nothing else: your line and another thread’s fix stay (the hunk’s Revert and the file’s)', async () => {
    const lines = Array.from({ length: 14 }, (_, i) => `line ${i + 1}`);
    const text = (edit: Record<number, string>): string => lines.map((l, i) => edit[i + 1] ?? l).join('\n') + '\n';
    fs.writeFileSync(p('a.ts'), text({}));
    await recorder.step(info('t1'), 'all', async () => undefined);
    await agentWrites('t1', 'a.ts', text({ 3: 'claude code was here' }));
    fs.writeFileSync(p('a.ts'), text({ 1: 'my own line', 3: 'claude code was here' }));
    await agentWrites('t2', 'a.ts', text({ 1: 'my own line', 3: 'claude code was here', 12: 'the other thread’s fix' }));
    const [hunk, ...more] = hunksOf('t1', 'a.ts');
    expect(more).toEqual([]);

    const outcome = await history.revertHunk('t1', 'a.ts', hunk!.id, 'ask');
    expect(outcome?.restored).toEqual(['a.ts']);
    expect(fs.readFileSync(p('a.ts'), 'utf8')).toBe(text({ 1: 'my own line', 12: 'the other thread’s fix' }));
    await history.undoRestore(outcome!.checkpoint!.id, 'ask');

    // The file's Revert, whatever the person would answer, keeps their line and the other thread's fix.
    const file = await history.revertFile('t1', 'a.ts', 'take-restore');
    expect(file?.applied).toBe(true);
    expect(file?.conflicts).toEqual([]);
    expect(fs.readFileSync(p('a.ts'), 'utf8')).toBe(text({ 1: 'my own line', 12: 'the other thread’s fix' }));
    // A file the agent made, of one hunk, as it left it: that hunk's Revert removes it.
    await agentWrites('t1', 'made.ts', 'new\n');
    const [made] = hunksOf('t1', 'made.ts');
    expect((await history.revertHunk('t1', 'made.ts', made!.id, 'ask'))?.restored).toEqual(['made.ts']);
    expect(fs.existsSync(p('made.ts'))).toBe(false);
    const note = restoreNote(history, file!, { kind: 'revert' });
    expect(note?.display).toContain('kept the others');
    expect(note?.text).toContain('the lines the person or other threads changed there were kept');
  });

  it('changes no byte when someone changed the hunk’s lines since, and says why; lines that only moved still go back', async () => {
    fs.writeFileSync(p('b.txt'), '1\n2\n3\n4\n5\n');
    await recorder.step(info('t1'), 'all', async () => undefined);
    await agentWrites('t1', 'b.txt', '1\n2\nagent\n4\n5\n');
    const [hunk] = hunksOf('t1', 'b.txt');
    const mine = '1\n2\nagent, then mine\n4\n5\n';
    fs.writeFileSync(p('b.txt'), mine);
    for (const revert of [() => history.revertHunk('t1', 'b.txt', hunk!.id, 'take-restore'), () => history.revertFile('t1', 'b.txt', 'take-restore'), () => history.revertFile('t1', 'b.txt', 'ask')]) {
      const outcome = await revert();
      expect(outcome?.restored).toEqual([]);
      expect(outcome?.checkpoint).toBeUndefined();
      expect(outcome?.skipped).toEqual([{ path: 'b.txt', reason: 'line 3 changed since the agent’s change (by you or another thread): nothing was reverted, so they are kept' }]);
      expect(restoreNote(history, outcome!, { kind: 'revert' })).toBeNull();
      expect(fs.readFileSync(p('b.txt'), 'utf8')).toBe(mine);
    }
    // Two lines put in above it: the change moved, its lines did not change; it goes back where it is now.
    fs.writeFileSync(p('b.txt'), 'new a\nnew b\n1\n2\nagent\n4\n5\n');
    const moved = await history.revertHunk('t1', 'b.txt', hunk!.id, 'ask');
    expect(moved?.restored).toEqual(['b.txt']);
    expect(fs.readFileSync(p('b.txt'), 'utf8')).toBe('new a\nnew b\n1\n2\n3\n4\n5\n');
  });

  it('says who wrote each hunk: the thread’s steps, another thread’s, and the person’s between them', async () => {
    fs.writeFileSync(p('f.txt'), '1\n2\n3\n4\n5\n6\n7\n8\n9\n');
    await recorder.step(info('t1'), 'all', async () => undefined);
    await agentWrites('t1', 'f.txt', '1\nagent one\n3\n4\n5\n6\n7\n8\n9\n');
    // The person's edit between steps, then another thread's step, then this thread's again.
    fs.writeFileSync(p('f.txt'), '1\nagent one\n3\n4\nmine\n6\n7\n8\n9\n');
    await agentWrites('t2', 'f.txt', '1\nagent one\n3\n4\nmine\n6\n7\nother thread\n9\n');
    await agentWrites('t1', 'f.txt', '1\nagent one\n3\n4\nmine\n6\n7\nother thread\n');
    const hunks = hunksOf('t1', 'f.txt');
    const by = hunks.map((h) => ({ lines: h.lines.filter((l) => l.startsWith('+')), authors: h.authors.map((a) => (a.kind === 'agent' ? a.thread : a.kind)) }));
    expect(by).toEqual([
      { lines: ['+agent one'], authors: ['t1'] },
      { lines: ['+mine'], authors: ['person'] },
      { lines: ['+other thread'], authors: ['t2'] },
    ]);
    // The file's Revert takes back only the thread's own hunks: the person's line and the other
    // thread's hunk (its line, and the '9' this thread removed beside it) stay.
    const outcome = await history.revertFile('t1', 'f.txt', 'ask');
    expect(outcome?.applied).toBe(true);
    expect(fs.readFileSync(p('f.txt'), 'utf8')).toBe('1\n2\n3\n4\nmine\n6\n7\nother thread\n');
    // A hunk that only removes lines is the thread's.
    fs.writeFileSync(p('g.txt'), 'a\nb\nc\n');
    await agentWrites('t1', 'g.txt', 'a\nc\n');
    expect(hunksOf('t1', 'g.txt').map((h) => h.authors)).toEqual([[{ kind: 'agent', thread: 't1', model: 'm1' }]]);
  });

  it('waits for the thread’s step going on to end, and its next step waits for the revert', async () => {
    fs.writeFileSync(p('w.txt'), 'a\nb\nc\nd\ne\nf\n');
    await recorder.step(info('t1'), 'all', async () => undefined);
    await agentWrites('t1', 'w.txt', 'A\nb\nc\nd\ne\nF\n');
    const [first] = hunksOf('t1', 'w.txt');

    let finish = (): void => undefined;
    const running = recorder.step(info('t1'), ['other.txt'], async () => {
      await new Promise<void>((resolve) => (finish = resolve));
      fs.writeFileSync(p('other.txt'), 'written by the running step\n');
    });
    let reverted = false;
    const revert = history.revertHunk('t1', 'w.txt', first!.id, 'ask').then((o) => ((reverted = true), o));
    // Another thread's step is not held up by it.
    await agentWrites('t2', 'x.txt', 'x\n');
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(reverted).toBe(false);
    expect(fs.readFileSync(p('w.txt'), 'utf8')).toBe('A\nb\nc\nd\ne\nF\n');

    finish();
    await running;
    const outcome = await revert;
    expect(outcome?.applied).toBe(true);
    expect(fs.readFileSync(p('w.txt'), 'utf8')).toBe('a\nb\nc\nd\ne\nF\n');

    // A step asked while a revert waits starts only after it.
    let stepDone = false;
    let hold = (): void => undefined;
    const busy = recorder.step(info('t1'), ['y.txt'], () => new Promise<void>((resolve) => (hold = resolve)));
    const [second] = hunksOf('t1', 'w.txt');
    const late = history.revertHunk('t1', 'w.txt', second!.id, 'ask');
    const next = recorder.step(info('t1'), ['w.txt'], async () => {
      stepDone = true;
      expect(fs.readFileSync(p('w.txt'), 'utf8')).toBe('a\nb\nc\nd\ne\nf\n');
    });
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(stepDone).toBe(false);
    hold();
    await Promise.all([busy, late, next]);
    expect(stepDone).toBe(true);
  });
});
