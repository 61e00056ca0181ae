// The walk for repositories with a cache (RepositoryWalkCache): a folder whose entries did
// not change is not read again, and the result is always what a walk without a cache finds.
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { enforceGitSurface, RepositoryWalkCache, snapshotGitSurface, type GitSurface } from './surface';

let root: string;
let home: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-surface-')));
  home = join(root, 'home');
  mkdirSync(home);
  root = join(root, 'project');
  mkdirSync(root);
});

afterEach(() => {
  rmSync(join(root, '..'), { recursive: true, force: true });
});

/** A git folder as git makes one (enough for the walk: HEAD, objects/, refs/, hooks/, config). */
function gitFolder(dir: string, config = '[core]\n\tbare = false\n'): void {
  mkdirSync(join(dir, 'objects'), { recursive: true });
  mkdirSync(join(dir, 'refs', 'heads'), { recursive: true });
  mkdirSync(join(dir, 'hooks'), { recursive: true });
  writeFileSync(join(dir, 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(dir, 'config'), config);
}

/**
 * Waits (polling the file system, not a timer) until a change made now gets a later
 * timestamp than everything made so far: the kernel stamps with a coarse clock, and the
 * cache rightly cannot see two changes in one tick apart.
 */
function nextTick(): void {
  const probe = join(root, '..', 'tick');
  writeFileSync(probe, '');
  const made = lstatSync(probe).ctimeMs;
  for (let i = 0; i < 1e7; i++) {
    utimesSync(probe, new Date(), new Date());
    if (lstatSync(probe).ctimeMs > made) return;
  }
  throw new Error('the clock did not move');
}

function summary(surface: GitSurface): { gitDirs: string[]; pointers: string[]; entries: string[] } {
  return {
    gitDirs: [...surface.gitDirs.keys()].sort(),
    pointers: [...surface.pointers.keys()].sort(),
    entries: [...surface.entries.keys()].sort(),
  };
}

/** A clock far enough ahead that every folder counts as settled: only a folder's own stat can make it be read again. */
const trusting = (): RepositoryWalkCache => new RepositoryWalkCache(() => Date.now() + 3_600_000);

describe('walking for repositories with a cache', () => {
  it('does not read again a folder whose entries did not change, and reads one that did', async () => {
    mkdirSync(join(root, 'a', 'b', 'c'), { recursive: true });
    mkdirSync(join(root, 'x', 'y'), { recursive: true });
    const cache = trusting();
    await snapshotGitSurface(root, home, cache);
    const first = cache.last!.folders;
    nextTick();
    writeFileSync(join(root, 'a', 'b', 'c', 'file.txt'), 'x');
    mkdirSync(join(root, 'x', 'y', 'new'));
    await snapshotGitSurface(root, home, cache);
    const second = cache.last!.folders;
    expect(second.get(join(root, 'a', 'b'))).toBe(first.get(join(root, 'a', 'b')));
    expect(second.get(join(root, 'a', 'b', 'c'))).not.toBe(first.get(join(root, 'a', 'b', 'c')));
    expect(second.get(join(root, 'x', 'y'))?.subfolders).toEqual([join(root, 'x', 'y', 'new')]);
    expect(second.has(join(root, 'x', 'y', 'new'))).toBe(true);
  });

  it('reads again a folder changed just before the last walk started (the same clock tick may hide a later change)', async () => {
    mkdirSync(join(root, 'a'));
    const cache = new RepositoryWalkCache();
    await snapshotGitSurface(root, home, cache);
    const first = cache.last!.folders;
    await snapshotGitSurface(root, home, cache);
    expect(cache.last!.folders.get(join(root, 'a'))).not.toBe(first.get(join(root, 'a')));
  });

  it('reads a surface file again only when it changed: an unchanged hook is kept as read, one rewritten at the same size with its times set back is read anew', async () => {
    gitFolder(join(root, '.git'), '[core]\n\thooksPath = .githooks\n');
    mkdirSync(join(root, '.githooks'));
    const hook = join(root, '.githooks', 'pre-commit');
    const config = join(root, '.git', 'config');
    writeFileSync(hook, '#!/bin/sh\necho one\n');
    const cache = trusting();
    const first = await snapshotGitSurface(root, home, cache);
    const second = await snapshotGitSurface(root, home, cache);
    // Not read again: the very bytes the first walk read.
    expect(second.entries.get(hook)?.content).toBe(first.entries.get(hook)?.content);
    expect(second.entries.get(config)?.content).toBe(first.entries.get(config)?.content);
    nextTick();
    const { atime, mtime } = lstatSync(hook);
    writeFileSync(hook, '#!/bin/sh\necho two\n');
    utimesSync(hook, atime, mtime);
    writeFileSync(config, '[core]\n\thooksPath = .githooks\n\tfsmonitor = ./monitor\n');
    const third = await snapshotGitSurface(root, home, cache);
    expect(third.entries.get(hook)?.content?.toString()).toBe('#!/bin/sh\necho two\n');
    expect(third.entries.get(config)?.content?.toString()).toContain('fsmonitor');
  });

  it('reads a surface file again when it changed just before the last walk started (the same clock tick may hide a later change)', async () => {
    gitFolder(join(root, '.git'));
    const cache = new RepositoryWalkCache();
    const first = await snapshotGitSurface(root, home, cache);
    const second = await snapshotGitSurface(root, home, cache);
    const config = join(root, '.git', 'config');
    expect(second.entries.get(config)?.content).not.toBe(first.entries.get(config)?.content);
    expect(second.entries.get(config)?.content).toEqual(first.entries.get(config)?.content);
  });

  it('finds a repository made deep in a folder it had cached, and a hooks folder its config names elsewhere', async () => {
    mkdirSync(join(root, 'deep', 'er', 'still'), { recursive: true });
    mkdirSync(join(root, 'shared-hooks'));
    const cache = trusting();
    expect(summary(await snapshotGitSurface(root, home, cache)).gitDirs).toEqual([]);
    nextTick();
    gitFolder(join(root, 'deep', 'er', 'still', '.git'), '[core]\n\thooksPath = ../../../shared-hooks\n');
    writeFileSync(join(root, 'shared-hooks', 'pre-commit'), '#!/bin/sh\n');
    const surface = await snapshotGitSurface(root, home, cache);
    expect(summary(surface).gitDirs).toEqual([join(root, 'deep', 'er', 'still', '.git')]);
    expect(surface.entries.get(join(root, 'shared-hooks', 'pre-commit'))?.role).toBe('hook');
  });

  it('finds what a walk without a cache finds, after any sequence of changes (generated)', async () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const folders = [root];
    const cache = trusting();
    for (let round = 0; round < 12; round++) {
      nextTick();
      for (let op = 0; op < 6; op++) {
        const live = folders.filter((f) => {
          try {
            return lstatSync(f).isDirectory();
          } catch {
            return false;
          }
        });
        const at = live[random(live.length)] ?? root;
        const name = `n${round}-${op}`;
        switch (random(7)) {
          case 0:
          case 1:
            mkdirSync(join(at, name));
            folders.push(join(at, name));
            break;
          case 2:
            gitFolder(join(at, name, '.git'));
            folders.push(join(at, name));
            break;
          case 3:
            // A `.git` file pointing at a git-shaped folder elsewhere.
            gitFolder(join(root, `store-${name}`));
            mkdirSync(join(at, name));
            writeFileSync(join(at, name, '.git'), `gitdir: ${join(root, `store-${name}`)}\n`);
            folders.push(join(at, name));
            break;
          case 4:
            if (at !== root) rmSync(at, { recursive: true, force: true });
            break;
          case 5:
            if (at !== root) {
              renameSync(at, `${at}-moved`);
              folders.push(`${at}-moved`);
            }
            break;
          case 6:
            if (at !== root) {
              // A folder replaced by a link to another one: never followed.
              rmSync(at, { recursive: true, force: true });
              symlinkSync(root, at);
            }
            break;
        }
      }
      const cached = await snapshotGitSurface(root, home, cache);
      const fresh = await snapshotGitSurface(root, home);
      expect(summary(cached), `round ${round}`).toEqual(summary(fresh));
      expect(cached.entries, `round ${round}`).toEqual(fresh.entries);
    }
  });
});

