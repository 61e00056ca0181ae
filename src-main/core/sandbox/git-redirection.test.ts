// Nothing a sandboxed command leaves behind runs later on the host (SPEC §7), judged by
// effect: each attack below is run in the real sandbox, then the person's own git runs
// outside it (`git status`, `git checkout`, `git commit`, in the folder and in the places
// the attack prepared) and a marker program the attack pointed git at must not have run.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalShellBackend } from '../backends/filesystem/local-shell';
import { createSandbox, detectSandbox } from './index';

const available = await detectSandbox();

let root: string;
let home: string;
let project: string;
let marks: string;
let backend: LocalShellBackend;
let probe = 0;

function personEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };
}

/** The person's git, outside any sandbox. */
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: personEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
}

/** What the person does next in `cwd`: every failure is fine, only the marker counts. */
function personUsesGit(cwd: string): void {
  probe++;
  for (const args of [['status'], ['diff'], ['checkout', '-q', '-b', `probe-${probe}`], ['commit', '--allow-empty', '-qm', `probe ${probe}`]]) {
    try {
      git(cwd, ...args);
    } catch {
      // A repository the guard left unusable is fine; running the marker is not.
    }
  }
}

/** Shell text that writes the marker program into the folder (the sandbox can write there). */
function evilProgram(name = 'evil.sh'): string {
  return `printf '#!/bin/sh\\ntouch ${join(marks, 'ran')}-"$(basename "$0")"\\nexit 0\\n' > ${name} && chmod +x ${name}`;
}

