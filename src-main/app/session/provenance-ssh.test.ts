// Who wrote each line in an SSH folder (SPEC §24), over a real ssh to a real sshd on 127.0.0.1
// (the remote folder is a local temp folder, so the test sets it up with node:fs and plain git):
// a commit made there is noted by git running there, through the script backend's place, when
// Deepdesk looks and, while a session watches, on its own; a thread's hunk goes back byte for
// byte (CRLF and mode kept) through the remote folder's restore.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openTestRemoteFolder, type TestRemoteFolder } from '../../core/backends/remote/testing/remote-folder';
import { startTestSshd, type TestSshd } from '../../core/backends/remote/testing/sshd';
import { CheckpointHistory } from '../../core/checkpoints/history';
import { sessionId } from '../../core/checkpoints/provenance/git-ai-note';
import { recorderFor, type CheckpointRecorder, type StepInfo } from '../../core/checkpoints/recorder';
import { remoteFolderSource } from '../../core/checkpoints/remote-folder';
import { CheckpointStore } from '../../core/checkpoints/store';
import { noteFolderCommits, watchCommits } from './provenance';

let sshd: TestSshd;
let folder: TestRemoteFolder;
let dataDir: string;
let store: CheckpointStore;
let recorder: CheckpointRecorder;
let url: string;
const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

beforeAll(async () => {
  sshd = await startTestSshd();
});
afterAll(async () => {
  await sshd?.dispose();
});
beforeEach(async () => {
  folder = openTestRemoteFolder(sshd);
  dataDir = fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-prov-ssh-'));
  store = CheckpointStore.open(dataDir);
  const source = remoteFolderSource(folder.connection);
  url = source.root;
  recorder = recorderFor(store, source);
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Pat Person');
  git('config', 'user.email', 'pat@example.com');
  await recorder.prepareBaseline();
});
afterEach(async () => {
  store.close();
  await folder.connection.close();
  folder.remove();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const git = (...args: string[]): string => execFileSync('git', args, { cwd: folder.dir, env, encoding: 'utf8', stdio: 'pipe' });
const p = (rel: string): string => path.join(folder.dir, rel);
const info = (threadId: string): StepInfo => ({ threadId, messageIndex: 0, messageLine: 'do it', tool: 'write_file', model: 'model-ssh' });
const noteOf = (commit: string): string | undefined => {
  try {
    return git('notes', '--ref=refs/notes/ai', 'show', commit);
  } catch {
    return undefined;
  }
};

describe('an SSH folder', () => {
  it('a commit made there is noted, git running there: the thread’s lines its session, the person’s their h_ key; nothing else in the folder changes', async () => {
    await recorder.step(info('thread-ssh'), ['a.txt'], async () => fs.writeFileSync(p('a.txt'), 'agent 1\nagent 2\n'));
    fs.writeFileSync(p('a.txt'), 'agent 1\nagent 2\nmine\n');
    git('add', '-A');
    git('commit', '-q', '-m', 'work');
    const commit = git('rev-parse', 'HEAD').trim();
    const config = fs.readFileSync(p('.git/config'), 'utf8');

    await noteFolderCommits({ store, folder: url, env, place: folder.backend.place, settings: () => undefined });
    const note = noteOf(commit);
    expect(note).toMatch(new RegExp(`^a\\.txt\\n  ${sessionId('thread-ssh')}::t_[0-9a-f]{14} 1-2\\n  h_[0-9a-f]{14} 3\\n---\\n`));
    const meta = JSON.parse(note!.slice(note!.indexOf('---\n') + 4)) as { base_commit_sha: string; sessions: Record<string, { agent_id: object }>; humans: Record<string, { author: string }> };
    expect(meta.base_commit_sha).toBe(commit);
    expect(Object.values(meta.sessions)[0]!.agent_id).toEqual({ tool: 'deepdesk', id: 'thread-ssh', model: 'model-ssh' });
    expect(Object.values(meta.humans)).toEqual([{ author: 'Pat Person <pat@example.com>' }]);
    expect(fs.readFileSync(p('.git/config'), 'utf8')).toBe(config);
    expect(git('status', '--porcelain')).toBe('');

    // Turned off for the folder (its ssh:// URL): nothing more is written.
    fs.writeFileSync(p('b.txt'), 'b\n');
    git('add', '-A');
    git('commit', '-q', '-m', 'more');
    await noteFolderCommits({ store, folder: url, env, place: folder.backend.place, settings: () => ({ folders: { [url]: { enabled: false } } }) });
    expect(noteOf('HEAD')).toBeUndefined();
  }, 120_000);

  it('while a session watches it, a commit made in a terminal there is noted on its own', async () => {
    await recorder.step(info('thread-watch'), ['w.txt'], async () => fs.writeFileSync(p('w.txt'), 'from the agent\n'));
    const watching = watchCommits({ store, folder: url, env, place: folder.backend.place, settings: () => undefined });
    try {
      git('add', '-A');
      git('commit', '-q', '-m', 'in a terminal');
      const commit = git('rev-parse', 'HEAD').trim();
      await expect.poll(() => noteOf(commit), { timeout: 60_000 }).toMatch(new RegExp(`^w\\.txt\\n  ${sessionId('thread-watch')}::t_[0-9a-f]{14} 1\\n`));
    } finally {
      await watching.close();
    }
  }, 120_000);

  it('a thread’s one hunk goes back byte for byte (CRLF, mode), a recorded restore', async () => {
    fs.writeFileSync(p('crlf.txt'), 'one\r\ntwo\r\nthree\r\n');
    fs.chmodSync(p('crlf.txt'), 0o755);
    await recorder.step(info('thread-hunk'), 'all', async () => undefined);
    await recorder.step(info('thread-hunk'), ['crlf.txt'], async () => fs.writeFileSync(p('crlf.txt'), 'one\r\nTWO\r\nthree\r\n'));
    const history = new CheckpointHistory(store);
    const hunks = history.threadChanges('thread-hunk').find((f) => f.path === 'crlf.txt')?.hunks ?? [];
    expect(hunks.map((h) => h.authors)).toEqual([[{ kind: 'agent', thread: 'thread-hunk', model: 'model-ssh' }]]);
    const outcome = await history.revertHunk('thread-hunk', 'crlf.txt', hunks[0]!.id, 'ask');
    expect(outcome).toMatchObject({ applied: true, restored: ['crlf.txt'], checkpoint: { kind: 'restore' } });
    expect(fs.readFileSync(p('crlf.txt'), 'latin1')).toBe('one\r\ntwo\r\nthree\r\n');
    expect(fs.statSync(p('crlf.txt')).mode & 0o777).toBe(0o755);
  }, 120_000);
});