describe('what a run made that leads out of the folder', () => {
  it('a new `.git` file, a `.git` link or a new repository\'s commondir leading out of the folder is removed, one leading inside is kept', async () => {
    // A repository outside the folder whose config runs a program (a server's own temp folder, say).
    const outside = join(root, '..', 'outside-repo');
    gitFolder(outside, '[core]\n\tfsmonitor = /bin/evil\n');
    const before = await snapshotGitSurface(root, home);
    mkdirSync(join(root, 'a'));
    writeFileSync(join(root, 'a', '.git'), `gitdir: ${outside}\n`);
    mkdirSync(join(root, 'b'));
    symlinkSync(outside, join(root, 'b', '.git'));
    gitFolder(join(root, 'c', '.git'));
    writeFileSync(join(root, 'c', '.git', 'commondir'), `${outside}\n`);
    gitFolder(join(root, 'inside'));
    mkdirSync(join(root, 'd'));
    writeFileSync(join(root, 'd', '.git'), 'gitdir: ../inside\n');
    const { items } = await enforceGitSurface(root, before, { home, untouchable: [] });
    const gone = (path: string): boolean => {
      try {
        lstatSync(path);
        return false;
      } catch {
        return true;
      }
    };
    expect([join(root, 'a', '.git'), join(root, 'b', '.git'), join(root, 'c', '.git', 'commondir')].filter((p) => !gone(p))).toEqual([]);
    expect(gone(join(root, 'd', '.git'))).toBe(false);
    expect(items.map((i) => ('path' in i ? i.path : '')).sort()).toEqual([join(root, 'a', '.git'), join(root, 'b', '.git'), join(root, 'c', '.git', 'commondir')].sort());
  });
});

