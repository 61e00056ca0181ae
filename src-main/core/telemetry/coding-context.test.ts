// The coding-agent trace context read from real repositories made with the system git.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { codingTraceContext, repositoryUrlOf } from './coding-context';

const GIT_ENV: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };

function git(cwd: string, ...args: string[]): string {
  const res = spawnSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd, env: GIT_ENV, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${res.stderr}`);
  return res.stdout.trim();
}

const made: string[] = [];
function tempDir(name: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `deepdesk-${name}-`)));
  made.push(dir);
  return dir;
}

function repository(): string {
  const dir = tempDir('ctx-repo');
  git(dir, 'init', '-q', '-b', 'feature/login');
  fs.writeFileSync(path.join(dir, 'a.txt'), 'a\n');
  git(dir, 'add', 'a.txt');
  git(dir, 'commit', '-q', '-m', 'first');
  return dir;
}

afterEach(() => {
  vi.unstubAllEnvs();
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('codingTraceContext', () => {
  it('reads the branch, HEAD and origin without the credentials in its URL', async () => {
    const dir = repository();
    git(dir, 'remote', 'add', 'origin', 'https://ada:s3cr3t-token@github.com/acme/widgets.git');
    const context = await codingTraceContext(dir, 'bwrap');
    expect(context).toEqual({
      cwd: dir,
      gitBranch: 'feature/login',
      gitCommitSha: git(dir, 'rev-parse', 'HEAD'),
      repositoryUrl: 'https://github.com/acme/widgets',
      sandboxType: 'bwrap',
    });
    expect(context.gitCommitSha).toMatch(/^[0-9a-f]{40}$/);
    expect(JSON.stringify(context)).not.toMatch(/s3cr3t|ada/);
  });

  it('works from a folder inside the repository, with an scp-like origin', async () => {
    const dir = repository();
    git(dir, 'remote', 'add', 'origin', 'git@gitlab.com:group/sub/project.git');
    const inner = path.join(dir, 'src', 'lib');
    fs.mkdirSync(inner, { recursive: true });
    const context = await codingTraceContext(inner, 'none');
    expect(context).toMatchObject({ cwd: inner, gitBranch: 'feature/login', repositoryUrl: 'https://gitlab.com/group/sub/project', sandboxType: 'none' });
  });

  it('reports a detached HEAD as HEAD, and a repository without commits by its branch only', async () => {
    const dir = repository();
    const sha = git(dir, 'rev-parse', 'HEAD');
    git(dir, 'checkout', '-q', '--detach', 'HEAD');
    expect(await codingTraceContext(dir, 'seatbelt')).toEqual({ cwd: dir, gitBranch: 'HEAD', gitCommitSha: sha, sandboxType: 'seatbelt' });

    const empty = tempDir('ctx-empty');
    git(empty, 'init', '-q', '-b', 'trunk');
    expect(await codingTraceContext(empty, 'none')).toEqual({ cwd: empty, gitBranch: 'trunk', sandboxType: 'none' });
  });

  it('gives a folder that is not a repository, a remote folder and a missing one no git fields', async () => {
    const plain = tempDir('ctx-plain');
    expect(await codingTraceContext(plain, 'bwrap')).toEqual({ cwd: plain, sandboxType: 'bwrap' });
    expect(await codingTraceContext('ssh://build@host.example/srv/app', 'remote')).toEqual({ cwd: 'ssh://build@host.example/srv/app', sandboxType: 'remote' });
    const missing = path.join(plain, 'not-there');
    expect(await codingTraceContext(missing, 'none')).toEqual({ cwd: missing, sandboxType: 'none' });
  });

  it('is bounded in time: a hung git or a cancelled lookup leaves the git fields out', async () => {
    const dir = repository();
    expect(await codingTraceContext(dir, 'none', AbortSignal.abort())).toEqual({ cwd: dir, sandboxType: 'none' });

    // A git that never answers (first on PATH, sleeping longer than the test may run): only
    // the lookup's deadline can end it, and it leaves none of them running.
    const bin = tempDir('ctx-bin');
    fs.writeFileSync(path.join(bin, 'git'), '#!/bin/sh\nexec sleep 987741\n', { mode: 0o755 });
    vi.stubEnv('PATH', `${bin}${path.delimiter}${process.env.PATH ?? ''}`);
    expect(await codingTraceContext(dir, 'none')).toEqual({ cwd: dir, sandboxType: 'none' });
    await expect.poll(() => spawnSync('pgrep', ['-f', 'sleep 987741']).stdout.toString(), { timeout: 60_000 }).toBe('');
  });
});

describe('repositoryUrlOf', () => {
  it.each([
    ['https://github.com/acme/widgets.git', 'https://github.com/acme/widgets'],
    ['https://x-access-token:ghs_abc123@github.com/acme/widgets', 'https://github.com/acme/widgets'],
    ['https://oauth2:glpat-XYZ@gitlab.example.com:8443/g/p.git?private_token=abc#frag', 'https://gitlab.example.com/g/p'],
    ['http://user@Git.Example.com/team/repo/', 'https://git.example.com/team/repo'],
    ['ssh://git@github.com:22/acme/widgets.git', 'https://github.com/acme/widgets'],
    ['git@github.com:acme/widgets.git', 'https://github.com/acme/widgets'],
    ['deploy@bitbucket.org:team/app', 'https://bitbucket.org/team/app'],
    ['git://example.org/project.git', 'https://example.org/project'],
  ])('%s → %s', (remote, url) => {
    expect(repositoryUrlOf(remote)).toBe(url);
  });

  it.each(['', '/srv/git/repo.git', './repo', '../other', 'file:///srv/repo.git', 'C:\\repos\\app', 'not a url', 'https://github.com/'])('%j has no repository URL', (remote) => {
    expect(repositoryUrlOf(remote)).toBeUndefined();
  });
});
