// The held-off verdict kept from one git call to the next (run-git.ts, config-files.ts): used
// while the config files are as they were, listed again as soon as any of them changed. Real
// repositories and the real git; a program planted in a config between two calls writes a
// marker, which must never appear. The repositories are made once and left to age past
// RACY_MS (a config changed that recently is never kept), then each test changes its own.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RACY_MS } from './config-files';
import { gitEnv, heldOffListings, runGit } from './run-git';

let root: string;
let env: NodeJS.ProcessEnv;
const repos = new Map<string, string>();

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const deepdeskGit = (cwd: string, ...args: string[]) => runGit(args, { cwd, env: gitEnv(env), timeoutMs: 30_000 });
const markers = (name: string): string => join(root, 'markers', name);
const marked = (name: string): string[] => readdirSync(markers(name));
/** A program that leaves a marker, then passes its input through (a working clean filter). */
const planted = (name: string, what: string): string => `touch ${join(markers(name), what)}; cat`;

/** Calls made, and how many of them listed the config. */
async function listings(work: () => Promise<unknown>): Promise<number> {
  const before = heldOffListings.count;
  await work();
  return heldOffListings.count - before;
}

function makeRepo(name: string): string {
  const repo = join(root, name);
  mkdirSync(repo);
  mkdirSync(markers(name));
  git(repo, 'init', '-q');
  writeFileSync(join(repo, '.gitattributes'), '*.txt filter=evil\n');
  writeFileSync(join(repo, 'a.txt'), 'one\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'base');
  repos.set(name, repo);
  return repo;
}

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'dd-kept-verdict-')));
  mkdirSync(join(root, 'markers'));
  const globalConfig = join(root, 'gitconfig');
  writeFileSync(globalConfig, '[user]\n\tname = P\n\temail = p@example.com\n[init]\n\tdefaultBranch = main\n');
  env = { ...process.env, GIT_CONFIG_GLOBAL: globalConfig, GIT_CONFIG_NOSYSTEM: '1' };
  for (const name of ['plain', 'config-edited', 'include-edited', 'include-appears', 'fsmonitor', 'worktree-config']) makeRepo(name);
  // An include that is there, harmless, and one that is not there yet.
  const included = join(repos.get('include-edited')!, '.git', 'team.cfg');
  writeFileSync(included, `[core]\n\tautocrlf = false\n${'#'.repeat(400)}\n`);
  git(repos.get('include-edited')!, 'config', 'include.path', 'team.cfg');
  git(repos.get('include-appears')!, 'config', 'includeIf.onbranch:main.path', 'later.cfg');
  // A linked worktree reading its own config.worktree.
  const main = repos.get('worktree-config')!;
  git(main, 'config', 'extensions.worktreeConfig', 'true');
  git(main, 'worktree', 'add', '-q', join(root, 'linked'), '-b', 'linked');
  mkdirSync(markers('linked'));
  await new Promise((done) => setTimeout(done, RACY_MS + 300));
}, RACY_MS + 30_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a kept verdict', () => {
  it('is used while the config is unchanged: one listing for several calls', async () => {
    const repo = repos.get('plain')!;
    expect(await listings(() => deepdeskGit(repo, 'status', '--porcelain'))).toBe(1);
    expect(await listings(async () => {
      for (const args of [['status', '--porcelain'], ['diff'], ['rev-parse', 'HEAD']]) expect((await deepdeskGit(repo, ...args)).code).toBe(0);
    })).toBe(0);
  });

  it("is not used once the repository's config names a program: the filter planted between two calls never runs", async () => {
    const repo = repos.get('config-edited')!;
    writeFileSync(join(repo, 'a.txt'), 'two\n');
    expect(await listings(() => deepdeskGit(repo, 'status', '--porcelain'))).toBe(1);
    git(repo, 'config', 'filter.evil.clean', planted('config-edited', 'clean'));
    const listed = await listings(async () => expect((await deepdeskGit(repo, 'add', '-A')).code).toBe(0));
    expect(marked('config-edited')).toEqual([]);
    expect(listed).toBe(1);
    // The attack is live under the person's own git.
    writeFileSync(join(repo, 'a.txt'), 'three\n');
    git(repo, 'add', '-A');
    expect(marked('config-edited')).toEqual(['clean']);
  });

  it('is not used once an included file changed, even to the same size and times', async () => {
    const repo = repos.get('include-edited')!;
    const included = join(repo, '.git', 'team.cfg');
    writeFileSync(join(repo, 'a.txt'), 'two\n');
    expect(await listings(() => deepdeskGit(repo, 'status', '--porcelain'))).toBe(1);
    expect(await listings(() => deepdeskGit(repo, 'status', '--porcelain'))).toBe(0);
    // Rewritten in place to the same length, its modification time put back: only its change time tells.
    const { size, mtimeNs } = statSync(included, { bigint: true });
    const times = join(root, 'times');
    execFileSync('touch', ['-r', included, times]);
    const program = planted('include-edited', 'clean');
    const text = `[filter "evil"]\n\tclean = ${program}\n`;
    expect(text.length).toBeLessThan(Number(size));
    writeFileSync(included, text.padEnd(Number(size), '#'));
    execFileSync('touch', ['-r', times, included]);
    expect(statSync(included, { bigint: true })).toMatchObject({ size, mtimeNs });
    const listed = await listings(async () => expect((await deepdeskGit(repo, 'add', '-A')).code).toBe(0));
    expect(marked('include-edited')).toEqual([]);
    expect(listed).toBe(1);
    expect(readFileSync(included, 'utf8')).toContain(program);
  });

  it('is not used once a file an include leads to appears', async () => {
    const repo = repos.get('include-appears')!;
    writeFileSync(join(repo, 'a.txt'), 'two\n');
    expect(await listings(() => deepdeskGit(repo, 'status', '--porcelain'))).toBe(1);
    writeFileSync(join(repo, '.git', 'later.cfg'), `[filter "evil"]\n\tclean = ${planted('include-appears', 'clean')}\n`);
    const listed = await listings(async () => expect((await deepdeskGit(repo, 'add', '-A')).code).toBe(0));
    expect(marked('include-appears')).toEqual([]);
    expect(listed).toBe(1);
  });

  it('holds off core.fsmonitor set between two calls (the monitor never runs)', async () => {
    const repo = repos.get('fsmonitor')!;
    expect(await listings(() => deepdeskGit(repo, 'status', '--porcelain'))).toBe(1);
    const monitor = join(root, 'monitor.sh');
    writeFileSync(monitor, `#!/bin/sh\ntouch ${join(markers('fsmonitor'), 'monitor')}\n`, { mode: 0o755 });
    git(repo, 'config', 'core.fsmonitor', monitor);
    writeFileSync(join(repo, 'a.txt'), 'two\n');
    for (const args of [['status', '--porcelain'], ['add', '-A'], ['diff', '--cached', '--stat']]) expect((await deepdeskGit(repo, ...args)).code).toBe(0);
    expect(marked('fsmonitor')).toEqual([]);
    execFileSync('git', ['status', '--porcelain'], { cwd: repo, env, stdio: 'ignore' });
    expect(marked('fsmonitor')).toEqual(['monitor']);
  });

  it("in a linked worktree, is not used once its own config.worktree appears", async () => {
    const linked = join(root, 'linked');
    writeFileSync(join(linked, 'a.txt'), 'two\n');
    expect(await listings(() => deepdeskGit(linked, 'status', '--porcelain'))).toBe(1);
    expect(await listings(() => deepdeskGit(linked, 'status', '--porcelain'))).toBe(0);
    git(linked, 'config', '--worktree', 'filter.evil.clean', planted('linked', 'clean'));
    const listed = await listings(async () => expect((await deepdeskGit(linked, 'add', '-A')).code).toBe(0));
    expect(marked('linked')).toEqual([]);
    expect(listed).toBe(1);
  });

  it('is not kept where git finds the repository above the folder it runs in, nor for a config changed just now', async () => {
    const sub = join(repos.get('plain')!, 'sub');
    mkdirSync(sub);
    expect(await listings(() => deepdeskGit(sub, 'status', '--porcelain'))).toBe(1);
    expect(await listings(() => deepdeskGit(sub, 'status', '--porcelain'))).toBe(1);
    const fresh = makeRepo('fresh');
    expect(await listings(() => deepdeskGit(fresh, 'status', '--porcelain'))).toBe(1);
    expect(await listings(() => deepdeskGit(fresh, 'status', '--porcelain'))).toBe(1);
  });
});
