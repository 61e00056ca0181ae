// Whether a snapshot is its HEAD's tree, read from the index files (index-tree.ts), against the
// real git: the answer is used only when it is what `git add -A` + `git write-tree` give, in
// every index format git writes; the snapshot's tree is always that of git itself.

import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changedIndexPaths, indexIsTree } from './index-tree';
import { snapshotTree } from './snapshot';
import { GitRunner } from './worktree-git';

let root: string;
let repo: string;
let env: NodeJS.ProcessEnv;

function git(cwd: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}): string {
  return execFileSync('git', args, { cwd, env: { ...env, ...extraEnv }, encoding: 'utf8' });
}

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

function makeRepo(init: string[] = []): void {
  git(root, ['init', '-q', ...init, repo]);
  write(join(repo, '.gitignore'), '*.log\n');
  for (let d = 0; d < 4; d++) for (let f = 0; f < 5; f++) write(join(repo, `dir${d}`, `file${f}.txt`), `file ${d}/${f}\n`);
  write(join(repo, 'top.txt'), 'top\n');
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', 'base']);
}

const headTree = () => git(repo, ['rev-parse', 'HEAD^{tree}']).trim();

/**
 * What git itself says the working state is: `git add -A` and `git write-tree` on a copy of the
 * index. The copy keeps the index's times, as the snapshot's does: with a fresh time, git would
 * trust the cached stat of a file edited in the second the index was written ("racy git"), and
 * miss an edit of the same size (this failed once, under load).
 */
function gitsOwnTree(): string {
  const index = join(root, 'own-index');
  const original = git(repo, ['rev-parse', '--path-format=absolute', '--git-path', 'index']).trim();
  copyFileSync(original, index);
  const { atime, mtime } = statSync(original);
  utimesSync(index, atime, mtime);
  git(repo, ['add', '-A'], { GIT_INDEX_FILE: index });
  return git(repo, ['write-tree'], { GIT_INDEX_FILE: index }).trim();
}

