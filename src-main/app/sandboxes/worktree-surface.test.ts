// The provider path (SPEC §18) with a repository whose config names hooks in its work tree
// (husky: `core.hooksPath = .husky`): the thread's folder is a linked worktree, whose config is
// the repository's (in its common `.git` folder, outside the worktree). A command in the
// sandbox (the Daytona stand-in, through its official SDK) rewrites `.husky/pre-commit`; the
// bring-back's whole-layer check must not carry it into the worktree, `Apply to folder` must
// never carry it to the person's folder, and a marker hook never runs when the person commits
// in either. Judged by effect with the real git.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { createDaytonaProvider } from '../../core/sandbox-providers/daytona/daytona-provider';
import { startDaytonaStandin } from '../../core/sandbox-providers/testing/daytona-standin';
import { WorktreeService } from '../worktrees/worktree-service';
import { openSandboxPlace } from './sandbox-place';
import { SandboxStore } from './sandbox-store';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const HOOK = '#!/bin/sh\nexit 0\n';

it('a rewritten husky hook in a sandbox worktree neither comes back nor reaches the folder with Apply; the marker never runs', async () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-wt-husky-')));
  cleanup.push(() => fs.rmSync(root, { recursive: true, force: true }));
  const repository = path.join(root, 'repository');
  const marks = path.join(root, 'marks');
  const dataDir = path.join(root, 'data');
  for (const dir of [repository, marks, dataDir, path.join(repository, '.husky')]) fs.mkdirSync(dir, { recursive: true });
  const gitconfig = path.join(root, 'gitconfig');
  fs.writeFileSync(gitconfig, '[user]\n\tname = P\n\temail = p@x\n[init]\n\tdefaultBranch = main\n');
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_GLOBAL: gitconfig, GIT_CONFIG_NOSYSTEM: '1' };
  const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  fs.writeFileSync(path.join(repository, '.husky', 'pre-commit'), HOOK, { mode: 0o755 });
  fs.writeFileSync(path.join(repository, 'a.txt'), 'a\n');
  git(repository, 'init', '-q');
  git(repository, 'add', '-A');
  git(repository, 'commit', '-qm', 'first');
  git(repository, 'config', 'core.hooksPath', '.husky');

  const service = new WorktreeService({ dataDir, env });
  cleanup.push(() => service.close());
  const made = await service.create({ folder: repository, name: 'w', carry: false });

  const standin = await startDaytonaStandin();
  cleanup.push(() => standin.close());
  const provider = createDaytonaProvider({ env: { ...standin.env } });
  const db = new Database(':memory:');
  cleanup.push(() => void db.close());
  const store = new SandboxStore(db);
  const record = store.put({ folder: made.threadFolder, worktree: 'w', provider: 'daytona' });
  const place = await openSandboxPlace({ record, store, dataDir, env, settings: () => ({}), savedKeys: async () => ({}), say: () => undefined, provider });
  cleanup.push(async () => {
    await place.close();
    await provider.remove(place.sandbox.id).catch(() => undefined);
  });

  const result = await place.shell.execute(
    [`printf '#!/bin/sh\\ntouch ${marks}/pre-commit\\nexit 0\\n' > .husky/pre-commit`, `printf '#!/bin/sh\\ntouch ${marks}/pre-push\\n' > .husky/pre-push`, 'chmod +x .husky/*', 'echo new > b.txt', 'true'].join('\n'),
    { timeoutS: 60 },
  );
  // Normal work came back; the hooks did not.
  expect(fs.readFileSync(path.join(made.path, 'b.txt'), 'utf8')).toBe('new\n');
  expect(fs.readFileSync(path.join(made.path, '.husky', 'pre-commit'), 'utf8')).toBe(HOOK);
  expect(fs.existsSync(path.join(made.path, '.husky', 'pre-push'))).toBe(false);
  expect(result.sandboxBlocked).toContain('.husky/pre-commit');

  // Apply to folder carries the normal work only.
  const applied = await service.apply('w');
  expect(applied.conflicts).toEqual([]);
  expect(fs.readFileSync(path.join(repository, 'b.txt'), 'utf8')).toBe('new\n');
  expect(fs.readFileSync(path.join(repository, '.husky', 'pre-commit'), 'utf8')).toBe(HOOK);
  expect(fs.existsSync(path.join(repository, '.husky', 'pre-push'))).toBe(false);

  // The person commits in both: no marker.
  for (const cwd of [repository, made.path]) {
    git(cwd, 'add', '-A');
    git(cwd, 'commit', '--allow-empty', '-qm', 'next');
  }
  expect(fs.readdirSync(marks)).toEqual([]);
}, 120_000);
