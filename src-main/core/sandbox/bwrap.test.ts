// The bubblewrap command line as text: the mounts in the order bwrap applies them. A hidden
// folder that holds the project folder (a worktree in the data folder) is covered whole, the
// project bound back inside it, and made read-only only after everything inside is mounted.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bwrapArgs, findBwrap, probeBwrap, type PathKind } from './bwrap';
import { resolvePolicy } from './policy';

const data = '/home/u/.deepdesk';
const worktree = `${data}/worktrees/w`;

/** The arguments before the namespace options, as one string per option. */
function mounts(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length && args[i] !== '--unshare-pid'; ) {
    const option = args[i]!;
    const arity = option === '--bind' || option === '--ro-bind' ? 2 : 1;
    out.push([option, ...args.slice(i + 1, i + 1 + arity)].join(' '));
    i += 1 + arity;
  }
  return out;
}

function argsFor(projectDir: string, kinds: Record<string, PathKind>): string[] {
  const policy = resolvePolicy({ projectDir, dataDir: data }, { platform: 'linux', homes: ['/home/u'], env: {}, uid: 1000 });
  // Only what the test names exists (the rest of the secrets list is missing here).
  policy.hidden = policy.hidden.filter((h) => h.path in kinds);
  return bwrapArgs({ policy, tmpDir: '/tmp/run', unreadableFile: '/tmp/hidden', cwd: projectDir, kindOf: (p) => kinds[p] ?? 'missing' });
}

describe('bwrapArgs', () => {
  it('covers a plain hidden folder with an unreadable, read-only empty folder', () => {
    const m = mounts(argsFor('/home/u/code/app', { [data]: 'dir', '/home/u/code/app': 'dir', '/home/u/.netrc': 'file' }));
    expect(m).toContain('--bind /home/u/code/app /home/u/code/app');
    const cover = m.indexOf(`--tmpfs ${data}`);
    expect(m.slice(cover - 1, cover + 2)).toEqual(['--perms 0000', `--tmpfs ${data}`, `--remount-ro ${data}`]);
    expect(m).toContain('--ro-bind /tmp/hidden /home/u/.netrc');
  });

  it('keeps the data folder hidden around a worktree: a bare cover, the worktree bound inside with its .git pinned, read-only last', () => {
    const kinds: Record<string, PathKind> = { [data]: 'dir', [worktree]: 'dir', [`${worktree}/.git`]: 'file', [`${worktree}/.claude`]: 'dir', '/home/u/.ssh': 'dir' };
    const args = argsFor(worktree, kinds);
    const m = mounts(args);
    const at = (option: string): number => {
      const i = m.indexOf(option);
      expect(i, option).toBeGreaterThanOrEqual(0);
      return i;
    };
    // Passable, not listable (even by its owner), and not read-only yet.
    const cover = at(`--tmpfs ${data}`);
    expect(m[cover - 1]).toBe('--perms 0111');
    expect(m[cover + 1]).not.toBe(`--remount-ro ${data}`);
    // The folder between, made as bare, then the worktree (writable) and what is pinned in it.
    const between = at(`--dir ${data}/worktrees`);
    expect(m[between - 1]).toBe('--perms 0111');
    const bound = at(`--bind ${worktree} ${worktree}`);
    const gitFile = at(`--ro-bind ${worktree}/.git ${worktree}/.git`);
    const claude = at(`--bind ${worktree}/.claude ${worktree}/.claude`);
    const readOnly = at(`--remount-ro ${data}`);
    expect(cover).toBeLessThan(between);
    expect(between).toBeLessThan(bound);
    expect(bound).toBeLessThan(gitFile);
    expect(bound).toBeLessThan(claude);
    // After every mount inside it: a mount point cannot be made in a read-only folder.
    expect(readOnly).toBe(m.length - 1);
    expect(m.filter((o) => o === `--remount-ro ${data}`)).toHaveLength(1);
    // Other secrets are covered as ever.
    expect(m.slice(at('--tmpfs /home/u/.ssh') - 1, at('--tmpfs /home/u/.ssh') + 2)).toEqual(['--perms 0000', '--tmpfs /home/u/.ssh', '--remount-ro /home/u/.ssh']);
    expect(args.slice(-2)).toEqual(['--chdir', worktree]);
  });

  it('makes every folder between the hidden folder and the project, outermost first', () => {
    const deep = `${data}/worktrees/group/w`;
    const m = mounts(argsFor(deep, { [data]: 'dir', [deep]: 'dir' }));
    const dirs = m.filter((o) => o.startsWith('--dir '));
    expect(dirs).toEqual([`--dir ${data}/worktrees`, `--dir ${data}/worktrees/group`]);
    expect(m.indexOf(`--dir ${data}/worktrees/group`)).toBeLessThan(m.indexOf(`--bind ${deep} ${deep}`));
  });

  it('mounts nothing a hidden folder covers: a protected or pinned path there would show through the cover', () => {
    const policy = resolvePolicy({ projectDir: worktree, dataDir: data, protectedPaths: [`${data}/settings.json`, '/home/u/.ssh/config'] }, { platform: 'linux', homes: ['/home/u'], env: {}, uid: 1000 });
    policy.hidden = policy.hidden.filter((h) => h.path === data || h.path === '/home/u/.ssh');
    policy.pinnedPaths.push(`${data}/worktrees/other/.git`);
    const kinds: Record<string, PathKind> = { [data]: 'dir', '/home/u/.ssh': 'dir', [worktree]: 'dir', [`${data}/settings.json`]: 'file', '/home/u/.ssh/config': 'file', [`${data}/worktrees/other/.git`]: 'file' };
    const m = mounts(bwrapArgs({ policy, tmpDir: '/tmp/run', unreadableFile: '/tmp/hidden', cwd: worktree, kindOf: (p) => kinds[p] ?? 'missing' }));
    expect(m.filter((o) => o.includes('settings.json') || o.includes('.ssh/config') || o.includes('worktrees/other'))).toEqual([]);
  });
});