/** The snapshot's tree, told HEAD's tree, and whether it was read from the index files (no write-tree). */
async function snapshot(): Promise<{ tree: string; fromIndex: boolean }> {
  const indexPath = git(repo, ['rev-parse', '--path-format=absolute', '--git-path', 'index']).trim();
  const original = readFileSync(indexPath);
  const taken = await snapshotTree(new GitRunner(env), repo, undefined, { headTree: Promise.resolve(headTree()) });
  try {
    return { tree: taken.tree, fromIndex: indexIsTree(readFileSync(taken.indexFile), original, headTree()) };
  } finally {
    taken.dispose();
  }
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-index-tree-')));
  repo = join(root, 'repo');
  const gitconfig = join(root, 'gitconfig');
  writeFileSync(gitconfig, '[user]\n\tname = Pat Person\n\temail = pat@example.com\n[init]\n\tdefaultBranch = main\n');
  env = { ...process.env, GIT_CONFIG_GLOBAL: gitconfig, GIT_CONFIG_NOSYSTEM: '1' };
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('a snapshot read from the index files', () => {
  it.each<[string, string[], string[]]>([
    ['index version 2', [], []],
    ['index version 3 (an entry with extended flags)', [], ['update-index', '--index-version', '3']],
    ['index version 4 (names prefix-compressed)', [], ['update-index', '--index-version', '4']],
    ['a SHA-256 repository', ['--object-format=sha256'], []],
  ])('%s: a clean working tree is its HEAD tree without write-tree', async (_name, init, convert) => {
    makeRepo(init);
    if (convert.length > 0) git(repo, convert);
    if (convert.includes('3')) {
      // skip-worktree is an extended flag: the entry is 2 bytes longer.
      git(repo, ['update-index', '--skip-worktree', 'top.txt']);
      git(repo, ['update-index', '--no-skip-worktree', 'top.txt']);
      git(repo, ['update-index', '--skip-worktree', 'dir0/file0.txt']);
    }
    expect(await snapshot()).toEqual({ tree: headTree(), fromIndex: true });
    expect(gitsOwnTree()).toBe(headTree());
  });

  it('files git reads again (written in the second of their index) with the same contents: still HEAD, from the entries', async () => {
    makeRepo();
    const indexPath = join(repo, '.git', 'index');
    // Every file's time at the index's: git cannot trust their stat and reads each again.
    const { mtime } = statSync(indexPath);
    for (let f = 0; f < 5; f++) utimesSync(join(repo, 'dir1', `file${f}.txt`), mtime, mtime);
    expect(await snapshot()).toEqual({ tree: headTree(), fromIndex: true });
  });

  it.each([
    ['an edit of the same size', () => write(join(repo, 'dir2', 'file3.txt'), 'FILE 2/3\n')],
    ['an untracked file', () => write(join(repo, 'dir3', 'new.txt'), 'new\n')],
    ['a deleted file', () => rmSync(join(repo, 'top.txt'))],
    ['a staged change', () => (write(join(repo, 'top.txt'), 'staged\n'), git(repo, ['add', 'top.txt']))],
    ['an intent to add', () => (write(join(repo, 'later.txt'), 'later\n'), git(repo, ['add', '-N', 'later.txt']))],
  ])('%s: the tree git writes, never HEAD’s', async (_name, change) => {
    makeRepo();
    change();
    const indexPath = join(repo, '.git', 'index');
    const { mtime } = statSync(indexPath);
    utimesSync(indexPath, mtime, mtime);
    const taken = await snapshot();
    expect(taken.fromIndex).toBe(false);
    expect(taken.tree).not.toBe(headTree());
    expect(taken.tree).toBe(gitsOwnTree());
  });

  it('a staged change undone in the working tree is HEAD again', async () => {
    makeRepo();
    write(join(repo, 'top.txt'), 'staged\n');
    git(repo, ['add', 'top.txt']);
    write(join(repo, 'top.txt'), 'top\n');
    expect((await snapshot()).tree).toBe(headTree());
  });

  it('an ignored file is not in it; a tracked file that is ignored is', async () => {
    makeRepo();
    write(join(repo, 'debug.log'), 'noise\n');
    expect(await snapshot()).toEqual({ tree: headTree(), fromIndex: true });
    write(join(repo, 'kept.log'), 'kept\n');
    git(repo, ['add', '-f', 'kept.log']);
    write(join(repo, 'kept.log'), 'kept, edited\n');
    const taken = await snapshot();
    expect(taken.tree).toBe(gitsOwnTree());
    expect(git(repo, ['cat-file', '-p', `${taken.tree}:kept.log`])).toBe('kept, edited\n');
  });

  it('a split index is left to git', async () => {
    makeRepo();
    git(repo, ['update-index', '--split-index']);
    const taken = await snapshot();
    expect(taken).toEqual({ tree: headTree(), fromIndex: false });
  });

  it('an index whose bytes do not match its checksum, or whose entries differ from the original, is not read', async () => {
    makeRepo();
    const index = readFileSync(join(repo, '.git', 'index'));
    expect(indexIsTree(index, undefined, headTree())).toBe(true);
    const flipped = Buffer.from(index);
    flipped[100] = flipped[100]! ^ 1;
    expect(indexIsTree(flipped, undefined, headTree())).toBe(false);
    expect(indexIsTree(index.subarray(0, index.length - 1), undefined, headTree())).toBe(false);
    // Another tree than HEAD's is never answered.
    expect(indexIsTree(index, index, git(repo, ['rev-parse', 'HEAD:dir0']).trim())).toBe(false);
    // The original names HEAD; the snapshot's own record is not whole and one entry's object differs.
    // Another size: git add trusts an entry whose size and time still match (an edit within the clock's grain).
    write(join(repo, 'top.txt'), 'the tip\n');
    const edited = join(root, 'edited-index');
    copyFileSync(join(repo, '.git', 'index'), edited);
    git(repo, ['add', 'top.txt'], { GIT_INDEX_FILE: edited });
    expect(indexIsTree(readFileSync(edited), index, headTree())).toBe(false);
  });
});

describe('the paths a move changed, read from the index before and after', () => {
  it.each([
    ['index version 2', []],
    ['index version 3 (an entry with extended flags)', ['update-index', '--skip-worktree', 'dir0/file4.txt']],
  ])('%s: what git diff-tree lists between the two trees (added, deleted, edited, mode, a file that became a folder)', (_name, convert) => {
    makeRepo();
    if (convert.length > 0) git(repo, convert);
    const from = headTree();
    write(join(repo, 'dir0', 'file1.txt'), 'edited\n');
    rmSync(join(repo, 'dir1', 'file2.txt'));
    write(join(repo, 'dir3', 'sub', 'deep.txt'), 'added\n');
    write(join(repo, 'a', 'z.txt'), 'sorts between\n');
    execFileSync('chmod', ['+x', join(repo, 'dir2', 'file0.txt')]);
    rmSync(join(repo, 'top.txt'));
    write(join(repo, 'top.txt', 'inside.txt'), 'a file became a folder\n');
    git(repo, ['add', '-A']);
    const to = git(repo, ['write-tree']).trim();
    git(repo, ['read-tree', '--reset', '-u', from]);

    const index = join(repo, '.git', 'index');
    const before = readFileSync(index);
    git(repo, ['read-tree', '-m', '-u', from, to]);
    const after = readFileSync(index);
    expect(after.readUInt32BE(4)).toBe(convert.length > 0 ? 3 : 2);
    const listed = changedIndexPaths(before, after, 20);
    const gits = git(repo, ['diff-tree', '-r', '-z', '--name-only', '--no-renames', from, to]).split('\0').filter(Boolean);
    expect(listed).toEqual(gits);
    expect(listed).toEqual(['a/z.txt', 'dir0/file1.txt', 'dir1/file2.txt', 'dir2/file0.txt', 'dir3/sub/deep.txt', 'top.txt', 'top.txt/inside.txt']);
  });

  it('compares objects, not stat data; leaves to git an index with prefix-compressed names or a conflict stage', () => {
    makeRepo();
    const index = join(repo, '.git', 'index');
    const v2 = readFileSync(index);
    expect(changedIndexPaths(v2, v2, 20)).toEqual([]);
    git(repo, ['update-index', '--index-version', '4']);
    expect(changedIndexPaths(v2, readFileSync(index), 20)).toBeUndefined();
    git(repo, ['update-index', '--index-version', '2']);
    const blob = git(repo, ['rev-parse', 'HEAD:top.txt']).trim();
    execFileSync('git', ['update-index', '--index-info'], { cwd: repo, env, input: `100644 ${blob} 1\ttop.txt\n100644 ${blob} 2\ttop.txt\n` });
    expect(changedIndexPaths(v2, readFileSync(index), 20)).toBeUndefined();
    // Stat data is not a change; another object is.
    const touched = Buffer.from(v2);
    touched[12 + 8] = touched[12 + 8]! ^ 1;
    expect(changedIndexPaths(v2, touched, 20)).toEqual([]);
    touched[12 + 40] = touched[12 + 40]! ^ 1;
    expect(changedIndexPaths(v2, touched, 20)).toEqual(['.gitignore']);
  });
});
