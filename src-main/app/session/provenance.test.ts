// Provenance in git (SPEC §24) on a real repository: two threads of different models (one of
// them another vendor's agent) write lines, the person changes half of them and commits with
// plain git; the note under refs/notes/ai is read back by a reader written here from the git-ai
// Standard v3.0.0 (not the writer's code).

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { CheckpointRecorder } from '../../core/checkpoints/recorder';
import { CheckpointStore } from '../../core/checkpoints/store';
import { noteFolderCommits, watchCommits } from './provenance';
import { provenanceFor } from '../settings/settings-service';
import type { Settings } from '../contract';

let dir: string;
let root: string;
let remote: string;
let store: CheckpointStore;
let recorder: CheckpointRecorder;
const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const PERSON = 'Pat Person <pat@example.com>';

const git = (...args: string[]): string => execFileSync('git', args, { cwd: root, env, encoding: 'utf8' });
const write = (rel: string, lines: readonly string[]): void => fs.writeFileSync(path.join(root, rel), lines.map((l) => l + '\n').join(''));
const numbered = (what: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${what} line ${i + 1}`);
const hex14 = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 14);

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-prov-')));
  root = path.join(dir, 'project');
  remote = path.join(dir, 'remote.git');
  fs.mkdirSync(root);
  execFileSync('git', ['init', '-q', '--bare', remote], { env });
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Pat Person');
  git('config', 'user.email', 'pat@example.com');
  git('remote', 'add', 'origin', remote);
  write('base.txt', ['base']);
  git('add', '-A');
  // Long before Deepdesk first saw the folder.
  const old = '2020-01-01T00:00:00Z';
  execFileSync('git', ['commit', '-q', '-m', 'base'], { cwd: root, env: { ...env, GIT_AUTHOR_DATE: old, GIT_COMMITTER_DATE: old } });
  git('push', '-q', 'origin', 'main');
  store = CheckpointStore.open(path.join(dir, 'data'));
  recorder = new CheckpointRecorder(store, root);
});

afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The folder as git and the person see it: files, index, config, hooks, refs other than the notes. */
function folderState(): string {
  const files = git('ls-files', '-s', '--others');
  const gitDir = path.join(root, '.git');
  const hooks = fs.readdirSync(path.join(gitDir, 'hooks')).sort().join(',');
  const work = ['base.txt', 'a.txt', 'b.txt'].map((f) => (fs.existsSync(path.join(root, f)) ? fs.readFileSync(path.join(root, f), 'utf8') : '-')).join('|');
  const refs = git('for-each-ref', '--format=%(refname) %(objectname)').split('\n').filter((l) => !l.startsWith('refs/notes/')).join('\n');
  return [files, fs.readFileSync(path.join(gitDir, 'config'), 'utf8'), hooks, work, refs, git('status', '--porcelain')].join('\n#\n');
}

/** A git-ai v3.0.0 note as its standard describes it: per line of each file, its session's agent_id or its human's author. */
function readNote(text: string): Map<string, string> {
  const lines = text.replace(/\n$/, '').split('\n');
  const divider = lines.indexOf('---');
  expect(divider).toBeGreaterThan(-1);
  const meta = JSON.parse(lines.slice(divider + 1).join('\n')) as {
    schema_version: string;
    base_commit_sha: string;
    prompts: object;
    sessions?: Record<string, { agent_id: { tool: string; id: string; model: string } }>;
    humans?: Record<string, { author: string }>;
  };
  expect(meta.schema_version).toBe('authorship/3.0.0');
  expect(meta.prompts).toEqual({});
  const out = new Map<string, string>();
  out.set('base_commit_sha', meta.base_commit_sha);
  let file = '';
  for (const line of lines.slice(0, divider)) {
    if (!line.startsWith(' ')) {
      file = line.startsWith('"') ? line.slice(1, -1) : line;
      continue;
    }
    const m = /^ {2}(\S+) ([0-9,-]+)$/.exec(line);
    expect(m, line).not.toBeNull();
    const [, key, spec] = m!;
    let who: string;
    if (key!.startsWith('s_')) {
      const [session, trace] = key!.split('::');
      expect(session).toMatch(/^s_[0-9a-f]{14}$/);
      expect(trace).toMatch(/^t_[0-9a-f]{14}$/);
      const agent = meta.sessions![session!]!.agent_id;
      who = `${agent.tool} ${agent.id} ${agent.model}`;
    } else {
      expect(key).toMatch(/^h_[0-9a-f]{14}$/);
      who = `human ${meta.humans![key!]!.author}`;
    }
    for (const part of spec!.split(',')) {
      const [from, to = from] = part.split('-').map(Number);
      for (let n = from!; n <= to!; n++) out.set(`${file}:${n}`, who);
    }
  }
  return out;
}

const settingsOf = (provenance: Settings['provenance']) => () => provenance;

it('notes a plain commit: each thread’s lines its session (another vendor’s under its tool), the person’s their h_ key; nothing else changes, nothing is pushed', async () => {
  await recorder.step({ threadId: 't0', messageIndex: 0, messageLine: '', tool: 'write_file' }, 'all', async () => {}); // Deepdesk first sees the folder
  await recorder.step({ threadId: 'thread-a', messageIndex: 0, messageLine: 'go', tool: 'write_file', model: 'model-a' }, ['a.txt'], async () => write('a.txt', numbered('a', 40)));
  await recorder.step({ threadId: 'thread-b', messageIndex: 0, messageLine: 'go', tool: 'agent:claude-code' }, 'all', async () => write('b.txt', numbered('b', 40)));
  await recorder.step({ threadId: 'thread-b', messageIndex: 1, messageLine: 'more', tool: 'agent:claude-code', model: 'claude-x' }, 'all', async () => write('b.txt', [...numbered('b', 40), 'b more']));
  // The person changes every other line of both, then commits in a terminal.
  const mine = (lines: string[]) => lines.map((l, i) => (i % 2 === 0 ? `${l} (mine)` : l));
  write('a.txt', mine(numbered('a', 40)));
  write('b.txt', [...mine(numbered('b', 40)), 'b more']);
  git('add', '-A');
  git('commit', '-q', '-m', 'work');
  const commit = git('rev-parse', 'HEAD').trim();
  const before = folderState();

  await noteFolderCommits({ store, folder: root, env, settings: settingsOf(undefined) });

  const read = readNote(git('notes', '--ref=refs/notes/ai', 'show', commit));
  expect(read.get('base_commit_sha')).toBe(commit);
  const human = `human ${PERSON}`;
  expect(git('notes', '--ref=refs/notes/ai', 'show', commit)).toContain(`h_${hex14(PERSON)}`);
  expect(git('notes', '--ref=refs/notes/ai', 'show', commit)).toContain(`s_${hex14('deepdesk:thread-a')}::t_`);
  let right = 0;
  let total = 0;
  for (const [file, thread] of [['a.txt', 'deepdesk thread-a model-a'], ['b.txt', 'claude thread-b claude-x']] as const) {
    for (let n = 1; n <= 40; n++) {
      total++;
      if (read.get(`${file}:${n}`) === (n % 2 === 1 ? human : thread)) right++;
    }
  }
  total++;
  if (read.get('b.txt:41') === 'claude thread-b claude-x') right++;
  expect(right / total).toBeGreaterThanOrEqual(0.98);
  expect(read.has('base.txt:1')).toBe(false);
  expect(folderState()).toBe(before);
  expect(execFileSync('git', ['for-each-ref', 'refs/notes'], { cwd: remote, env, encoding: 'utf8' })).toBe('');

  // Looked at again: the note is kept as it is, no second one.
  const note = git('notes', '--ref=refs/notes/ai', 'show', commit);
  await noteFolderCommits({ store, folder: root, env, settings: settingsOf(undefined) });
  expect(git('notes', '--ref=refs/notes/ai', 'show', commit)).toBe(note);
});

it('pushes the notes only when chosen: the remote’s own notes merged under ours first', async () => {
  await recorder.step({ threadId: 't0', messageIndex: 0, messageLine: '', tool: 'write_file' }, 'all', async () => {});
  // Someone else's note on the remote already (on the base commit).
  const base = git('rev-parse', 'HEAD').trim();
  git('notes', '--ref=refs/notes/ai', 'add', '-m', 'theirs', base);
  git('push', '-q', 'origin', 'refs/notes/ai:refs/notes/ai');
  git('update-ref', '-d', 'refs/notes/ai');
  await recorder.step({ threadId: 'thread-a', messageIndex: 0, messageLine: 'go', tool: 'write_file', model: 'model-a' }, ['a.txt'], async () => write('a.txt', numbered('a', 3)));
  git('add', '-A');
  git('commit', '-q', '-m', 'work');
  const commit = git('rev-parse', 'HEAD').trim();
  await noteFolderCommits({ store, folder: root, env, settings: settingsOf({ push: true }) });
  const remoteNotes = (ref: string) => execFileSync('git', ['notes', '--ref=refs/notes/ai', 'show', ref], { cwd: remote, env, encoding: 'utf8' });
  expect(remoteNotes(commit)).toContain('authorship/3.0.0');
  expect(remoteNotes(base)).toBe('theirs\n');
  expect(git('for-each-ref', '--format=%(refname)')).not.toContain('refs/deepdesk/');
});

it('the off switch (global, or the folder’s entry over it) writes no note at all', async () => {
  await recorder.step({ threadId: 't0', messageIndex: 0, messageLine: '', tool: 'write_file' }, 'all', async () => {});
  await recorder.step({ threadId: 'thread-a', messageIndex: 0, messageLine: 'go', tool: 'write_file', model: 'model-a' }, ['a.txt'], async () => write('a.txt', numbered('a', 3)));
  git('add', '-A');
  git('commit', '-q', '-m', 'work');
  await noteFolderCommits({ store, folder: root, env, settings: settingsOf({ enabled: false }) });
  await noteFolderCommits({ store, folder: root, env, settings: settingsOf({ enabled: true, folders: { [root]: { enabled: false } } }) });
  expect(git('for-each-ref', 'refs/notes')).toBe('');
  expect(provenanceFor({ enabled: false, folders: { [root]: { enabled: true } } }, root)).toEqual({ enabled: true, push: false, trailer: false });
});

it('while a session is open, a commit made in a terminal is noted within seconds', async () => {
  await recorder.step({ threadId: 't0', messageIndex: 0, messageLine: '', tool: 'write_file' }, 'all', async () => {});
  const watching = watchCommits({ store, folder: root, env, settings: settingsOf(undefined) });
  try {
    await recorder.step({ threadId: 'thread-a', messageIndex: 0, messageLine: 'go', tool: 'write_file', model: 'model-a' }, ['a.txt'], async () => write('a.txt', numbered('a', 3)));
    git('add', '-A');
    git('commit', '-q', '-m', 'work');
    const commit = git('rev-parse', 'HEAD').trim();
    const deadline = Date.now() + 60_000;
    while (!git('notes', '--ref=refs/notes/ai', 'list').includes(commit) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(readNote(git('notes', '--ref=refs/notes/ai', 'show', commit)).get('a.txt:3')).toBe('deepdesk thread-a model-a');
  } finally {
    await watching.close();
  }
});

it('a note Deepdesk did not write is replaced where Deepdesk places the commit’s lines on an agent (forged, or rewritten over its own); another’s note of the person’s own commit stands', async () => {
  await recorder.step({ threadId: 't0', messageIndex: 0, messageLine: '', tool: 'write_file' }, 'all', async () => {});
  await recorder.step({ threadId: 'thread-a', messageIndex: 0, messageLine: 'go', tool: 'write_file', model: 'model-a' }, ['a.txt'], async () => write('a.txt', numbered('a', 3)));
  git('add', '-A');
  git('commit', '-q', '-m', 'work');
  const work = git('rev-parse', 'HEAD').trim();
  git('notes', '--ref=refs/notes/ai', 'add', '-m', 'forged', work);
  write('b.txt', ['mine']);
  git('add', '-A');
  git('commit', '-q', '-m', 'mine');
  git('notes', '--ref=refs/notes/ai', 'add', '-m', 'git-ai, of the person', 'HEAD');
  const show = (commit: string): string => git('notes', '--ref=refs/notes/ai', 'show', commit);

  await noteFolderCommits({ store, folder: root, env, settings: settingsOf(undefined) });
  expect(readNote(show(work)).get('a.txt:3')).toBe('deepdesk thread-a model-a');
  expect(show('HEAD')).toBe('git-ai, of the person\n');
  const ours = show(work);
  git('notes', '--ref=refs/notes/ai', 'add', '-f', '-m', 'forged', work);
  await noteFolderCommits({ store, folder: root, env, settings: settingsOf(undefined) });
  expect(show(work)).toBe(ours);
});
