// Issue 81: provenance in git. Side by side, in interleaved rounds: writing the git-ai note of a
// 1,000-line commit (two threads' steps and the person's edits in the checkpoint log: the
// commit's files read, each line's author replayed from the log, the note added under
// refs/notes/ai) beside `git notes add` of a note of that size alone (goal ≤ 5×).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { noteCommit } from '../../src-main/core/checkpoints/provenance/commit-notes';
import { CheckpointRecorder } from '../../src-main/core/checkpoints/recorder';
import { CheckpointStore } from '../../src-main/core/checkpoints/store';
import { errorText, formatMs, formatRatio, median } from './measure';
import type { BenchOptions } from './options';
import { progress, verdict, type Report } from './report';

const FILES = 10;
const LINES = 100;
const GOAL = 5;
const ENV: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };

function git(cwd: string, ...args: string[]): string {
  const res = spawnSync('git', args, { cwd, env: ENV, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (res.status !== 0) throw new Error(`git ${args.join(' ')}: ${res.stderr}`);
  return res.stdout;
}

export async function benchProvenance(report: Report, options: BenchOptions): Promise<void> {
  const section = report.section('Issue 81 · provenance');
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-provenance-')));
  const repo = path.join(root, 'repo');
  const store = CheckpointStore.open(path.join(root, 'data'));
  try {
    progress(`provenance: a ${(FILES * LINES).toLocaleString('en')}-line commit from two threads and the person`);
    fs.mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'config', 'user.name', 'Pat Person');
    git(repo, 'config', 'user.email', 'pat@example.com');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'base');
    const recorder = new CheckpointRecorder(store, repo);
    await recorder.step({ threadId: 'first-look', messageIndex: 0, messageLine: '', tool: 'write_file' }, 'all', async () => {});
    const text = (f: number, who: string) => Array.from({ length: LINES }, (_, i) => `export const v${f}_${i} = '${who} ${i}';\n`).join('');
    for (let f = 0; f < FILES; f++) {
      const rel = `src/file${f}.ts`;
      fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
      await recorder.step({ threadId: f % 2 === 0 ? 'thread-a' : 'thread-b', messageIndex: 0, messageLine: 'go', tool: 'write_file', model: f % 2 === 0 ? 'model-a' : 'model-b' }, [rel], async () =>
        fs.writeFileSync(path.join(repo, rel), text(f, 'agent')),
      );
      // The person changes every fifth line.
      fs.writeFileSync(path.join(repo, rel), text(f, 'agent').split('\n').map((l, i) => (i % 5 === 0 && l !== '' ? `${l} // mine` : l)).join('\n'));
    }
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'work');
    const commit = git(repo, 'rev-parse', 'HEAD').trim();
    const writing = { store, folder: repo, env: ENV, toolOf: (agent: string) => agent };
    const drop = () => spawnSync('git', ['notes', '--ref=refs/notes/ai', 'remove', '--ignore-missing', commit], { cwd: repo, env: ENV });
    await noteCommit(writing, commit);
    const note = git(repo, 'notes', '--ref=refs/notes/ai', 'show', commit);
    const noteFile = path.join(root, 'note');
    fs.writeFileSync(noteFile, note);
    const ours: number[] = [];
    const plain: number[] = [];
    const runs = Math.max(options.runs, 5);
    for (let round = 0; round <= runs; round++) {
      drop();
      let start = performance.now();
      await noteCommit(writing, commit);
      if (round > 0) ours.push(performance.now() - start);
      drop();
      start = performance.now();
      git(repo, 'notes', '--ref=refs/notes/ai', 'add', '-F', noteFile, commit);
      if (round > 0) plain.push(performance.now() - start);
    }
    const [o, g] = [median(ours), median(plain)];
    section.rows.push({
      name: `the git-ai note of a ${(FILES * LINES).toLocaleString('en')}-line commit (${FILES} files) from the checkpoint log (vs git notes add of it alone)`,
      ours: formatMs(o),
      floor: `${formatMs(g)} git`,
      ratio: formatRatio(o, g),
      target: `≤ ${GOAL}× git`,
      result: verdict(o <= GOAL * g),
    });
    section.notes.push(
      `provenance: noteCommit on a generated repository: ${FILES} files of ${LINES} lines, each written by one of two threads' steps, every fifth line then changed by the person, one plain commit; ` +
        `ours reads the commit's files and their parents' (git cat-file each), replays each file's checkpoints for its lines' authors and adds the note (${note.length.toLocaleString('en')} bytes); git is \`git notes add -F\` of the same note; the note removed before each round`,
    );
  } catch (err) {
    section.rows.push({ name: 'provenance', ours: `error: ${errorText(err)}` });
  } finally {
    store.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}
