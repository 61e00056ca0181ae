// Every git call Deepdesk makes (run-git.ts) holds off what a repository's own config runs,
// found by key class in the config itself, while the person's own values of the same keys
// still apply. Real repositories and the real git: a planted program writes a marker.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { heldOffSettings, includedPaths, parseOriginList } from './held-off-config';
import { gitEnv, runGit } from './run-git';

let root: string;
let repo: string;
let markers: string;
let globalConfig: string;
let env: NodeJS.ProcessEnv;

const git = (...args: string[]): string => execFileSync('git', args, { cwd: repo, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const deepdeskGit = (...args: string[]) => runGit(args, { cwd: repo, env: gitEnv(env), timeoutMs: 30_000 });
const mark = (name: string): string => `touch ${join(markers, name)}`;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'dd-held-off-git-')));
  repo = join(root, 'repo');
  markers = join(root, 'markers');
  mkdirSync(repo);
  mkdirSync(markers);
  globalConfig = join(root, 'gitconfig');
  writeFileSync(globalConfig, '[user]\n\tname = P\n\temail = p@example.com\n[init]\n\tdefaultBranch = main\n');
  env = { ...process.env, GIT_CONFIG_GLOBAL: globalConfig, GIT_CONFIG_NOSYSTEM: '1' };
  git('init', '-q');
  writeFileSync(join(repo, '.gitattributes'), '*.txt filter=evil diff=evil\n');
  writeFileSync(join(repo, 'a.txt'), 'one\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  for (const [key, value] of [
    ['filter.evil.clean', `${mark('clean')}; cat`],
    ['filter.evil.smudge', `${mark('smudge')}; cat`],
    ['diff.evil.textconv', `${mark('textconv')}; cat`],
    ['diff.evil.command', mark('diff-command')],
    ['core.pager', mark('pager')],
    ['pager.log', mark('pager-log')],
  ]) git('config', key!, value!);
  writeFileSync(join(repo, 'a.txt'), 'two\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the repository config git calls hold off', () => {
  it('status, add, diff, log -p, show and checkout run no filter, driver or pager of the repository', async () => {
    for (const args of [['status', '--porcelain'], ['diff'], ['diff', '--stat'], ['add', '-A'], ['commit', '-q', '-m', 'x'], ['log', '-p', '-1'], ['show', 'HEAD'], ['checkout', '-q', 'HEAD~1', '--', 'a.txt']]) {
      await deepdeskGit(...args);
    }
    expect(readdirSync(markers)).toEqual([]);
    git('checkout', '-q', 'HEAD', '--', 'a.txt');
    expect(existsSync(join(markers, 'smudge'))).toBe(true);
  });

  it("the person's own value of a key the repository also sets still applies", async () => {
    writeFileSync(globalConfig, `[user]\n\tname = P\n\temail = p@example.com\n[filter "evil"]\n\tclean = ${mark('persons-clean')}; cat\n`);
    expect((await deepdeskGit('add', '-A')).code).toBe(0);
    expect(readdirSync(markers)).toEqual(['persons-clean']);
  });

  it('a conditional include git evaluates only in the new worktree (gitdir:, onbranch:) is held off there too', async () => {
    for (const key of ['filter.evil.clean', 'filter.evil.smudge']) git('config', '--unset', key);
    writeFileSync(join(repo, '.git', 'evil.cfg'), `[filter "evil"]\n\tsmudge = ${mark('smudge')}; cat\n\tclean = ${mark('clean')}; cat\n`);
    git('config', 'includeIf.gitdir:**/.git/worktrees/**.path', 'evil.cfg');
    git('config', 'includeIf.onbranch:deepdesk/**.path', 'evil.cfg');
    git('checkout', '-q', '--', 'a.txt');
    const made = await deepdeskGit('worktree', 'add', '-q', join(root, 'wt'), '-b', 'deepdesk/w');
    expect(made.code, made.stderr).toBe(0);
    expect(readdirSync(markers)).toEqual([]);
    // The person's git in the new worktree takes the include: the attack is live.
    writeFileSync(join(root, 'wt', 'a.txt'), 'three\n');
    execFileSync('git', ['add', '-A'], { cwd: join(root, 'wt'), env, stdio: 'ignore' });
    expect(readdirSync(markers)).toEqual(['clean']);
  });

  it('an include git cannot read plainly (a fifo) fails the call: nothing runs unchecked', async () => {
    execFileSync('mkfifo', [join(repo, '.git', 'held.cfg')]);
    git('config', 'includeIf.onbranch:nowhere.path', 'held.cfg');
    const result = await deepdeskGit('status', '--porcelain');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("the repository's config could not be read");
  });

  it('includes resolve as git resolves them, whatever their condition, in the repository scopes only', () => {
    const listing = parseOriginList(
      ['local', 'file:.git/config', 'includeif.gitdir:/x/.path\nevil.cfg', 'worktree', 'file:/r/.git/worktrees/w/config.worktree', 'include.path\n~/team.cfg', 'global', 'file:/home/p/.gitconfig', 'include.path\nmine.cfg', 'local', 'file:.git/config', 'include.path\n%(prefix)/etc/x', ''].join('\0'),
    );
    expect(includedPaths(listing, '/r', '/home/p')).toEqual(['/r/.git/evil.cfg', '/home/p/team.cfg']);
  });

  it('finds driver names and code keys by class, in the repository scopes only', () => {
    const scoped = [['global', 'filter.lfs.clean\ngit-lfs clean -- %f'], ['local', 'filter.Mine.Clean\nrun-me'], ['local', 'merge.x.driver\nrun-me'], ['worktree', 'credential.helper\n!run-me'], ['global', 'credential.helper\nosxkeychain'], ['local', 'core.bare\nfalse'], ['local', 'remote.origin.url\nx']];
    const listing = `${scoped.map(([scope, line]) => `${scope}\0file:config\0${line}`).join('\0')}\0`;
    expect(heldOffSettings(parseOriginList(listing))).toEqual(['filter.Mine.clean=', 'merge.x.driver=git merge-file --marker-size=%L %A %O %B', 'credential.helper=', 'credential.helper=osxkeychain']);
  });
});
