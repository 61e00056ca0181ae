// A session's looks for new commits (SPEC §24) run git only when git could have something new:
// never in a folder in no repository, and not while HEAD's reflog and the notes' are as they were
// after a look that settled everything. Seen by effect: every git the looks start is a `git` on
// their PATH that logs its arguments, then runs the real one. A commit, a `git init` and a note
// forged over Deepdesk's are each found by the next look all the same.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { CheckpointRecorder } from '../../core/checkpoints/recorder';
import { CheckpointStore } from '../../core/checkpoints/store';
import { watchCommits } from './provenance';

let dir: string;
let root: string;
let store: CheckpointStore;
let recorder: CheckpointRecorder;
let gitLog: string;
const baseEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
let env: NodeJS.ProcessEnv;

const git = (...args: string[]): string => execFileSync('git', args, { cwd: root, env: baseEnv, encoding: 'utf8' });
/** The git commands the looks ran since the last call (config listings included). */
const gitRuns = (): string[] => {
  const runs = fs.readFileSync(gitLog, 'utf8').split('\n').filter((l) => l !== '');
  fs.writeFileSync(gitLog, '');
  return runs;
};
const makeRepository = (): void => {
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Pat Person');
  git('config', 'user.email', 'pat@example.com');
};
const noteOf = (commit: string): string => git('notes', '--ref=refs/notes/ai', 'show', commit);
const commitLines = async (threadId: string, file: string): Promise<string> => {
  await recorder.step({ threadId, messageIndex: 0, messageLine: 'go', tool: 'write_file', model: 'model-a' }, [file], async () => fs.writeFileSync(path.join(root, file), 'one\ntwo\n'));
  git('add', '-A');
  git('commit', '-q', '-m', 'work');
  return git('rev-parse', 'HEAD').trim();
};

beforeEach(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-looks-')));
  root = path.join(dir, 'project');
  fs.mkdirSync(root);
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  gitLog = path.join(dir, 'git.log');
  fs.writeFileSync(gitLog, '');
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  fs.writeFileSync(path.join(bin, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${gitLog}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
  env = { ...baseEnv, PATH: `${bin}:${process.env.PATH ?? ''}` };
  store = CheckpointStore.open(path.join(dir, 'data'));
  recorder = new CheckpointRecorder(store, root);
  // The folder's baseline: its commits from now on are noted.
  await recorder.step({ threadId: 't0', messageIndex: 0, messageLine: '', tool: 'write_file' }, 'all', async () => {});
});

afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('in a folder in no repository the looks run no git; once the folder is made one, its commit is noted at the next look', async () => {
  const watching = watchCommits({ store, folder: root, env, settings: () => undefined });
  try {
    await watching.look();
    await watching.look();
    expect(gitRuns()).toEqual([]);
    makeRepository();
    const commit = await commitLines('thread-a', 'a.txt');
    await watching.look();
    expect(gitRuns().some((run) => run.includes('rev-list'))).toBe(true);
    expect(noteOf(commit)).toContain('"id": "thread-a"');
  } finally {
    await watching.close();
  }
});

it('in a repository, a look while nothing changed in git runs none; a commit, and a note forged over Deepdesk’s, are found by the next look', async () => {
  makeRepository();
  const first = await commitLines('thread-a', 'a.txt');
  const watching = watchCommits({ store, folder: root, env, settings: () => undefined });
  try {
    // The first look (as the session opens) and the next one settle what is there.
    await watching.look();
    await watching.look();
    expect(noteOf(first)).toContain('"id": "thread-a"');
    gitRuns();
    await watching.look();
    await watching.look();
    expect(gitRuns()).toEqual([]);

    const second = await commitLines('thread-b', 'b.txt');
    await watching.look();
    expect(noteOf(second)).toContain('"id": "thread-b"');

    const ours = noteOf(second);
    git('notes', '--ref=refs/notes/ai', 'add', '-f', '-m', 'forged', second);
    await watching.look();
    expect(noteOf(second)).toBe(ours);
    // Its own note moved the notes' reflog: one more look, then none.
    await watching.look();
    gitRuns();
    await watching.look();
    expect(gitRuns()).toEqual([]);
  } finally {
    await watching.close();
  }
});
