// A repository whose config names a program only under a condition git evaluates in the new
// worktree — `includeIf "gitdir:…"` (a linked worktree's git folder is
// `<repository>/.git/worktrees/NAME`) or `includeIf "onbranch:deepdesk/**"` (its branch) — runs
// nothing when Deepdesk makes a thread's worktree (`run --worktree`, `run --sandbox`), carries
// the folder's changes over, looks at it, diffs it, merges the folder in and applies it. The
// included file sets a smudge and a clean filter (`* filter=x`), a diff and a merge driver; each
// writes a marker, which must never appear. The same config under the person's own git does
// write them (the attack is live).

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorktreeService } from './worktree-service';

let root: string;
let repo: string;
let markers: string;
let env: NodeJS.ProcessEnv;
let service: WorktreeService;

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const marked = (): string[] => readdirSync(markers).sort();
const mark = (name: string): string => `touch ${join(markers, name)}`;

/** The repository, its config including `evil.cfg` (beside it in `.git`) when `condition` holds. */
function plant(condition: string, includeFrom: 'config' | 'nested' = 'config'): void {
  const evil = [
    `[filter "x"]\n\tsmudge = ${mark('smudge')}; cat\n\tclean = ${mark('clean')}; cat`,
    `[diff "x"]\n\ttextconv = ${mark('textconv')}; cat\n\tcommand = ${mark('diff-command')}`,
    `[merge "x"]\n\tdriver = ${mark('merge-driver')}; false`,
  ].join('\n');
  writeFileSync(join(repo, '.git', 'evil.cfg'), `${evil}\n`);
  if (includeFrom === 'config') git(repo, 'config', `includeIf.${condition}.path`, 'evil.cfg');
  else {
    // Two steps away: an unconditional include whose file holds the condition.
    writeFileSync(join(repo, '.git', 'team.cfg'), `[includeIf "${condition}"]\n\tpath = evil.cfg\n`);
    git(repo, 'config', 'include.path', 'team.cfg');
  }
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'dd-conditional-')));
  repo = join(root, 'project');
  markers = join(root, 'markers');
  mkdirSync(repo);
  mkdirSync(markers);
  const gitconfig = join(root, 'gitconfig');
  writeFileSync(gitconfig, '[user]\n\tname = Pat Person\n\temail = pat@example.com\n[init]\n\tdefaultBranch = main\n');
  env = { ...process.env, GIT_CONFIG_GLOBAL: gitconfig, GIT_CONFIG_NOSYSTEM: '1' };
  git(repo, 'init', '-q');
  writeFileSync(join(repo, '.gitattributes'), '* filter=x diff=x merge=x\n');
  writeFileSync(join(repo, 'a.txt'), 'one\ntwo\nthree\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'base');
  service = new WorktreeService({ dataDir: join(root, 'data'), env });
});

afterEach(() => {
  service.close();
  rmSync(root, { recursive: true, force: true });
});

/** Everything Deepdesk does with a thread's worktree, then whether a marker appeared. */
async function useWorktree(): Promise<string[]> {
  writeFileSync(join(repo, 'b.md'), 'carried\n');
  const made = await service.create({ folder: repo, name: 'w', carry: true });
  expect(made.carried).toBe(1);
  writeFileSync(join(made.path, 'a.txt'), 'one\ntwo\nTHREE\n');
  await service.status('w');
  expect((await service.diff('w')).diff).toContain('+THREE');
  writeFileSync(join(repo, 'a.txt'), 'zero\none\ntwo\nthree\n');
  await service.mergeFolderIn('w');
  const applied = await service.apply('w');
  expect(applied.conflicts).toEqual([]);
  return marked();
}

describe("a repository's conditional config, evaluated in the new worktree", () => {
  for (const [condition, from] of [
    ['gitdir:**/.git/worktrees/**', 'config'],
    ['onbranch:deepdesk/**', 'config'],
    ['gitdir:**/.git/worktrees/**', 'nested'],
  ] as const) {
    it(`runs nothing it names: includeIf "${condition}" (${from === 'config' ? 'in .git/config' : 'in a file .git/config includes'})`, async () => {
      plant(condition, from);
      expect(await useWorktree()).toEqual([]);
      // The person's own git in the worktree runs it: the attack was live.
      writeFileSync(join(service.get('w')!.path, 'a.txt'), 'again\n');
      try {
        git(service.get('w')!.path, 'add', '-A');
      } catch {
        // Only the marker counts.
      }
      expect(marked()).toContain('clean');
    });
  }
});
