// A linked worktree (every `--worktree` thread, every sandbox thread) is protected as its
// folder is (SPEC §7, §16): its `.git` is a file leading to `<repository>/.git/worktrees/w`,
// and the config git uses there is the repository's (`<repository>/.git/config`, the common
// folder's) with the worktree's own `config.worktree`. What that config names relative to the
// work tree — husky's `core.hooksPath = .husky`, a filter program, a hooks path set only for
// this worktree — is in the worktree, and a sandboxed command there must not be able to
// change it. Judged by effect in the real sandbox: the command rewrites it with a marker
// program, then the person's own git commits in the worktree; the marker must not run and the
// files must be as they were.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalShellBackend } from '../backends/filesystem/local-shell';
import { gitSurfaceReason } from '../git/surface';
import { createSandbox, detectSandbox } from './index';

const available = await detectSandbox();

let root: string;
let home: string;
let repository: string;
let worktree: string;
let marks: string;

function personEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: personEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The person's next steps in the worktree: only the marker counts. */
function personCommits(cwd: string): void {
  for (const args of [['status'], ['add', '-A'], ['commit', '--allow-empty', '-qm', 'next']]) {
    try {
      git(cwd, ...args);
    } catch {
      // Only the marker counts.
    }
  }
}

function ran(): string[] {
  return readdirSync(marks);
}

const HOOK = '#!/bin/sh\nexit 0\n';
const CLEAN = '#!/bin/sh\ncat\n';

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-wt-surface-')));
  home = join(root, 'home');
  repository = join(root, 'repository');
  marks = join(root, 'marks');
  for (const dir of [home, repository, marks, join(root, 'data', 'worktrees')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = P\n\temail = p@x\n[init]\n\tdefaultBranch = main\n');
  // husky's way: the hooks are tracked files, the repository's config points at them relative to the work tree.
  mkdirSync(join(repository, '.husky'));
  writeFileSync(join(repository, '.husky', 'pre-commit'), HOOK, { mode: 0o755 });
  mkdirSync(join(repository, 'tools'));
  writeFileSync(join(repository, 'tools', 'clean.sh'), CLEAN, { mode: 0o755 });
  writeFileSync(join(repository, '.gitattributes'), '*.txt filter=lint\n');
  writeFileSync(join(repository, 'a.txt'), 'a\n');
  git(repository, 'init', '-q');
  git(repository, 'add', '-A');
  git(repository, 'commit', '-qm', 'first');
  git(repository, 'config', 'core.hooksPath', '.husky');
  git(repository, 'config', 'filter.lint.clean', './tools/clean.sh');
  worktree = join(root, 'data', 'worktrees', 'w');
  git(repository, 'worktree', 'add', '-q', worktree, '-b', 'deepdesk/w');
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

async function runInWorktree(command: string): Promise<{ output: string; sandboxBlocked?: string }> {
  const sandbox = await createSandbox({ projectDir: worktree, dataDir: join(root, 'data') });
  if (!sandbox) throw new Error('no sandbox');
  const backend = new LocalShellBackend({ rootDir: worktree, env: { HOME: home }, sandbox });
  return backend.execute(command, { timeoutS: 60 });
}

const evil = (name: string): string => `printf '#!/bin/sh\\ntouch ${marks}/${name}\\nexit 0\\n'`;

describe.skipIf(!available.available)("a linked worktree's git surface is its repository's config's", () => {
  it('husky hooks (core.hooksPath = .husky in the repository) cannot be rewritten in the worktree', async () => {
    // The attack is live: the person's git in the worktree runs what is there.
    const result = await runInWorktree(`${evil('pre-commit')} > .husky/pre-commit; ${evil('pre-push')} > .husky/pre-push; chmod +x .husky/*; true`);
    personCommits(worktree);
    expect(ran()).toEqual([]);
    expect(readFileSync(join(worktree, '.husky', 'pre-commit'), 'utf8')).toBe(HOOK);
    expect(readdirSync(join(worktree, '.husky'))).toEqual(['pre-commit']);
    expect(result.sandboxBlocked).toContain('/.husky/');
  });

  it('a program the repository config names relative to the work tree (a clean filter) cannot be rewritten', async () => {
    await runInWorktree(`${evil('clean')} > tools/clean.sh; true`);
    writeFileSync(join(worktree, 'a.txt'), 'changed\n');
    personCommits(worktree);
    expect(ran()).toEqual([]);
    expect(readFileSync(join(worktree, 'tools', 'clean.sh'), 'utf8')).toBe(CLEAN);
  });

  it("a hooks path set only for this worktree (config.worktree in the repository's worktrees/w) is protected", async () => {
    git(repository, 'config', 'extensions.worktreeConfig', 'true');
    git(worktree, 'config', '--worktree', 'core.hooksPath', 'wt-hooks');
    mkdirSync(join(worktree, 'wt-hooks'));
    await runInWorktree(`${evil('wt-pre-commit')} > wt-hooks/pre-commit; chmod +x wt-hooks/pre-commit; true`);
    personCommits(worktree);
    expect(ran()).toEqual([]);
    expect(readdirSync(join(worktree, 'wt-hooks'))).toEqual([]);
  });

  it('normal work in the worktree still lands', async () => {
    const result = await runInWorktree('echo more >> a.txt; echo new > b.md; true');
    expect(result.sandboxBlocked).toBeUndefined();
    expect(readFileSync(join(worktree, 'a.txt'), 'utf8')).toBe('a\nmore\n');
    expect(readFileSync(join(worktree, 'b.md'), 'utf8')).toBe('new\n');
  });
});

describe("the agent's own file tools in a linked worktree", () => {
  it('ask before writing what the repository config names there', async () => {
    expect(await gitSurfaceReason(worktree, join(worktree, '.husky', 'pre-commit'), home)).not.toBeNull();
    expect(await gitSurfaceReason(worktree, join(worktree, 'tools', 'clean.sh'), home)).not.toBeNull();
    expect(await gitSurfaceReason(worktree, join(worktree, 'a.txt'), home)).toBeNull();
  });
});

