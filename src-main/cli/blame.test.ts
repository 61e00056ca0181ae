// `deepdesk blame FILE [--json]` (SPEC §24) on a real repository: per line of the working
// tree's file, and in agreement with the note the same look writes for the commit.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { CheckpointRecorder } from '../core/checkpoints/recorder';
import { CheckpointStore } from '../core/checkpoints/store';
import { blameCommand } from './blame-command';

let dir: string;
let root: string;
let dataDir: string;
const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const git = (...args: string[]): string => execFileSync('git', args, { cwd: root, env, encoding: 'utf8' });

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-blame-')));
  root = path.join(dir, 'project');
  dataDir = path.join(dir, 'data');
  fs.mkdirSync(root);
  git('init', '-q');
  git('config', 'user.name', 'Pat Person');
  git('config', 'user.email', 'pat@example.com');
  fs.writeFileSync(path.join(root, 'a.txt'), 'old\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
});

afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

async function blame(...args: string[]): Promise<string> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (d: Buffer) => (text += d.toString()));
  expect(await blameCommand([...args, '--folder', root, '--data-dir', dataDir], out)).toBe(0);
  return text;
}

it('prints agent THREAD MODEL, person or unknown per line, and --json agrees with the commit’s note', async () => {
  const store = CheckpointStore.open(dataDir);
  const recorder = new CheckpointRecorder(store, root);
  await recorder.step({ threadId: 't0', messageIndex: 0, messageLine: '', tool: 'write_file' }, 'all', async () => {});
  await recorder.step({ threadId: 'thread-a', messageIndex: 0, messageLine: 'go', tool: 'write_file', model: 'model-a' }, ['a.txt'], async () =>
    fs.writeFileSync(path.join(root, 'a.txt'), 'old\nagent 1\nagent 2\n'),
  );
  await recorder.step({ threadId: 'thread-c', messageIndex: 0, messageLine: 'go', tool: 'agent:codex', model: 'gpt-x' }, 'all', async () =>
    fs.writeFileSync(path.join(root, 'a.txt'), 'old\nagent 1\nagent 2\ncodex\n'),
  );
  store.close();
  fs.writeFileSync(path.join(root, 'a.txt'), 'old\nagent 1\nmine\nagent 2\ncodex\n');
  git('commit', '-q', '-am', 'work');

  // Line 1 the person committed before Deepdesk saw the file: git gives it to them. Codex is named.
  expect(await blame('a.txt')).toBe('person\nagent thread-a model-a\nperson\nagent thread-a model-a\nagent thread-c gpt-x (Codex)\n');
  const json = JSON.parse(await blame('a.txt', '--json')) as unknown[];
  expect(json).toEqual([
    { line: 1, kind: 'person' },
    { line: 2, kind: 'agent', thread: 'thread-a', model: 'model-a' },
    { line: 3, kind: 'person' },
    { line: 4, kind: 'agent', thread: 'thread-a', model: 'model-a' },
    { line: 5, kind: 'agent', thread: 'thread-c', model: 'gpt-x', agent: 'codex' },
  ]);
  const note = git('notes', '--ref=refs/notes/ai', 'show', 'HEAD');
  const [attestation] = note.split('\n---\n');
  const lines = attestation!.split('\n');
  expect(lines[0]).toBe('a.txt');
  // Line 1 was there before the commit; 2 and 4 thread-a's session, 3 the person's, 5 codex's.
  expect(lines.slice(1).map((l) => l.replace(/^ {2}(s_[0-9a-f]{14})::t_[0-9a-f]{14}/, '  $1')).sort()).toEqual(
    [`  h_${hex14('Pat Person <pat@example.com>')} 3`, `  s_${hex14('deepdesk:thread-a')} 2,4`, `  s_${hex14('deepdesk:thread-c')} 5`].sort(),
  );
  expect(note).toContain('"tool": "codex"');
});

it('a line there before Deepdesk saw the file is unknown when git gives it to someone else', async () => {
  fs.writeFileSync(path.join(root, 'b.txt'), 'theirs\n');
  git('add', 'b.txt');
  execFileSync('git', ['commit', '-q', '-m', 'theirs'], { cwd: root, env: { ...env, GIT_AUTHOR_NAME: 'Other', GIT_AUTHOR_EMAIL: 'other@example.com' } });
  expect(await blame('b.txt')).toBe('unknown\n');
  expect(await blame('a.txt')).toBe('person\n');
});

function hex14(text: string): string {
  return execFileSync('sha256sum', { input: text, encoding: 'utf8' }).slice(0, 14);
}