describe("a linked worktree's surface is its repository's config's", () => {
  const git = (cwd: string, ...args: string[]): void => {
    execFileSync('git', args, { cwd, stdio: 'ignore', env: { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'P', GIT_AUTHOR_EMAIL: 'p@x', GIT_COMMITTER_NAME: 'P', GIT_COMMITTER_EMAIL: 'p@x' } });
  };
  const husky = (repo: string): void => {
    mkdirSync(join(repo, '.husky'), { recursive: true });
    writeFileSync(join(repo, '.husky', 'pre-commit'), '#!/bin/sh\n', { mode: 0o755 });
    git(repo, 'init', '-q');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'first');
    git(repo, 'config', 'core.hooksPath', '.husky');
  };
  const hooksOf = (surface: GitSurface): string[] => [...surface.entries].filter(([p, e]) => e.role === 'hook' && !p.includes('/.git/')).map(([p]) => p).sort();

  it('a worktree whose repository lies outside the folder: the hooks path in the worktree, nothing outside recorded', async () => {
    const repo = join(root, '..', 'repository');
    mkdirSync(repo);
    husky(repo);
    git(repo, 'worktree', 'add', '-q', join(root, 'w'), '-b', 'w');
    const surface = await snapshotGitSurface(join(root, 'w'), home);
    expect(hooksOf(surface)).toEqual([join(root, 'w', '.husky', 'pre-commit')]);
    expect([...surface.entries.keys()].every((p) => p.startsWith(`${root}/`))).toBe(true);
    expect([...surface.gitDirs.keys()]).toEqual([]);
  });

  it('a worktree inside the folder of its repository: its own hooks path folder too, whatever the walk met first', async () => {
    husky(root);
    git(root, 'worktree', 'add', '-q', join(root, 'nested'), '-b', 'nested');
    const surface = await snapshotGitSurface(root, home);
    expect(hooksOf(surface)).toEqual([join(root, '.husky', 'pre-commit'), join(root, 'nested', '.husky', 'pre-commit')]);
  });
});