describe('bwrapArgs: a private /tmp', () => {
  it('with its overlay, binds the view at /tmp once, before everything below it, and binds none of the host’s entries', () => {
    const policy = { ...resolvePolicy({ projectDir: '/tmp/p/app', dataDir: data, privateTmp: true }, { platform: 'linux', homes: ['/home/u'], env: {}, uid: 1000 }), hidden: [] };
    const m = mounts(bwrapArgs({ policy, tmpDir: '/tmp/run', unreadableFile: '/tmp/hidden', cwd: '/tmp/p/app', kindOf: () => 'dir', tmpView: '/tmp/stage/view' }));
    expect(m.slice(0, 4)).toEqual(['--ro-bind / /', '--dev /dev', '--proc /proc', '--bind /tmp/stage/view /tmp']);
    expect(m.filter((x) => x.startsWith('--ro-bind-try') || x.startsWith('--tmpfs /tmp'))).toEqual([]);
    expect(m.indexOf('--bind /tmp/p/app /tmp/p/app')).toBeGreaterThan(3);
  });
});

describe('probeBwrap', () => {
  const bwrap = findBwrap();
  it.skipIf(bwrap === undefined)('a probe that only ran out of time is no verdict (asked again, not remembered as unavailable)', async () => {
    // A launcher that takes longer than the probe waits (a 1 ms wait raced a fast machine's bwrap).
    const dir = mkdtempSync(join(tmpdir(), 'dd-slow-bwrap-'));
    const slow = join(dir, 'bwrap');
    writeFileSync(slow, '#!/bin/sh\nsleep 5\n', { mode: 0o755 });
    try {
      expect(await probeBwrap(slow, 200)).toEqual({ slow: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(await probeBwrap(bwrap!)).toBeUndefined();
  });
});
