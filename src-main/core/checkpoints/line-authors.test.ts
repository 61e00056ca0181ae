import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { lineAuthors } from './line-authors';
import { CheckpointRecorder, type StepInfo } from './recorder';
import { CheckpointStore } from './store';

let dir: string;
let root: string;
let store: CheckpointStore;
let recorder: CheckpointRecorder;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-la-')));
  root = path.join(dir, 'project');
  fs.mkdirSync(root);
  store = CheckpointStore.open(path.join(dir, 'data'));
  recorder = new CheckpointRecorder(store, root);
});

afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const step = (threadId: string, model: string, tool = 'write_file'): StepInfo => ({ threadId, messageIndex: 0, messageLine: 'go', tool, model });
const write = (rel: string, text: string): void => fs.writeFileSync(path.join(root, rel), text);
const authors = (rel: string) => lineAuthors(store, root, rel, fs.readFileSync(path.join(root, rel))).map(({ line, ...a }) => `${line} ${Object.values(a).join(' ')}`);

it('gives each line to the step that wrote it, the person between steps and after the last, unknown before Deepdesk saw it', async () => {
  write('a.txt', 'old 1\nold 2\n');
  await recorder.step(step('t1', 'm1'), 'all', async () => {}); // baseline
  await recorder.step(step('t1', 'm1'), ['a.txt'], async () => write('a.txt', 'old 1\nold 2\nagent 1\nagent 2\n'));
  write('a.txt', 'old 1\nold 2\nagent 1\nmine\nagent 2\n');
  await recorder.step(step('t2', 'm2', 'agent:claude-code'), 'all', async () => write('a.txt', 'old 1\nold 2\nagent 1\nmine\nagent 2\nclaude\n'));
  write('a.txt', 'old 1\nold 2\nagent 1\nmine\nagent 2\nclaude\nmine again\n');
  expect(authors('a.txt')).toEqual([
    '1 unknown',
    '2 unknown',
    '3 agent t1 m1',
    '4 person',
    '5 agent t1 m1',
    '6 agent t2 m2 claude-code',
    '7 person',
  ]);
  // The person's checkpoints collected as garbage: what changed between two steps is still theirs.
  const before = authors('a.txt');
  expect(store.deletePersonCheckpointsUpTo(new Date(Date.now() + 1000).toISOString())).toBeGreaterThan(0);
  expect(authors('a.txt')).toEqual(before);
});

it('a file Deepdesk never recorded a change of is unknown; a state seen again takes back its authors', async () => {
  write('b.txt', 'x\n');
  await recorder.step(step('t1', 'm1'), 'all', async () => {});
  expect(authors('b.txt')).toEqual(['1 unknown']);
  await recorder.step(step('t1', 'm1'), ['b.txt'], async () => write('b.txt', 'x\ny\n'));
  await recorder.step(step('t2', 'm2'), ['b.txt'], async () => write('b.txt', 'z\n'));
  await recorder.step(step('t2', 'm2'), ['b.txt'], async () => write('b.txt', 'x\ny\n'));
  expect(authors('b.txt')).toEqual(['1 unknown', '2 agent t1 m1']);
});
