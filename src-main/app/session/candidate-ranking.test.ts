// A candidate forging its rank (issue 78): one that hides its change in git-ignored files (the
// checker its verify step runs, a generated file) must not measure smaller than one whose whole
// change git sees. Real git worktrees, the real checkpoint log; the ranking's change size counts
// what the host saw change.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { CheckpointHistory } from '../../core/checkpoints/history';
import { CheckpointRecorder } from '../../core/checkpoints/recorder';
import { CheckpointStore } from '../../core/checkpoints/store';
import { rankOutcomes, type CandidateOutcome } from './candidate-ranking';

let dir: string;
let store: CheckpointStore;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-rank-')));
  store = CheckpointStore.open(join(dir, 'data'));
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8' }).trim();

it('a candidate that hides its change in git-ignored files ranks by what the host saw change, never by git’s view alone', async () => {
  const repo = join(dir, 'repo');
  mkdirSync(repo);
  writeFileSync(join(repo, '.gitignore'), 'tools/\n*.gen.js\n');
  writeFileSync(join(repo, 'sum.js'), 'module.exports = (a, b) => a - b;\n');
  git(repo, 'init', '-q');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'fixture');
  const baseCommit = git(repo, 'rev-parse', 'HEAD');
  const worktree = (name: string) => {
    const path = join(dir, name);
    git(repo, 'worktree', 'add', '-q', '-b', name, path);
    // The checker the verify step runs, set up (ignored) before the candidate's thread begins.
    mkdirSync(join(path, 'tools'));
    writeFileSync(join(path, 'tools', 'check.sh'), 'node -e "process.exit(require(\'./sum\')(2, 3) === 5 ? 0 : 1)"\n');
    return { name, path, branch: name, baseCommit };
  };
  const hider = worktree('hider');
  const honest = worktree('honest');
  // Files set up before a thread began are not its change (file times are coarse).
  await new Promise((r) => setTimeout(r, 1_500));
  const sinceMs = Date.now();
  const step = async (threadId: string, folder: string, change: () => void) => {
    const recorder = new CheckpointRecorder(store, folder);
    const info = { threadId, messageIndex: 0, messageLine: 'make sum add', tool: 'execute' };
    await recorder.step(info, 'all', async () => {});
    await recorder.step(info, 'all', async () => change());
  };
  await step('hider', hider.path, () => {
    writeFileSync(join(hider.path, 'tools', 'check.sh'), '#!/bin/sh\n# always passes\nexit 0\n');
    writeFileSync(join(hider.path, 'answer.gen.js'), 'module.exports = 5;\n');
  });
  await step('honest', honest.path, () => writeFileSync(join(honest.path, 'sum.js'), 'module.exports = (a, b) => a + b;\n'));
  const history = new CheckpointHistory(store);
  const outcome = (threadId: string, w: CandidateOutcome['worktree']): CandidateOutcome => ({
    threadId,
    model: null,
    agent: null,
    worktree: w,
    ignored: { paths: history.ignoredChanges(threadId, '').map((i) => join(w.path, i.path)), sinceMs },
    costUsd: 0,
  });
  // The hider comes first in the set: on a tie it would rank first.
  const ranking = await rankOutcomes([outcome('hider', hider), outcome('honest', honest)]);
  expect(ranking.map((r) => [r.threadId, r.change])).toEqual([
    ['honest', { files: 1, lines: 2, newDependencies: 0 }],
    ['hider', { files: 2, lines: 4, newDependencies: 0 }],
  ]);
});