function ran(): string[] {
  try {
    return execFileSync('ls', [marks], { encoding: 'utf8' }).split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

beforeEach(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-gitredir-')));
  home = join(root, 'home');
  project = join(root, 'project');
  marks = join(root, 'marks');
  for (const dir of [home, project, marks, join(root, 'data')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = P\n\temail = p@x\n[protocol "file"]\n\tallow = always\n[init]\n\tdefaultBranch = main\n');
  writeFileSync(join(project, 'README.md'), 'hello\n');
  const sandbox = await createSandbox({ projectDir: project, dataDir: join(root, 'data') });
  if (!sandbox) throw new Error('no sandbox');
  backend = new LocalShellBackend({ rootDir: project, env: { HOME: home }, sandbox });
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const run = (command: string) => backend.execute(command, { timeoutS: 60 });

/**
 * Time for the look the sandbox takes after a command (index.ts FolderLook, a few ms here): the
 * next command is launched with its mounts. Should it still run, the next command is launched
 * with a look that is fresher, not older: the case then checks the mounts instead of the
 * layer's check, and passes or fails the same.
 */
const lookTaken = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 300));

function initRepo(dir = project): void {
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'first');
}

describe.skipIf(!available.available)('git cannot be redirected to run what a sandboxed command wrote', () => {
  it('commondir pointing at a copy of .git with core.fsmonitor', async () => {
    initRepo();
    const result = await run(`${evilProgram()} && cp -r .git ev && git --git-dir=ev config core.fsmonitor "$PWD/evil.sh"; echo ../ev > .git/commondir; true`);
    personUsesGit(project);
    expect(ran()).toEqual([]);
    expect(existsSync(join(project, '.git', 'commondir'))).toBe(false);
    expect(result.sandboxBlocked).toContain('/.git/commondir');
  });

  it('a .git file made in a folder without a repository, pointing at a repository with core.fsmonitor', async () => {
    const result = await run(`${evilProgram()} && git init -q ev && git -C ev config core.fsmonitor "$PWD/evil.sh" && echo "gitdir: ev/.git" > .git`);
    personUsesGit(project);
    expect(ran()).toEqual([]);
    expect(result.sandboxBlocked).toBeDefined();
  });

  it('a .git file pointing at a git folder that is not named .git', async () => {
    const result = await run(
      `${evilProgram()} && git init -q --separate-git-dir=store tmpwt && rm -rf tmpwt && git --git-dir=store config core.fsmonitor "$PWD/evil.sh" && git --git-dir=store config core.bare false && echo "gitdir: store" > .git`,
    );
    personUsesGit(project);
    expect(ran()).toEqual([]);
    expect(result.sandboxBlocked).toBeDefined();
  });

  it('a copy of a git folder under another name, with core.worktree, found where the person stands in it', async () => {
    initRepo();
    await run(`${evilProgram()} && cp -r .git gd && git --git-dir=gd config core.fsmonitor "$PWD/evil.sh" && git --git-dir=gd config core.worktree "$PWD"`);
    personUsesGit(join(project, 'gd'));
    expect(ran()).toEqual([]);
  });

  it('a nested repository made during the command, with a hook and core.fsmonitor', async () => {
    initRepo();
    await run(
      `${evilProgram()} && git init -q sub && git -C sub config core.fsmonitor "$PWD/evil.sh" && cp evil.sh sub/.git/hooks/pre-commit && cp evil.sh sub/.git/hooks/post-checkout`,
    );
    personUsesGit(join(project, 'sub'));
    expect(ran()).toEqual([]);
    // The repository itself stays usable.
    expect(git(join(project, 'sub'), 'rev-parse', '--is-inside-work-tree').trim()).toBe('true');
  });

  it('a nested repository that existed before: its config, hooks and commondir', async () => {
    mkdirSync(join(project, 'sub'));
    writeFileSync(join(project, 'sub', 'x.txt'), 'x\n');
    initRepo(join(project, 'sub'));
    const configBefore = readFileSync(join(project, 'sub', '.git', 'config'), 'utf8');
    const result = await run(
      `${evilProgram()}; git -C sub config core.fsmonitor "$PWD/evil.sh"; cp evil.sh sub/.git/hooks/pre-commit; cp -r sub/.git ev; git --git-dir=ev config core.fsmonitor "$PWD/evil.sh"; echo "$PWD/ev" > sub/.git/commondir; true`,
    );
    personUsesGit(join(project, 'sub'));
    expect(ran()).toEqual([]);
    expect(readFileSync(join(project, 'sub', '.git', 'config'), 'utf8')).toBe(configBefore);
    expect(result.sandboxBlocked).toContain('/sub/.git/');
  });

  it('a nested repository the person made between two commands: what the next one writes there never reaches it', async () => {
    initRepo();
    expect((await run('true')).exitCode).toBe(0);
    await lookTaken();
    const sub = join(project, 'sub');
    mkdirSync(sub);
    writeFileSync(join(sub, 'x.txt'), 'x\n');
    initRepo(sub);
    const configBefore = readFileSync(join(sub, '.git', 'config'), 'utf8');
    const result = await run(
      `${evilProgram()}; git -C sub config core.fsmonitor "$PWD/evil.sh"; cp evil.sh sub/.git/hooks/pre-commit; cp evil.sh sub/.git/hooks/post-checkout; mkdir -p sub/.git/info; echo '* diff=ev' > sub/.git/info/attributes; git -C sub config diff.ev.command "$PWD/evil.sh"; true`,
    );
    personUsesGit(sub);
    git(sub, 'diff', 'HEAD~0');
    expect(ran()).toEqual([]);
    expect(readFileSync(join(sub, '.git', 'config'), 'utf8')).toBe(configBefore);
    expect(existsSync(join(sub, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(existsSync(join(sub, '.git', 'info', 'attributes'))).toBe(false);
    expect(result.sandboxBlocked).toContain('/sub/.git/');
  });

  it('a nested repository the person removed between two commands: the next command runs as usual', async () => {
    const sub = join(project, 'sub');
    mkdirSync(sub);
    writeFileSync(join(sub, 'x.txt'), 'x\n');
    initRepo(sub);
    initRepo();
    expect((await run('true')).exitCode).toBe(0);
    // That look holds sub/.git's config, hooks and info.
    await lookTaken();
    rmSync(sub, { recursive: true, force: true });
    const result = await run('echo ran; ls');
    expect(result.exitCode).toBe(0);
    expect(result.output).toBe('ran\nREADME.md');
    expect(result.sandboxBlocked).toBeUndefined();
  });

  it("a submodule's git folder (.git/modules/NAME): hooks and commondir", async () => {
    const other = join(root, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'o.txt'), 'o\n');
    initRepo(other);
    initRepo();
    git(project, 'submodule', '-q', 'add', other, 'mod');
    git(project, 'commit', '-qm', 'add mod');
    await run(
      `${evilProgram()}; cp evil.sh .git/modules/mod/hooks/post-checkout; cp -r .git/modules/mod ev; git --git-dir=ev config core.fsmonitor "$PWD/evil.sh"; echo "$PWD/ev" > .git/modules/mod/commondir; true`,
    );
    personUsesGit(join(project, 'mod'));
    personUsesGit(project);
    expect(ran()).toEqual([]);
  });

  it('a linked worktree made by hand (.git/worktrees/NAME with a commondir of its choosing)', async () => {
    initRepo();
    await run(
      [
        evilProgram(),
        'cp -r .git ev',
        'git --git-dir=ev config core.fsmonitor "$PWD/evil.sh"',
        'mkdir -p .git/worktrees/w w',
        'git rev-parse HEAD > .git/worktrees/w/HEAD',
        'echo "$PWD/ev" > .git/worktrees/w/commondir',
        'echo "$PWD/w/.git" > .git/worktrees/w/gitdir',
        'echo "gitdir: $PWD/.git/worktrees/w" > w/.git',
      ].join('; '),
    );
    personUsesGit(join(project, 'w'));
    expect(ran()).toEqual([]);
  });

  it('info/ of an existing repository stays as it was', async () => {
    initRepo();
    const exclude = readFileSync(join(project, '.git', 'info', 'exclude'), 'utf8');
    const result = await run('echo "*" >> .git/info/exclude; echo "* diff=x" > .git/info/attributes; true');
    expect(readFileSync(join(project, '.git', 'info', 'exclude'), 'utf8')).toBe(exclude);
    expect(existsSync(join(project, '.git', 'info', 'attributes'))).toBe(false);
    expect(result.sandboxBlocked).toContain('/.git/info/');
  });

  it("the person's core.hooksPath inside the folder (as husky sets it) is out of reach", async () => {
    initRepo();
    mkdirSync(join(project, '.githooks'));
    writeFileSync(join(project, '.githooks', 'pre-push'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    git(project, 'config', 'core.hooksPath', '.githooks');
    const result = await run(`${evilProgram()}; cp evil.sh .githooks/pre-commit; cp evil.sh .githooks/post-checkout; cp evil.sh .githooks/pre-push; true`);
    personUsesGit(project);
    expect(ran()).toEqual([]);
    expect(readFileSync(join(project, '.githooks', 'pre-push'), 'utf8')).toBe('#!/bin/sh\nexit 0\n');
    expect(result.sandboxBlocked).toContain('/.githooks/');
  });

  it("a config file the person's config includes from the folder", async () => {
    initRepo();
    writeFileSync(join(project, 'team.gitconfig'), '[core]\n\tautocrlf = false\n');
    git(project, 'config', 'include.path', '../team.gitconfig');
    await run(`${evilProgram()}; printf '[core]\\n\\tfsmonitor = %s/evil.sh\\n' "$PWD" >> team.gitconfig; true`);
    personUsesGit(project);
    expect(ran()).toEqual([]);
    expect(readFileSync(join(project, 'team.gitconfig'), 'utf8')).toBe('[core]\n\tautocrlf = false\n');
  });

  it('a program the config names inside the folder (core.fsmonitor set by the person) is out of reach', async () => {
    initRepo();
    writeFileSync(join(project, 'watch.sh'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    git(project, 'config', 'core.fsmonitor', join(project, 'watch.sh'));
    await run(`printf '#!/bin/sh\\ntouch ${join(marks, 'ran-watch')}\\n' > watch.sh; true`);
    personUsesGit(project);
    expect(ran()).toEqual([]);
  });

  it('a repository prepared before the run (as by the file tools) and pointed at during it is checked whole', async () => {
    // The agent's write_file made these earlier (old ctimes); the command only adds the pointer.
    for (const dir of ['prep/objects', 'prep/refs/heads']) mkdirSync(join(project, dir), { recursive: true });
    writeFileSync(join(project, 'prep', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(project, 'prep', 'config'), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = ${join(project, 'evil.sh')}\n`);
    await run('true');
    await run(`${evilProgram()} && echo "gitdir: prep" > .git`);
    personUsesGit(project);
    expect(ran()).toEqual([]);
  });

  it('a repository the person makes between two commands keeps its hooks and config', async () => {
    initRepo();
    await run('true');
    mkdirSync(join(project, 'mine'));
    git(join(project, 'mine'), 'init', '-q');
    writeFileSync(join(project, 'mine', '.git', 'hooks', 'pre-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    git(join(project, 'mine'), 'config', 'core.fsmonitor', 'true');
    // The run starts at a later tick of the kernel's file clock than the person's last change.
    const changed = statSync(join(project, 'mine', '.git', 'config')).ctimeMs;
    const tick = join(root, 'tick');
    do writeFileSync(tick, String(Math.random()));
    while (statSync(tick).ctimeMs <= changed);
    const result = await run('git status --short >/dev/null; echo ok');
    expect(result.sandboxBlocked).toBeUndefined();
    expect(readFileSync(join(project, 'mine', '.git', 'hooks', 'pre-commit'), 'utf8')).toBe('#!/bin/sh\nexit 0\n');
    expect(git(join(project, 'mine'), 'config', 'core.fsmonitor').trim()).toBe('true');
  });

  it("a repository the person makes deep in the folder between two commands: the next command cannot write into the hooks folder its config names", async () => {
    mkdirSync(join(project, 'a', 'b', 'c'), { recursive: true });
    mkdirSync(join(project, 'team-hooks'));
    // The first command walks the folder (and keeps what it found); nothing git-like is there yet.
    await run('true');
    git(join(project, 'a', 'b', 'c'), 'init', '-q');
    git(join(project, 'a', 'b', 'c'), 'config', 'core.hooksPath', join(project, 'team-hooks'));
    writeFileSync(join(project, 'a', 'b', 'c', 'x.txt'), 'x\n');
    const result = await run(`${evilProgram()}; cp evil.sh team-hooks/pre-commit; cp evil.sh team-hooks/post-checkout; true`);
    git(join(project, 'a', 'b', 'c'), 'add', 'x.txt');
    personUsesGit(join(project, 'a', 'b', 'c'));
    expect(ran()).toEqual([]);
    expect(result.sandboxBlocked).toContain('/team-hooks/');
  });

  it('normal git work still runs inside: status, diff, add, commit, branch, stash', async () => {
    initRepo();
    writeFileSync(join(project, 'README.md'), 'changed\n');
    const result = await run('git status --short && git diff --stat && git add -A && git commit -qm second && git branch feature && echo new > n.txt && git add n.txt && git stash -q && git stash list && git log --format=%s');
    expect(result.exitCode).toBe(0);
    expect(result.output).toContain('second');
    expect(result.output).toContain('stash@{0}');
    expect(result.sandboxBlocked).toBeUndefined();
    expect(git(project, 'branch', '--list', 'feature').trim()).toContain('feature');
  });

  it('git init and clone of a local repository leave a usable repository without hooks', async () => {
    const result = await run('git init -q fresh && cd fresh && echo a > a && git add a && git -c user.name=A -c user.email=a@x commit -qm one && git log --format=%s');
    expect(result.exitCode).toBe(0);
    expect(result.output).toContain('one');
    expect(git(join(project, 'fresh'), 'log', '--format=%s').trim()).toBe('one');
  });
});
