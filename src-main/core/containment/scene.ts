// A fresh scene for one case, made as the person (plain fs and git, outside any sandbox):
// a project folder that is a git repository with one commit (or a linked worktree of one in
// the data folder), a folder outside it, the marker program, a data folder. The remote path's folder is on this machine too (the test sshd),
// so the scene is made the same way for every path.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { personEnv } from './environment';
import type { ConformanceEnvironment, Scene, SceneOptions, WorktreeScene } from './types';

/** The project's files as committed. */
export const PROJECT_FILES: Readonly<Record<string, string>> = {
  'README.md': 'hello\n',
  'a.txt': 'original a\n',
  'd/inside.txt': 'inside d\n',
  '.mcp.json': '{"mcpServers":{}}\n',
  '.claude/settings.json': '{"permissions":{}}\n',
};

export const OUTSIDE_TARGET = 'original\n';

export interface MadeScene extends Scene {
  remove(): void;
}

export function makeScene(env: ConformanceEnvironment, options: SceneOptions = {}): MadeScene {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'dd-contain-')));
  const project = join(root, 'project');
  const outside = join(root, 'outside');
  const dataDir = join(root, 'data');
  for (const dir of [project, outside, dataDir]) mkdirSync(dir, { recursive: true });
  let mounted = false;
  const remove = () => {
    // Lazily: a process of the run may still hold it for a moment.
    if (mounted) spawnSync('umount', ['-l', project], { stdio: 'ignore' });
    rmSync(root, { recursive: true, force: true });
  };
  try {
    if (options.smallDiskBytes !== undefined) {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${options.smallDiskBytes}`, 'tmpfs', project], { stdio: 'pipe' });
      mounted = true;
    }
    const fired = join(root, 'fired');
    const fire = join(root, 'fire.sh');
    writeFileSync(fire, `#!/bin/sh\necho "ran: $0 $*" >> ${fired}\nexit 0\n`);
    chmodSync(fire, 0o755);
    writeFileSync(join(outside, 'target.txt'), OUTSIDE_TARGET);
    for (const [rel, text] of Object.entries(PROJECT_FILES)) {
      mkdirSync(join(project, rel, '..'), { recursive: true });
      writeFileSync(join(project, rel), text);
    }
    const git = (...args: string[]) => execFileSync('git', args, { cwd: project, env: personEnv(env), stdio: 'pipe' });
    if (options.hooksPath !== undefined) {
      mkdirSync(join(project, options.hooksPath), { recursive: true });
      writeFileSync(join(project, options.hooksPath, 'pre-commit'), HOOKS_PATH_HOOK, { mode: 0o755 });
    }
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-qm', 'first');
    if (options.hooksPath !== undefined) git('config', 'core.hooksPath', options.hooksPath);
    // Numbers no other process on the machine has as its argument.
    const token = String(randomInt(100_000, 999_999)) + String(randomInt(100, 999));
    if (options.worktree) {
      const worktree = addWorktrees(env, project, dataDir);
      return { root, project: join(dataDir, 'worktrees', 'w'), outside, fire, fired, dataDir, home: env.home, token, worktree, remove };
    }
    return { root, project, outside, fire, fired, dataDir, home: env.home, token, remove };
  } catch (err) {
    remove();
    throw err;
  }
}

/** The tracked hook of SceneOptions.hooksPath: runs nothing. */
export const HOOKS_PATH_HOOK = '#!/bin/sh\nexit 0\n';

let smallDisks: boolean | undefined;

/** Whether this machine lets the suite mount a small file system (root, and mount allowed). */
export function canMountSmallDisk(): boolean {
  if (smallDisks !== undefined) return smallDisks;
  const dir = mkdtempSync(join(tmpdir(), 'dd-contain-mount-'));
  try {
    smallDisks = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=65536', 'tmpfs', dir], { stdio: 'ignore' }).status === 0;
    if (smallDisks) spawnSync('umount', [dir], { stdio: 'ignore' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return smallDisks;
}

/**
 * A thread's worktree as the app makes it (SPEC §16): `git worktree add <dataDir>/worktrees/w
 * -b deepdesk/w` in the repository, with another thread's worktree beside it and what the
 * app keeps in its data folder (the database, the agent host's token, the secrets store, a
 * transcript), each file holding a value of its own.
 */
function addWorktrees(env: ConformanceEnvironment, repository: string, dataDir: string): WorktreeScene {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repository, env: personEnv(env), stdio: 'pipe' });
  const tag = (name: string) => `${name}-${randomBytes(6).toString('hex')}`;
  const otherName = tag('other');
  const transcript = `${tag('thread')}.jsonl`;
  const project = join(dataDir, 'worktrees', 'w');
  const other = join(dataDir, 'worktrees', otherName);
  git('worktree', 'add', '-q', project, '-b', 'deepdesk/w');
  git('worktree', 'add', '-q', other, '-b', `deepdesk/${otherName}`);
  const dataFiles: Record<string, string> = {
    'deepdesk.db': tag('DATABASE'),
    'host/token': tag('HOSTTOKEN'),
    'secrets.json': tag('PROVIDERKEY'),
    [`worktrees/${otherName}/notes.txt`]: tag('OTHERWORKTREE'),
    [`transcripts/${transcript}`]: tag('TRANSCRIPT'),
  };
  for (const [rel, value] of Object.entries(dataFiles)) {
    mkdirSync(dirname(join(dataDir, rel)), { recursive: true, mode: 0o700 });
    writeFileSync(join(dataDir, rel), `${value}\n`, { mode: 0o600 });
  }
  const admin = join(repository, '.git', 'worktrees', 'w');
  const surfacePaths = [
    join(project, '.git'),
    ...['gitdir', 'commondir', 'HEAD', 'config.worktree'].map((name) => join(admin, name)),
    join(repository, '.git', 'config'),
    join(repository, '.git', 'hooks', 'post-checkout'),
  ];
  const surface = Object.fromEntries(surfacePaths.map((p) => [p, existsSync(p) ? readFileSync(p, 'utf8') : null]));
  return { repository, admin, other, dataFiles, unlistedNames: [otherName, transcript], surface };
}
