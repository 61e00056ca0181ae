// The policy table resolved for a home and a folder: what is hidden, what stays read-only.
import { mkdirSync, mkdtempSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hiddenPaths, hides, resolvePolicy, SECRET_HOME_PATHS, tmpSocketPaths } from './policy';

const linux = (projectDir: string, extra: { protectedPaths?: string[]; homes?: string[]; env?: Record<string, string> } = {}) =>
  resolvePolicy(
    { projectDir, dataDir: '/home/u/.deepdesk', ...(extra.protectedPaths ? { protectedPaths: extra.protectedPaths } : {}) },
    { platform: 'linux', homes: extra.homes ?? ['/home/u'], env: extra.env ?? {}, uid: 1000 },
  );

describe('resolvePolicy', () => {
  it('hides the secrets list, the data folder and the service sockets', () => {
    const hidden = linux('/home/u/code/app').hidden.map((h) => h.path);
    for (const p of ['.ssh', '.aws', '.gnupg', '.config/gh', '.netrc', '.docker', '.mozilla', '.config/google-chrome', '.config/chromium', '.local/share/keyrings', '.deepdesk']) {
      expect(hidden, p).toContain(`/home/u/${p}`);
    }
    expect(hidden).toContain('/run');
    // Inside a hidden folder, nothing more needs (or can get) a mount of its own.
    expect(hidden).not.toContain('/run/user/1000');
    expect(hidden).not.toContain('/home/u/Library/Keychains');
  });

  it('hides the secrets of every home given, and the agent socket the environment names', () => {
    const hidden = linux('/srv/app', { homes: ['/tmp/fakehome', '/home/u'], env: { SSH_AUTH_SOCK: '/opt/agent/sock' } }).hidden.map((h) => h.path);
    expect(hidden).toContain('/tmp/fakehome/.ssh');
    expect(hidden).toContain('/home/u/.ssh');
    expect(hidden).toContain('/opt/agent/sock');
  });

  it('hides the sockets of the temp folder TMPDIR names, as those of /tmp (ssh-agent and tmux make theirs there)', async () => {
    const temp = mkdtempSync(join(tmpdir(), 'deepdesk-policy-tmpdir-'));
    mkdirSync(join(temp, 'ssh-XXXX'));
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(temp, 'agent.sock'), resolve));
    const before = process.env.TMPDIR;
    process.env.TMPDIR = temp;
    try {
      const hidden = linux('/home/u/code/app').hidden.map((h) => h.path);
      expect(hidden).toContain(join(temp, 'agent.sock'));
      expect(hidden).toContain(join(temp, 'ssh-XXXX'));
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
      await new Promise((resolve) => server.close(resolve));
      rmSync(temp, { recursive: true, force: true });
    }
  });

  it('keeps a hidden folder that holds the project hidden, all but the project (a worktree in the data folder)', () => {
    const policy = linux('/home/u/.deepdesk/worktrees/w', { env: { SSH_AUTH_SOCK: '/home/u/.deepdesk/worktrees/w/agent.sock' } });
    expect(policy.hidden.find((h) => h.path === '/home/u/.deepdesk')).toEqual({ path: '/home/u/.deepdesk', why: "Deepdesk's data folder", contains: '/home/u/.deepdesk/worktrees/w' });
    // Only the one that holds the project is marked; a secret inside the project stays hidden on its own.
    expect(policy.hidden.filter((h) => h.contains !== undefined).map((h) => h.path)).toEqual(['/home/u/.deepdesk']);
    expect(policy.hidden.map((h) => h.path)).toContain('/home/u/.deepdesk/worktrees/w/agent.sock');
    const dataDir = policy.hidden.find((h) => h.path === '/home/u/.deepdesk')!;
    for (const p of ['/home/u/.deepdesk', '/home/u/.deepdesk/deepdesk.db', '/home/u/.deepdesk/host/token', '/home/u/.deepdesk/worktrees', '/home/u/.deepdesk/worktrees/other/a.txt', '/home/u/.deepdesk/worktrees/w2']) {
      expect(hides(dataDir, p), p).toBe(true);
    }
    for (const p of ['/home/u/.deepdesk/worktrees/w', '/home/u/.deepdesk/worktrees/w/.git', '/home/u/code']) expect(hides(dataDir, p), p).toBe(false);
    // The protected and pinned paths of the worktree are the project's as anywhere.
    expect(policy.pinnedPaths).toContain('/home/u/.deepdesk/worktrees/w/.git');
    expect(policy.protectedPaths).toContain('/home/u/.deepdesk/worktrees/w/.deepdesk');
  });

  it('leaves out a hidden folder that is the project itself, and one inside a folder that hides it', () => {
    expect(linux('/home/u/.config/gh').hidden.map((h) => h.path)).not.toContain('/home/u/.config/gh');
    // Both hold the project: the outer one covers the inner one whole.
    const nested = hiddenPaths('/s/a/b/p', [
      { path: '/s/a', why: 'outer' },
      { path: '/s/a/b', why: 'inner' },
      { path: '/s/a/c', why: 'beside' },
      { path: '/s/a/b/p/key', why: 'in the project' },
      { path: '/s/a/b/p', why: 'the project' },
    ]);
    expect(nested).toEqual([
      { path: '/s/a', why: 'outer', contains: '/s/a/b/p' },
      { path: '/s/a/b/p/key', why: 'in the project' },
    ]);
  });

  it("keeps the root repository's surface, .deepdesk, the folder's configuration and the settings-protected paths read-only, and pins .git and the folders holding skills", () => {
    const policy = linux('/home/u/code/app', { protectedPaths: ['/home/u/code/app/.env', 'relative/ignored'] });
    expect(policy.protectedPaths).toEqual([
      '/home/u/code/app/.git/hooks',
      '/home/u/code/app/.git/config',
      '/home/u/code/app/.git/config.worktree',
      '/home/u/code/app/.git/commondir',
      '/home/u/code/app/.git/info',
      '/home/u/code/app/.deepdesk',
      '/home/u/code/app/.mcp.json',
      '/home/u/code/app/.agents/skills',
      '/home/u/code/app/.claude/skills',
      '/home/u/code/app/.claude/settings.json',
      '/home/u/code/app/.claude/settings.local.json',
      '/home/u/code/app/.claude/commands',
      '/home/u/code/app/.claude/agents',
      '/home/u/code/app/.env',
    ]);
    expect(policy.pinnedPaths).toEqual(['/home/u/code/app/.git', '/home/u/code/app/.agents', '/home/u/code/app/.claude']);
  });

  it('lists each macOS and Linux secret for its own platform only', () => {
    const mac = resolvePolicy({ projectDir: '/Users/u/app', dataDir: '/Users/u/.deepdesk' }, { platform: 'darwin', homes: ['/Users/u'], env: {}, uid: 501 });
    const paths = mac.hidden.map((h) => h.path);
    expect(paths).toContain('/Users/u/Library/Keychains');
    expect(paths).not.toContain('/Users/u/.mozilla');
    expect(paths).not.toContain('/run');
    expect(SECRET_HOME_PATHS.length).toBeGreaterThan(20);
  });
});

