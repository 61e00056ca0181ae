// A failed set of candidates leaves nothing unnamed (issue 78): when the k-th worktree of a set
// cannot be made, the ones made before it go (worktree, branch, record) and nothing starts.
// Real git; git's third `worktree add` fails as a full disk makes it fail (a wrapper on PATH).

import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openDatabase } from '../../core/backends/store/store';
import { databasePath } from '../base/data-dir';
import { FileSecretStore } from '../settings/file-secret-store';
import { WorktreeService } from '../worktrees/worktree-service';
import { HostCandidateSets } from './candidate-sets';
import type { HostRuns } from './run-requests';
import type { HostConnection } from '../base/host-service';

let root: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-cand-set-')));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

it('when the third worktree of a set cannot be made, the two made go with their branches and records, and nothing starts', async () => {
  const folder = join(root, 'project');
  const dataDir = join(root, 'data');
  const bin = join(root, 'bin');
  mkdirSync(folder);
  mkdirSync(dataDir);
  mkdirSync(bin);
  writeFileSync(join(folder, 'sum.js'), 'module.exports = (a, b) => a - b;\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: folder, encoding: 'utf8' }).trim();
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'fixture');
  const own = git('symbolic-ref', '--short', 'HEAD');
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(
    join(bin, 'git'),
    [
      '#!/bin/sh',
      'case " $* " in *" worktree add "*)',
      `  n=$(($(cat ${bin}/adds 2>/dev/null || echo 0) + 1)); echo $n > ${bin}/adds`,
      '  [ $n -ge 3 ] && { echo "fatal: could not create leading directories: No space left on device" >&2; exit 128; } ;;',
      'esac',
      `exec ${realGit} "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(join(bin, 'git'), 0o755);

  const db = openDatabase(databasePath(dataDir));
  const secrets = new FileSecretStore(dataDir);
  const started: string[] = [];
  const runs: HostRuns = {
    start: async (_connection, params) => (started.push(params.request.threadId ?? ''), { threadId: params.request.threadId ?? '' }),
    onActivity: () => () => undefined,
    recordedEnd: () => undefined,
  };
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, OPENAI_API_KEY: '' };
  const sets = new HostCandidateSets(runs, { dataDir, db, env, version: '0.0.0', secrets });
  const connection = { id: 'c1', client: 'run', send: () => undefined } as unknown as HostConnection;
  try {
    const failed = await sets.start(connection, { folder, count: 3, models: [], request: { goal: 'make sum add', cwd: folder, env: {} } as never, approve: 'deny', follow: false }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(execFileSync('cat', [join(bin, 'adds')], { encoding: 'utf8' }).trim()).toBe('3');
    expect(started).toEqual([]);
    // Nothing of the set is left: no branch but the person's, no worktree but the folder, no folder, no record.
    expect(git('branch', '--format=%(refname:short)').split('\n')).toEqual([own]);
    expect(git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    expect(readdirSync(join(dataDir, 'worktrees'))).toEqual([]);
    const service = new WorktreeService({ dataDir, db });
    try {
      expect(service.list()).toEqual([]);
    } finally {
      service.close();
    }
    expect(git('status', '--porcelain')).toBe('');
    expect(String(failed)).toMatch(/No space left on device; nothing was started, and the worktrees made for it were removed\./);
  } finally {
    secrets.close();
    db.close();
  }
}, 120_000);
