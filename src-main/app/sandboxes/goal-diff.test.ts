// A goal's diff on a provider's sandbox (SPEC §21): the sandbox's work comes back to the
// thread's worktree after each step, so the gate takes the tree and diff from the worktree's
// git here (the sandbox may have no git, and its upload no `.git`). Against the Daytona stand-in.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { createDaytonaProvider } from '../../core/sandbox-providers/daytona/daytona-provider';
import { startDaytonaStandin } from '../../core/sandbox-providers/testing/daytona-standin';
import { gitGoalFolder } from '../session/goal-folder';
import { WorktreeService } from '../worktrees/worktree-service';
import { openSandboxPlace } from './sandbox-place';
import { SandboxStore } from './sandbox-store';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

it('a command in the provider’s sandbox changes the goal’s diff: the files it touched, from the worktree’s base', { timeout: 90_000 }, async () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-goal-diff-')));
  cleanup.push(() => fs.rmSync(root, { recursive: true, force: true }));
  const repository = path.join(root, 'repository');
  const dataDir = path.join(root, 'data');
  for (const dir of [repository, dataDir]) fs.mkdirSync(dir, { recursive: true });
  const gitconfig = path.join(root, 'gitconfig');
  fs.writeFileSync(gitconfig, '[user]\n\tname = P\n\temail = p@x\n[init]\n\tdefaultBranch = main\n');
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_GLOBAL: gitconfig, GIT_CONFIG_NOSYSTEM: '1' };
  const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  fs.writeFileSync(path.join(repository, 'sum.js'), 'module.exports = (a, b) => a - b;\n');
  git(repository, 'init', '-q');
  git(repository, 'add', '-A');
  git(repository, 'commit', '-qm', 'first');

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

  const goalFolder = gitGoalFolder(made.path, env);
  const base = await goalFolder.tree();
  expect(base).toMatch(/^[0-9a-f]{40}$/);
  // A command that changes nothing leaves the tree as it was (what the stall watch compares).
  await place.shell.execute('cat sum.js > /dev/null', { timeoutS: 60 });
  expect(await goalFolder.tree()).toBe(base);
  await place.shell.execute("printf 'module.exports = (a, b) => a + b;\\n' > sum.js", { timeoutS: 60 });
  const changed = await goalFolder.diff(base!);
  expect(changed?.files).toEqual(['sum.js']);
  expect(changed?.diff).toContain('+module.exports = (a, b) => a + b;');
});
