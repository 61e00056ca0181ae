// A command's write layer reaches the folder only after it was checked whole (SPEC §7, "One
// containment for everything"), judged by effect in the real sandbox: while the layer is
// applied the person's own `git status` runs in a loop and the marker program the attack
// pointed git at must never run; a file kind the folder must not get is not applied; a
// layer that cannot be applied whole (a full disk) leaves nothing of it in the folder and
// the result says blocked; what one command wrote is the command's when a later one makes
// it git-shaped, whatever its age.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalShellBackend } from '../backends/filesystem/local-shell';
import { createSandbox, detectSandbox } from './index';
import { writeLayerTools } from './write-layer';

const available = (await detectSandbox()).available && (await writeLayerTools()) !== undefined;

let root: string;
let home: string;
let project: string;
let marks: string;
let backend: LocalShellBackend;
const mounted: string[] = [];
const watchers: ChildProcess[] = [];

function personEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: personEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
}

function personUsesGit(cwd: string): void {
  for (const args of [['status'], ['diff'], ['commit', '--allow-empty', '-qm', 'probe']]) {
    try {
      git(cwd, ...args);
    } catch {
      // Only the marker counts.
    }
  }
}


/** A program git runs through the shell, that names only the marker (outside the folder, never written by the command). */
function inlineEvil(): string {
  return `touch ${join(marks, 'ran-inline')}; false`;
}

function ran(): string[] {
  return existsSync(marks) ? readdirSync(marks) : [];
}

async function useFolder(dir: string): Promise<void> {
  project = dir;
  writeFileSync(join(project, 'README.md'), 'hello\n');
  const sandbox = await createSandbox({ projectDir: project, dataDir: join(root, 'data') });
  if (!sandbox) throw new Error('no sandbox');
  backend = new LocalShellBackend({ rootDir: project, env: { HOME: home }, sandbox });
}

beforeEach(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-layercheck-')));
  home = join(root, 'home');
  marks = join(root, 'marks');
  for (const dir of [home, marks, join(root, 'data'), join(root, 'project')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = P\n\temail = p@x\n[init]\n\tdefaultBranch = main\n');
  await useFolder(join(root, 'project'));
});

afterEach(async () => {
  for (const w of watchers.splice(0)) if (w.exitCode === null) w.kill('SIGKILL');
  for (const dir of mounted.splice(0)) {
    try {
      execFileSync('umount', ['-l', dir]);
    } catch {
      // Already gone.
    }
  }
  rmSync(root, { recursive: true, force: true });
});

const run = (command: string) => backend.execute(command, { timeoutS: 120 });

function initRepo(dir = project): void {
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'first');
}

/**
 * The person's `git status` in `cwd`, over and over, outside the sandbox, until stopped;
 * resolves once it has run at least once, so it is known to be running.
 */
async function personKeepsRunningGitStatus(cwd: string): Promise<() => Promise<number>> {
  const count = join(root, 'status-count');
  const stop = join(root, 'stop-watching');
  const watcher = spawn('/bin/sh', ['-c', 'while [ ! -e "$2" ]; do git -C "$1" status >/dev/null 2>&1; echo . >> "$3"; done', 'sh', cwd, stop, count], {
    env: personEnv(),
    stdio: 'ignore',
  });
  watchers.push(watcher);
  const exited = new Promise<void>((resolve) => watcher.once('exit', () => resolve()));
  while (!existsSync(count)) await new Promise((resolve) => setTimeout(resolve, 5));
  return async () => {
    writeFileSync(stop, '');
    await exited;
    return readFileSync(count, 'utf8').length;
  };
}

/** Shell text that writes `n` files into `dir`, enough that applying them takes a while. */
function manyFiles(dir: string, n = MANY): string {
  return `mkdir -p ${dir} && (cd ${dir} && seq 1 ${n} | sed 's/^/f/' | xargs touch)`;
}
const MANY = 4_000;

/** Polls until the kernel's file clock has moved past `path`'s last change. */
function afterTickOf(path: string): void {
  const changed = statSync(path).ctimeMs;
  const tick = join(root, 'tick');
  do writeFileSync(tick, String(Math.random()));
  while (statSync(tick).ctimeMs <= changed);
}

/** A tmpfs of `size` at a new folder (as root only): a disk the command can fill. */
function smallDisk(size: string): string | undefined {
  const dir = join(root, 'small');
  mkdirSync(dir);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  mounted.push(dir);
  return dir;
}

const canMount = (() => {
  try {
    return process.getuid?.() === 0;
  } catch {
    return false;
  }
})();

