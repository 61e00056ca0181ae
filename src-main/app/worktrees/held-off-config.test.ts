// A folder that arrives with its own `.git` whose config names programs (filters, a textconv,
// a diff and a merge driver, an editor, ssh, a credential helper, a filter in an included
// file): making a worktree from it, looking at its status and diff, and applying it back run
// none of them. Each program writes a marker; the markers must never appear. The same config
// run by the person's plain git does write them (the attack is live).

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
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

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'dd-held-off-')));
  repo = join(root, 'project');
  markers = join(root, 'markers');
  mkdirSync(repo);
  mkdirSync(markers);
  const gitconfig = join(root, 'gitconfig');
  writeFileSync(gitconfig, '[user]\n\tname = Pat Person\n\temail = pat@example.com\n[init]\n\tdefaultBranch = main\n');
  env = { ...process.env, GIT_CONFIG_GLOBAL: gitconfig, GIT_CONFIG_NOSYSTEM: '1' };
  git(repo, 'init', '-q');
  writeFileSync(join(repo, '.gitattributes'), '*.txt filter=evil diff=evil merge=evil\n*.md filter=planted\n');
  writeFileSync(join(repo, 'a.txt'), 'one\ntwo\nthree\n');
  writeFileSync(join(repo, 'b.md'), 'bee\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'base');
  // Planted after the commit: from here on, whatever git runs from the repository's config leaves a marker.
  const mark = (name: string): string => `touch ${join(markers, name)}`;
  writeFileSync(join(root, 'planted.inc'), `[filter "planted"]\n\tclean = ${mark('include')}; cat\n\tsmudge = ${mark('include')}; cat\n`);
  const config = [
    `[filter "evil"]\n\tclean = ${mark('clean')}; cat\n\tsmudge = ${mark('smudge')}; cat\n\trequired = true`,
    `[diff "evil"]\n\ttextconv = ${mark('textconv')}; cat\n\tcommand = ${mark('diff-command')}`,
    `[merge "evil"]\n\tdriver = ${mark('merge-driver')}; false`,
    `[core]\n\teditor = ${mark('editor')}\n\tsshCommand = ${mark('ssh')}\n\taskPass = ${join(markers, 'askpass-not-a-program')}`,
    `[credential]\n\thelper = !${mark('credential')}`,
    `[include]\n\tpath = ${join(root, 'planted.inc')}`,
  ];
  writeFileSync(join(repo, '.git', 'config'), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n${config.join('\n')}\n`);
  service = new WorktreeService({ dataDir: join(root, 'data'), env });
});

afterEach(() => {
  service.close();
  rmSync(root, { recursive: true, force: true });
});

describe("what a repository's own config runs", () => {
  it('runs nothing when Deepdesk makes a worktree, looks at it, diffs it and applies it', async () => {
    // Uncommitted work in the folder, carried over (snapshots read it through the filters' places).
    writeFileSync(join(repo, 'b.md'), 'bee\nsea\n');
    const made = await service.create({ folder: repo, name: 'work', carry: true });
    expect(made.carried).toBe(1);
    writeFileSync(join(made.path, 'a.txt'), 'one\ntwo\nTHREE\n');
    writeFileSync(join(made.path, 'c.txt'), 'new\n');
    const status = await service.status('work');
    expect(status.files.map((f) => f.path).sort()).toEqual(['a.txt', 'b.md', 'c.txt']);
    expect((await service.diff('work')).diff).toContain('+THREE');
    // The person changed the same file meanwhile: a three-way merge (merge-tree) that would use the merge driver.
    writeFileSync(join(repo, 'a.txt'), 'zero\none\ntwo\nthree\n');
    const applied = await service.apply('work');
    expect(applied.conflicts).toEqual([]);
    expect(service.list().map((w) => w.name)).toEqual(['work']);
    expect(marked()).toEqual([]);

    // The same repository under the person's own git runs them.
    git(repo, 'add', '-A');
    expect(marked()).toEqual(expect.arrayContaining(['clean', 'include']));
    expect(existsSync(join(markers, 'credential'))).toBe(false);
  });
});
