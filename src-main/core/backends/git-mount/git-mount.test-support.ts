// Real bare repositories in temp folders for the git mount's tests, checked with the real git.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GitMountBackend, type GitMountOptions } from './git-mount';

/** No global or system git config: the fallback identity and git's defaults apply. */
export const TEST_GIT_ENV: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };

export function git(args: string[], cwd?: string): string {
  const res = spawnSync('git', ['-c', 'user.name=Other', '-c', 'user.email=other@example.com', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    env: TEST_GIT_ENV,
    encoding: 'utf8',
  });
  if (res.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${res.stderr}`);
  return res.stdout;
}

export function tempDir(name: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `deepdesk-${name}-`)));
}

/** A bare repository at `<root>/remote.git`, holding `files` on `branch` (nothing: an empty remote). */
export function makeRemote(root: string, files: Record<string, string> = {}, branch = 'main'): string {
  const bare = path.join(root, 'remote.git');
  git(['init', '-q', '--bare', '-b', branch, bare]);
  // As hosting services do: partial clones get only the tip's file contents.
  git(['--git-dir', bare, 'config', 'uploadpack.allowFilter', 'true']);
  if (Object.keys(files).length > 0) pushFiles(bare, files, branch, 'seed');
  return bare;
}

/** Another writer: clones, writes `files` (null deletes), commits and pushes. */
export function pushFiles(bare: string, files: Record<string, string | null>, branch = 'main', message = 'other'): void {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-other-'));
  try {
    git(['init', '-q', '-b', branch, work]);
    const has = git(['ls-remote', bare, `refs/heads/${branch}`]).trim() !== '';
    if (has) {
      git(['fetch', '-q', bare, branch], work);
      git(['reset', '-q', '--hard', 'FETCH_HEAD'], work);
    }
    for (const [rel, content] of Object.entries(files)) {
      const file = path.join(work, rel);
      if (content === null) fs.rmSync(file, { force: true });
      else {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, content);
      }
    }
    git(['add', '-A'], work);
    git(['commit', '-q', '-m', message], work);
    git(['push', '-q', bare, `HEAD:refs/heads/${branch}`], work);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** The file as committed on the remote's branch, or null. */
export function remoteFile(bare: string, file: string, branch = 'main'): string | null {
  const res = spawnSync('git', ['--git-dir', bare, 'show', `${branch}:${file}`], { env: TEST_GIT_ENV, encoding: 'utf8' });
  return res.status === 0 ? res.stdout : null;
}

/** Commit subjects on the remote's branch, newest first. */
export function remoteSubjects(bare: string, branch = 'main'): string[] {
  const res = spawnSync('git', ['--git-dir', bare, 'log', '--format=%s', branch], { env: TEST_GIT_ENV, encoding: 'utf8' });
  return res.status === 0 ? res.stdout.split('\n').filter(Boolean) : [];
}

// A copy is fetched again only when a test says so (refreshIntervalMs: 0): on a loaded machine a
// step's reads can be 5 s apart, and a conflict test needs the copy it read to stay stale.
export function openMount(url: string, cacheRoot: string, extra: Partial<GitMountOptions> = {}): GitMountBackend {
  return new GitMountBackend({ url, cacheRoot, env: TEST_GIT_ENV, refreshIntervalMs: 3_600_000, ...extra });
}