describe.skipIf(!available)('a write layer is checked whole before any of it is applied', () => {
  it('a commondir redirect among thousands of files is never live, not even while they are applied', async () => {
    initRepo();
    const stopWatching = await personKeepsRunningGitStatus(project);
    const result = await run(
      // The person's git status may leave an index.lock that is gone before cp reads it.
      `cp -r .git ev 2>/dev/null; git --git-dir=ev config core.fsmonitor '${inlineEvil()}' && echo ../ev > .git/commondir && ${manyFiles('many')}`,
    );
    const statuses = await stopWatching();
    expect(statuses).toBeGreaterThan(0);
    personUsesGit(project);
    expect(ran()).toEqual([]);
    expect(existsSync(join(project, '.git', 'commondir'))).toBe(false);
    expect(result.sandboxBlocked).toContain('/.git/commondir');
    // The rest of the layer is applied.
    expect(readdirSync(join(project, 'many'))).toHaveLength(MANY);
  });

  it('a .git file redirect among thousands of files is never live', async () => {
    const stopWatching = await personKeepsRunningGitStatus(project);
    const result = await run(`git init -q ev && git -C ev config core.fsmonitor '${inlineEvil()}' && echo "gitdir: ev/.git" > .git && ${manyFiles('many')}`);
    await stopWatching();
    personUsesGit(project);
    expect(ran()).toEqual([]);
    expect(result.sandboxBlocked).toBeDefined();
  });

  it('a folder written by one command and made a repository by a later one is checked, whatever its age', async () => {
    await run(
      `mkdir -p x/refs/heads && echo 'ref: refs/heads/main' > x/HEAD && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = %s\\n\\tfsmonitor = %s\\n' "$PWD/x" '${inlineEvil()}' > x/config`,
    );
    afterTickOf(join(project, 'x', 'config'));
    await run('mkdir x/objects');
    personUsesGit(join(project, 'x'));
    expect(ran()).toEqual([]);
  });

  it('a .git file left empty by one command and a repository completed by the next', async () => {
    await run(
      `mkdir -p sub ev/refs/heads && echo 'ref: refs/heads/main' > ev/HEAD && printf '[core]\\n\\tbare = false\\n\\tfsmonitor = %s\\n' '${inlineEvil()}' > ev/config && : > sub/.git`,
    );
    afterTickOf(join(project, 'ev', 'config'));
    await run('mkdir ev/objects && echo "gitdir: ../ev" > sub/.git.new && mv sub/.git.new sub/.git');
    personUsesGit(join(project, 'sub'));
    expect(ran()).toEqual([]);
  });

  it('two commands on one folder at once: each layer is checked against the folder the other left', async () => {
    // Each half is harmless alone; together they make a repository whose config runs a program.
    // Another window (or process) on the same folder, with a sandbox of its own.
    const sandbox = await createSandbox({ projectDir: project, dataDir: join(root, 'data') });
    const other = new LocalShellBackend({ rootDir: project, env: { HOME: home }, sandbox: sandbox! });
    const config = `printf '[core]\\n\\tbare = false\\n\\tworktree = %s\\n\\tfsmonitor = %s\\n' "$PWD/ev" '${inlineEvil()}' > ev/config`;
    for (let round = 0; round < 3; round++) {
      rmSync(join(project, 'ev'), { recursive: true, force: true });
      // Both end at once: their layers are checked and applied side by side.
      const go = join(root, `go-${round}`);
      const wait = `while [ ! -e ${go} ]; do sleep 0.01; done`;
      const both = Promise.all([
        run(`mkdir -p ev/refs/heads && echo 'ref: refs/heads/main' > ev/HEAD && ${config} && ${wait}`),
        other.execute(`mkdir -p ev/objects/info && ${wait}`, { timeoutS: 60 }),
      ]);
      await new Promise((resolve) => setTimeout(resolve, 500));
      writeFileSync(go, '');
      await both;
      personUsesGit(join(project, 'ev'));
      expect(ran()).toEqual([]);
    }
  });

  it('setuid and setgid bits, fifos and sockets are not applied, and are named', async () => {
    // The seccomp filter refuses the set-id chmod itself where it applies (seccomp.ts); the
    // layer's check names a set-id file where a bit got through all the same.
    const results = [
      await run('echo x > suid; chmod 4755 suid; mkfifo pipe; echo plain > ok.txt'),
      await run(`echo y > sgid; chmod 2755 sgid; python3 -c "import socket; socket.socket(socket.AF_UNIX).bind('sock')"; true`),
    ];
    for (const name of ['suid', 'sgid']) {
      const st = existsSync(join(project, name)) ? lstatSync(join(project, name)) : undefined;
      expect(st === undefined || (st.mode & 0o6000) === 0).toBe(true);
    }
    expect(existsSync(join(project, 'pipe'))).toBe(false);
    expect(results[0]!.sandboxBlocked).toContain('/pipe');
    expect(existsSync(join(project, 'sock'))).toBe(false);
    expect(results[1]!.sandboxBlocked).toContain('/sock');
    expect(readFileSync(join(project, 'ok.txt'), 'utf8')).toBe('plain\n');
  });
});

describe.skipIf(!available)('protected paths in a write layer', () => {
  it('a link the path of a protected folder would lead through is not applied', async () => {
    const result = await run('mkdir -p elsewhere/skills/x && echo evil > elsewhere/skills/x/SKILL.md && ln -s elsewhere .agents && echo ok > ok.txt');
    expect(() => lstatSync(join(project, '.agents'))).toThrow();
    expect(result.sandboxBlocked).toContain('/.agents');
    expect(readFileSync(join(project, 'ok.txt'), 'utf8')).toBe('ok\n');
  });
});

describe.skipIf(!available || !canMount)('a layer that cannot be applied whole leaves nothing applied', () => {
  it('a full disk midway: nothing of the layer is in the folder, and the result says blocked', async () => {
    const disk = smallDisk('2m');
    if (!disk) return;
    await useFolder(disk);
    const result = await run('echo first > a-first.txt && head -c 1500000 /dev/zero > b-big && head -c 1500000 /dev/zero > c-big && echo last > d-last.txt');
    expect(readdirSync(disk).sort()).toEqual(['README.md']);
    expect(result.sandboxBlocked).toContain("none of the command's writes was applied");
  });

  it('a sparse file that would fill the disk when copied: nothing applied, blocked', async () => {
    const disk = smallDisk('2m');
    if (!disk) return;
    await useFolder(disk);
    const result = await run('echo small > a.txt && truncate -s 1G sparse.bin');
    expect(readdirSync(disk).sort()).toEqual(['README.md']);
    expect(result.sandboxBlocked).toContain("none of the command's writes was applied");
  });
});
