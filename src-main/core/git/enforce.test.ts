// The after-run check where no write layer is available (enforceGitSurface): what is
// git-shaped and not as it was before the run is undone, whatever its files' age, and what
// could not be undone is said so ("could not undo …"), never reported as done.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { enforceGitSurface, snapshotGitSurface } from './surface';

let base: string;
let home: string;
let project: string;
const cleanups: Array<() => void> = [];

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-enforce-')));
  home = join(base, 'home');
  project = join(base, 'project');
  mkdirSync(home);
  mkdirSync(project);
});

afterEach(() => {
  for (const undo of cleanups.splice(0).reverse()) {
    try {
      undo();
    } catch {
      // Best effort.
    }
  }
  rmSync(base, { recursive: true, force: true });
});

const FSMONITOR = '[core]\n\tbare = false\n\tfsmonitor = touch /tmp/never; false\n';

/** A git folder as git makes one, without `objects/` unless asked. */
function gitFolder(dir: string, config: string, withObjects = true): void {
  mkdirSync(join(dir, 'refs', 'heads'), { recursive: true });
  mkdirSync(join(dir, 'hooks'), { recursive: true });
  if (withObjects) mkdirSync(join(dir, 'objects'));
  writeFileSync(join(dir, 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(dir, 'config'), config);
}

/** Polls until the kernel's file clock has moved past everything made so far: what came before is older than the run (age must decide nothing). */
function nextTick(): number {
  const probe = join(base, 'tick');
  writeFileSync(probe, '');
  const made = lstatSync(probe).ctimeMs;
  for (let i = 0; i < 1e7; i++) {
    utimesSync(probe, new Date(), new Date());
    const now = lstatSync(probe).ctimeMs;
    if (now > made) return now;
  }
  throw new Error('the clock did not move');
}

function immutable(path: string): boolean {
  try {
    execFileSync('chattr', ['+i', path], { stdio: 'ignore' });
  } catch {
    return false;
  }
  cleanups.push(() => execFileSync('chattr', ['-i', path], { stdio: 'ignore' }));
  return true;
}

describe('the after-run check without a write layer', () => {
  it('a folder whose files are older than the run, made a repository during it, is checked whole', async () => {
    // Written by an earlier command (old ctimes), not yet a repository: no objects/.
    gitFolder(join(project, 'x'), FSMONITOR, false);
    const before = await snapshotGitSurface(project, home);
    nextTick();
    mkdirSync(join(project, 'x', 'objects'));
    const { items } = await enforceGitSurface(project, before, { home, untouchable: [] });
    const config = join(project, 'x', 'config');
    expect(existsSync(config) ? readFileSync(config, 'utf8') : '').not.toContain('fsmonitor');
    expect(items.map((i) => ('path' in i ? i.path : ''))).toContain(config);
  });

  it('a git folder moved into place as .git during the run is checked whole, whatever its files’ age', async () => {
    mkdirSync(join(project, 'sub'));
    gitFolder(join(project, 'sub', 'prepared'), FSMONITOR, true);
    writeFileSync(join(project, 'sub', 'prepared', 'hooks', 'pre-commit'), '#!/bin/sh\n', { mode: 0o755 });
    // Not a repository git finds there, yet it is walked as one because it is git-shaped: so move its shape out first.
    rmSync(join(project, 'sub', 'prepared', 'objects'), { recursive: true });
    const before = await snapshotGitSurface(project, home);
    nextTick();
    execFileSync('mv', [join(project, 'sub', 'prepared'), join(project, 'sub', '.git')]);
    mkdirSync(join(project, 'sub', '.git', 'objects'));
    await enforceGitSurface(project, before, { home, untouchable: [] });
    expect(existsSync(join(project, 'sub', '.git', 'hooks', 'pre-commit'))).toBe(false);
    const config = join(project, 'sub', '.git', 'config');
    expect(existsSync(config) ? readFileSync(config, 'utf8') : '').not.toContain('fsmonitor');
  });

  it('notes refs are put back as they were (SPEC §24): one rewritten, one made loose, one made in packed-refs; packing the rest changes nothing', async () => {
    const git = (...args: string[]): string => execFileSync('git', args, { cwd: project, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'P', GIT_AUTHOR_EMAIL: 'p@x', GIT_COMMITTER_NAME: 'P', GIT_COMMITTER_EMAIL: 'p@x' } });
    git('init', '-q', '-b', 'main');
    git('commit', '-q', '--allow-empty', '-m', 'first');
    git('notes', '--ref=refs/notes/ai', 'add', '-m', 'deepdesk', 'HEAD');
    const before = await snapshotGitSurface(project, home);
    const notes = (): string => git('for-each-ref', '--format=%(refname) %(objectname)', 'refs/notes');
    const was = notes();
    git('notes', '--ref=refs/notes/ai', 'add', '-f', '-m', 'forged', 'HEAD');
    git('notes', '--ref=refs/notes/loose', 'add', '-m', 'forged', 'HEAD');
    git('pack-refs', '--all');
    git('notes', '--ref=refs/notes/packed', 'add', '-m', 'forged', 'HEAD');
    git('pack-refs', '--all');
    const { items } = await enforceGitSurface(project, before, { home, untouchable: [] });
    expect(notes()).toBe(was);
    expect(git('notes', '--ref=refs/notes/ai', 'show', 'HEAD')).toBe('deepdesk\n');
    expect(git('rev-parse', 'main').trim()).toMatch(/^[0-9a-f]{40}$/);
    expect(items).toEqual([{ kind: 'write', path: join(project, '.git', 'refs', 'notes'), why: 'a protected path' }]);
    // Packing them as they are is no change.
    git('pack-refs', '--all');
    expect((await enforceGitSurface(project, before, { home, untouchable: [] })).items).toEqual([]);
    // `refs/notes` made a link to notes elsewhere: the link goes, nothing is written there, the notes are as they were.
    const elsewhere = join(base, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'ai'), git('rev-parse', 'HEAD'));
    rmSync(join(project, '.git', 'refs', 'notes'), { recursive: true, force: true });
    symlinkSync(elsewhere, join(project, '.git', 'refs', 'notes'));
    await enforceGitSurface(project, before, { home, untouchable: [] });
    expect(notes()).toBe(was);
    expect(lstatSync(join(project, '.git', 'refs', 'notes')).isDirectory()).toBe(true);
    expect(readFileSync(join(elsewhere, 'ai'), 'utf8')).toBe(git('rev-parse', 'HEAD'));
  });

  it('a hook that cannot be removed is reported as not undone', async () => {
    const before = await snapshotGitSurface(project, home);
    nextTick();
    gitFolder(join(project, 'sub', '.git'), '[core]\n\tbare = false\n');
    const hook = join(project, 'sub', '.git', 'hooks', 'pre-commit');
    writeFileSync(hook, '#!/bin/sh\n', { mode: 0o755 });
    if (!immutable(hook)) return;
    const { items } = await enforceGitSurface(project, before, { home, untouchable: [] });
    const item = items.find((i) => i.kind !== 'network' && i.path === hook);
    expect(item && 'why' in item ? item.why : '').toMatch(/^could not undo/);
  });

  it('a config that cannot be reset (the disk is full) is not left running programs, nor reported reset', async () => {
    const disk = join(base, 'disk');
    mkdirSync(disk);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', disk], { stdio: 'ignore' });
    } catch {
      return;
    }
    cleanups.push(() => execFileSync('umount', ['-l', disk]));
    const before = await snapshotGitSurface(disk, home);
    nextTick();
    gitFolder(join(disk, 'sub', '.git'), FSMONITOR);
    try {
      execFileSync('dd', ['if=/dev/zero', `of=${join(disk, 'fill')}`, 'bs=64k'], { stdio: 'ignore' });
    } catch {
      // Full.
    }
    const { items } = await enforceGitSurface(disk, before, { home, untouchable: [] });
    const config = join(disk, 'sub', '.git', 'config');
    const left = existsSync(config) ? readFileSync(config, 'utf8') : '';
    const item = items.find((i) => i.kind !== 'network' && i.path === config);
    const why = item && 'why' in item ? item.why : '';
    if (left.includes('fsmonitor')) expect(why).toMatch(/^could not undo/);
    else expect(why).not.toMatch(/could not undo/);
    expect(why).not.toBe('');
  });
});