describe('tmpSocketPaths', () => {
  const listen = (path: string): Promise<Server> =>
    new Promise((resolve) => {
      const server = createServer();
      server.listen(path, () => resolve(server));
    });
  const close = (server: Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()));
  /** Readings that start a minute after the folder's last change: each may be kept while the folder stays as it is. */
  const later = (): number => Date.now() + 60_000;

  it('sees every socket and socket folder made, renamed or removed after an earlier reading was kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'deepdesk-socket-scan-'));
    const servers: Server[] = [];
    try {
      mkdirSync(join(dir, 'plain'));
      expect(tmpSocketPaths(dir, later)).toEqual([]);
      expect(tmpSocketPaths(dir, later)).toEqual([]);
      servers.push(await listen(join(dir, 'agent.sock')));
      expect(tmpSocketPaths(dir, later)).toEqual([join(dir, 'agent.sock')]);
      expect(tmpSocketPaths(dir, later)).toEqual([join(dir, 'agent.sock')]);
      // A folder renamed to a socket folder's name.
      renameSync(join(dir, 'plain'), join(dir, 'ssh-XXXX'));
      expect(tmpSocketPaths(dir, later).sort()).toEqual([join(dir, 'agent.sock'), join(dir, 'ssh-XXXX')]);
      await close(servers.pop()!);
      rmSync(join(dir, 'agent.sock'), { force: true });
      expect(tmpSocketPaths(dir, later)).toEqual([join(dir, 'ssh-XXXX')]);
      // A socket whose folder is then stamped back to the time it had: its change time still moved.
      const before = statSync(dir);
      servers.push(await listen(join(dir, 'late.sock')));
      utimesSync(dir, before.atime, before.mtime);
      expect(tmpSocketPaths(dir, later).sort()).toEqual([join(dir, 'late.sock'), join(dir, 'ssh-XXXX')]);
      // Another folder read in between does not stand in for this one.
      const other = mkdtempSync(join(tmpdir(), 'deepdesk-socket-scan-'));
      expect(tmpSocketPaths(other, later)).toEqual([]);
      rmSync(other, { recursive: true, force: true });
      expect(tmpSocketPaths(dir, later).sort()).toEqual([join(dir, 'late.sock'), join(dir, 'ssh-XXXX')]);
    } finally {
      for (const server of servers) await close(server);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
