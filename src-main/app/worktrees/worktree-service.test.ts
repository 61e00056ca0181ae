// WorktreeService with the real system git on real folders: making worktrees (carrying the
// folder's uncommitted and untracked work over without touching its index), the naming rules,
// Apply to folder (clean, conflicting, the folder changed meanwhile), Commit… and removal.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { carryOut, planApply } from './apply-to-folder';
import { GitRunner } from './worktree-git';
import { openDatabase } from '../../core/backends/store/store-db';
import { databasePath } from '../base/data-dir';
import { RunRecords } from '../threads/run-records';
import { TrustStore } from '../../core/trust/store';
import { CheckpointStore } from '../../core/checkpoints/store';
import { lineAuthors } from '../../core/checkpoints/line-authors';
import { recorderFor } from '../../core/checkpoints/recorder';
import { newThreadState } from '../../core/agent/types';
import { RecentFolders } from '../places/recent-folders';
import { ThreadStore } from '../threads/thread-store';
import { WorktreeError, WorktreeService } from './worktree-service';
import { generateName, nameProblem } from './worktree-names';

let root: string;
let repo: string;
let dataDir: string;
let env: NodeJS.ProcessEnv;
let service: WorktreeService;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env, encoding: 'utf8' });
}

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

/** The person's view of their repository: status, index and HEAD. */
function personState(): string {
  return [git(repo, 'status', '--porcelain=v1', '-uall'), git(repo, 'ls-files', '-s'), git(repo, 'rev-parse', 'HEAD')].join('\n--\n');
}

async function refusal(work: Promise<unknown>): Promise<WorktreeError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorktreeError);
  return err as WorktreeError;
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-worktrees-')));
  repo = join(root, 'project');
  dataDir = join(root, 'data');
  mkdirSync(repo);
  const gitconfig = join(root, 'gitconfig');
  writeFileSync(gitconfig, '[user]\n\tname = Pat Person\n\temail = pat@example.com\n[init]\n\tdefaultBranch = main\n');
  env = { ...process.env, GIT_CONFIG_GLOBAL: gitconfig, GIT_CONFIG_NOSYSTEM: '1' };
  git(repo, 'init', '-q');
  write(join(repo, '.gitignore'), '*.log\n');
  write(join(repo, 'a.txt'), 'one\ntwo\nthree\n');
  write(join(repo, 'shared.txt'), 'line 1\nline 2\nline 3\nline 4\nline 5\n');
  write(join(repo, 'gone.txt'), 'to be deleted\n');
  write(join(repo, 'sub', 'b.txt'), 'bee\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'base');
  service = new WorktreeService({ dataDir, env });
});

afterEach(() => {
  service.close();
  rmSync(root, { recursive: true, force: true });
});

describe('snapshots', () => {
  it('see an edit of the same size made in the second the index was written (racy git)', async () => {
    const made = await service.create({ folder: repo, name: 'racy', carry: false });
    // Same size as 'one\ntwo\nthree\n', written at once after the checkout wrote the index.
    writeFileSync(join(made.path, 'a.txt'), 'one\nTWO\nthree\n');
    // Looked at a second later: a copy of the index with a time of its own would trust the old stat.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const status = await service.status('racy');
    expect(status.uncommitted).toBe(true);
    expect(status.files.map((f) => f.path)).toEqual(['a.txt']);
  });
});

describe('folder trust', () => {
  it('a worktree is trusted in what its folder is trusted in now, entry by entry and digest by digest; removing it forgets it', async () => {
    const trust = new TrustStore(dataDir);
    trust.trust(repo, [{ key: 'mcp:server', digest: 'sha-shown' }]);
    const made = await service.create({ folder: repo, name: 'trusted', carry: false });
    const seen = new TrustStore(dataDir);
    expect(seen.isTrusted(made.threadFolder, { key: 'mcp:server', digest: 'sha-shown' })).toBe(true);
    // Another content there is not what the person trusted.
    expect(seen.isTrusted(made.threadFolder, { key: 'mcp:server', digest: 'sha-other' })).toBe(false);
    seen.close();
    await service.remove('trusted');
    const after = new TrustStore(dataDir);
    expect(after.isTrusted(made.threadFolder, { key: 'mcp:server', digest: 'sha-shown' })).toBe(false);
    expect(after.isTrusted(repo, { key: 'mcp:server', digest: 'sha-shown' })).toBe(true);
    after.close();
    trust.close();
  });
});

describe('folder trust, revoked', () => {
  it('a revoke in the folder reaches its worktrees at once, trust given there directly included; trusting the folder again reaches them too', async () => {
    const trust = new TrustStore(dataDir);
    trust.trust(repo, [{ key: 'hook:a', digest: 'sha-a' }]);
    const made = await service.create({ folder: repo, name: 'follows', carry: false });
    trust.trust(made.threadFolder, [{ key: 'hook:b', digest: 'sha-b' }]);
    const other = new TrustStore(dataDir);
    expect(other.isTrusted(made.threadFolder, { key: 'hook:a', digest: 'sha-a' })).toBe(true);
    expect(other.revoke(repo)).toBe(true);
    other.close();
    const seen = new TrustStore(dataDir);
    expect(seen.isTrusted(made.threadFolder, { key: 'hook:a', digest: 'sha-a' })).toBe(false);
    expect(seen.isTrusted(made.threadFolder, { key: 'hook:b', digest: 'sha-b' })).toBe(false);
    seen.trust(repo, [{ key: 'hook:c', digest: 'sha-c' }]);
    expect(trust.isTrusted(made.threadFolder, { key: 'hook:c', digest: 'sha-c' })).toBe(true);
    seen.close();
    trust.close();
  });
});

describe('making a worktree', () => {
  it('makes <data-dir>/worktrees/NAME on deepdesk/NAME from HEAD, carrying changes and untracked files over without touching the index', async () => {
    write(join(repo, 'a.txt'), 'one\nTWO\nthree\n');
    write(join(repo, 'new.txt'), 'untracked\n');
    write(join(repo, 'debug.log'), 'ignored\n');
    write(join(repo, 'sub', 'b.txt'), 'bee staged\n');
    git(repo, 'add', 'sub/b.txt');
    const before = personState();

    const made = await service.create({ folder: join(repo, 'sub'), name: 'carry-1', carry: true });
    expect(made).toMatchObject({ name: 'carry-1', branch: 'deepdesk/carry-1', baseCommit: git(repo, 'rev-parse', 'HEAD').trim(), carried: 3 });
    expect(made.path).toBe(join(realpathSync(dataDir), 'worktrees', 'carry-1'));
    expect(made.threadFolder).toBe(join(made.path, 'sub'));
    expect(personState()).toBe(before);

    expect(readFileSync(join(made.path, 'a.txt'), 'utf8')).toBe('one\nTWO\nthree\n');
    expect(readFileSync(join(made.path, 'sub', 'b.txt'), 'utf8')).toBe('bee staged\n');
    expect(existsSync(join(made.path, 'debug.log'))).toBe(false);
    // Uncommitted there too: the index is at HEAD, the changes in the working tree.
    expect(git(made.path, 'diff', '--cached', '--name-only')).toBe('');
    expect(git(made.path, 'status', '--porcelain=v1', '-uall').split('\n').filter(Boolean).sort()).toEqual([' M a.txt', ' M sub/b.txt', '?? new.txt']);
    expect(git(made.path, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('deepdesk/carry-1');

    expect(service.byFolder(join(made.threadFolder))?.name).toBe('carry-1');
    expect(service.byFolder(repo)).toBeUndefined();
    expect(service.list()).toEqual([expect.objectContaining({ name: 'carry-1', originFolder: join(repo, 'sub'), subdir: 'sub', exists: true })]);
    const status = await service.status('carry-1');
    expect(status).toMatchObject({ ahead: 0, uncommitted: true, uncommittedFiles: 3, counts: { added: 1, modified: 2, deleted: 0 }, applied: false });
    expect(status.files.find((f) => f.path === 'a.txt')).toEqual({ path: 'a.txt', kind: 'modified', additions: 1, deletions: 1 });
    const { diff } = await service.diff('carry-1');
    expect(diff).toContain('+++ b/new.txt');
    expect(diff).toContain('+TWO');
  });

  it('without carry the worktree is clean, and the folder says how much it would have carried', async () => {
    write(join(repo, 'a.txt'), 'changed\n');
    write(join(repo, 'loose.txt'), 'untracked\n');
    expect(await service.uncommittedChanges(repo)).toBe(2);
    const made = await service.create({ folder: repo, carry: false });
    expect(made.carried).toBe(0);
    expect(made.name).toMatch(/^wt-[a-z0-9]{5}$/);
    expect(made.threadFolder).toBe(made.path);
    expect(git(made.path, 'status', '--porcelain')).toBe('');
    expect(readFileSync(join(made.path, 'a.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
  });

  it('refuses bad names, taken names and branches, and folders that cannot have worktrees, leaving nothing made', async () => {
    for (const bad of ['Upper', '-dash', '.dot', 'a b', 'a/b', 'a..b', 'x.lock', 'x.', 'x'.repeat(64), '']) {
      expect(nameProblem(bad), bad).toBeDefined();
      expect((await refusal(service.create({ folder: repo, name: bad, carry: false }))).code).toBe('bad_name');
    }
    for (const good of ['a', 'fix-parser', 'v1.2_x', 'x'.repeat(63)]) expect(nameProblem(good), good).toBeUndefined();
    expect(generateName('Please fix the flaky parser test')).toMatch(/^fix-flaky-[a-z0-9]{4}$/);

    await service.create({ folder: repo, name: 'one', carry: false });
    const taken = await refusal(service.create({ folder: repo, name: 'one', carry: false }));
    expect(taken.code).toBe('taken');
    expect(taken.message).toContain('a worktree named one exists already');
    expect(existsSync(join(dataDir, 'worktrees', 'one', 'a.txt'))).toBe(true);

    git(repo, 'branch', 'deepdesk/two');
    const branch = await refusal(service.create({ folder: repo, name: 'two', carry: false }));
    expect(branch).toMatchObject({ code: 'taken', message: expect.stringContaining('the branch deepdesk/two exists already') });
    expect(existsSync(join(dataDir, 'worktrees', 'two'))).toBe(false);
    expect(service.list().map((w) => w.name)).toEqual(['one']);

    const plain = join(root, 'plain');
    mkdirSync(plain);
    expect(await refusal(service.create({ folder: plain, carry: false }))).toMatchObject({ code: 'not_git', message: expect.stringContaining('worktrees need a local git repository') });
    expect(await refusal(service.create({ folder: 'ssh://host/srv/project', carry: false }))).toMatchObject({ code: 'not_git', message: expect.stringContaining('worktrees need a local git repository') });
  });

  it('a failure while making it leaves no folder, branch or record behind', async () => {
    // The person's folder `x` is a folder now, a file at HEAD: the worktree cannot have it as a folder.
    write(join(repo, 'x'), 'a file\n');
    git(repo, 'add', 'x');
    git(repo, 'commit', '-q', '-m', 'x is a file');
    rmSync(join(repo, 'x'));
    mkdirSync(join(repo, 'x'));
    expect((await refusal(service.create({ folder: join(repo, 'x'), name: 'cut', carry: false }))).message).toMatch(/^making the worktree: EEXIST/);
    expect(existsSync(join(dataDir, 'worktrees', 'cut'))).toBe(false);
    expect(git(repo, 'branch', '--list', 'deepdesk/*')).toBe('');
    expect(git(repo, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
    expect(service.list()).toEqual([]);

    const controller = new AbortController();
    controller.abort();
    expect((await refusal(service.create({ folder: repo, name: 'cut', carry: false, signal: controller.signal }))).code).toBe('cancelled');
    expect(service.list()).toEqual([]);
  });
});

describe('Apply to folder', () => {
  it('is a step of the worktree’s thread in the folder: the lines it brings are the thread’s (SPEC §24)', async () => {
    const made = await service.create({ folder: repo, name: 'attributed', carry: false });
    const db = openDatabase(databasePath(dataDir));
    new ThreadStore(db).save(newThreadState('wt-thread'), { folder: made.threadFolder });
    db.close();
    const store = CheckpointStore.open(dataDir);
    try {
      await recorderFor(store, made.threadFolder).step({ threadId: 'wt-thread', messageIndex: 0, messageLine: 'go', tool: 'write_file', model: 'model-w' }, ['added.txt'], async () =>
        write(join(made.threadFolder, 'added.txt'), 'from the agent\nand more\n'),
      );
      write(join(repo, 'a.txt'), 'one\ntwo\nthree\nmine\n');
      expect((await service.apply('attributed')).conflicts).toEqual([]);
      const authors = (rel: string) => lineAuthors(store, repo, rel, readFileSync(join(repo, rel))).map((a) => `${a.kind} ${a.thread ?? ''} ${a.model ?? ''}`.trim());
      expect(authors('added.txt')).toEqual(['agent wt-thread model-w', 'agent wt-thread model-w']);
      // The person's edit was there before Deepdesk first looked at the folder (the Apply's step did).
      expect(authors('a.txt')).toEqual(['unknown', 'unknown', 'unknown', 'unknown']);
    } finally {
      store.close();
    }
  });

  it('merges commits and uncommitted work into the working tree only, keeping the person’s own edits and their prior state', async () => {
    const wt = (await service.create({ folder: repo, name: 'work', carry: false })).path;
    write(join(wt, 'shared.txt'), 'line 1\nline 2 (agent)\nline 3\nline 4\nline 5\n');
    git(wt, 'commit', '-q', '-am', 'agent commit');
    write(join(wt, 'added.txt'), 'from the agent\n');
    rmSync(join(wt, 'gone.txt'));
    // The person's own uncommitted work: another part of the same file, and another file.
    write(join(repo, 'shared.txt'), 'line 1\nline 2\nline 3\nline 4\nline 5 (person)\n');
    write(join(repo, 'a.txt'), 'mine\n');
    const head = git(repo, 'rev-parse', 'HEAD');

    const result = await service.apply('work');
    expect(result.conflicts).toEqual([]);
    expect(result.applied.sort()).toEqual(['added.txt', 'gone.txt', 'shared.txt']);
    expect(readFileSync(join(repo, 'shared.txt'), 'utf8')).toBe('line 1\nline 2 (agent)\nline 3\nline 4\nline 5 (person)\n');
    expect(readFileSync(join(repo, 'added.txt'), 'utf8')).toBe('from the agent\n');
    expect(existsSync(join(repo, 'gone.txt'))).toBe(false);
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('mine\n');
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(repo, 'diff', '--cached', '--name-only')).toBe('');
    // The folder as it was is kept.
    expect(result.savedRef).toMatch(/^refs\/deepdesk\/before-apply\/work\/\d{8}T\d{9}Z$/);
    expect(git(repo, 'show', `${result.savedRef}:shared.txt`)).toBe('line 1\nline 2\nline 3\nline 4\nline 5 (person)\n');
    expect(git(repo, 'show', `${result.savedRef}:a.txt`)).toBe('mine\n');

    expect((await service.status('work')).applied).toBe(true);
    // Applied: nothing would be lost.
    expect(await service.remove('work')).toEqual({ removed: true, branchDeleted: false, keptThreads: [] });
    expect(existsSync(wt)).toBe(false);
  });

  it('refuses, naming it, a repository with no commit the agent made in the worktree, and changes nothing', async () => {
    const wt = (await service.create({ folder: repo, name: 'nested', carry: false })).path;
    write(join(wt, 'added.txt'), 'from the agent\n');
    git(wt, 'init', '-q', 'empty');
    const before = personState();
    const err = await service.apply('nested').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorktreeError);
    expect((err as WorktreeError).message).toContain('empty/ is a git repository with no commit');
    expect(existsSync(join(repo, 'added.txt'))).toBe(false);
    expect(personState()).toBe(before);
    expect(git(repo, 'for-each-ref', 'refs/deepdesk/')).toBe('');
  });

  it('on a conflict lists it and changes nothing', async () => {
    const wt = (await service.create({ folder: repo, name: 'clash', carry: false })).path;
    write(join(wt, 'a.txt'), 'one\nagent\nthree\n');
    write(join(wt, 'other.txt'), 'agent file\n');
    write(join(repo, 'a.txt'), 'one\nperson\nthree\n');
    write(join(repo, 'sub', 'b.txt'), 'person edit\n');
    const before = personState();
    const files = () => [readFileSync(join(repo, 'a.txt'), 'utf8'), readFileSync(join(repo, 'sub', 'b.txt'), 'utf8'), existsSync(join(repo, 'other.txt'))];
    const contents = files();

    const result = await service.apply('clash');
    expect(result).toMatchObject({ applied: [], conflicts: ['a.txt'] });
    // The conflicting lines of both sides, with the lines around them, as git's conflict view shows them.
    expect(result.details).toEqual([{ path: 'a.txt', notes: [], truncated: false, hunks: [{ line: 2, before: ['one'], folder: ['person'], worktree: ['agent'], after: ['three'] }] }]);
    expect(files()).toEqual(contents);
    expect(personState()).toBe(before);
    expect(git(repo, 'for-each-ref', 'refs/deepdesk/')).toBe('');
  });

  it('names the sides of a conflict that has no lines (deleted on one side, changed on the other)', async () => {
    const wt = (await service.create({ folder: repo, name: 'gone-here', carry: false })).path;
    write(join(wt, 'gone.txt'), 'the agent kept it\n');
    rmSync(join(repo, 'gone.txt'));
    const result = await service.apply('gone-here');
    expect(result.conflicts).toEqual(['gone.txt']);
    expect(result.details![0]!.hunks).toEqual([]);
    expect(result.details![0]!.notes).toEqual([expect.stringMatching(/^gone\.txt deleted in your folder and modified in worktree gone-here\./)]);
  });

  it('Ask the agent to resolve: takes the folder in with conflict markers, refuses to apply them, then applies the resolution from the folder’s state', async () => {
    const wt = (await service.create({ folder: repo, name: 'resolve', carry: false })).path;
    write(join(wt, 'a.txt'), 'one\nagent\nthree\n');
    write(join(wt, 'agent-only.txt'), 'agent file\n');
    write(join(repo, 'a.txt'), 'one\nperson\nthree\n');
    write(join(repo, 'shared.txt'), 'line 1 (person)\nline 2\nline 3\nline 4\nline 5\n');
    const before = personState();

    const taken = await service.mergeFolderIn('resolve');
    expect(taken.conflicts.map((c) => c.path)).toEqual(['a.txt']);
    expect(taken.changed.sort()).toEqual(['a.txt', 'shared.txt']);
    expect(personState()).toBe(before);
    // The worktree has the folder's work too, and git's markers where the two conflict.
    const marked = readFileSync(join(wt, 'a.txt'), 'utf8');
    expect(marked).toMatch(/^one\n<<<<<<< \w+\nperson\n=======\nagent\n>>>>>>> \w+\nthree\n$/);
    expect(readFileSync(join(wt, 'shared.txt'), 'utf8')).toBe('line 1 (person)\nline 2\nline 3\nline 4\nline 5\n');
    expect(readFileSync(join(wt, 'agent-only.txt'), 'utf8')).toBe('agent file\n');
    // Its changes are counted from the folder's state now: the agent's own.
    expect((await service.status('resolve')).files.map((f) => f.path).sort()).toEqual(['a.txt', 'agent-only.txt']);

    // Markers left: nothing is applied.
    const early = await service.apply('resolve');
    expect(early).toMatchObject({ applied: [], conflicts: ['a.txt'] });
    expect(early.details![0]!.notes[0]).toMatch(/still holds the conflict markers/);
    expect(personState()).toBe(before);
    expect(git(repo, 'for-each-ref', 'refs/deepdesk/before-apply/')).toBe('');

    // The agent resolves; the person meanwhile changes another line of the folder.
    write(join(wt, 'a.txt'), 'one\nperson and agent\nthree\n');
    write(join(repo, 'shared.txt'), 'line 1 (person)\nline 2\nline 3\nline 4\nline 5 (later)\n');
    const applied = await service.apply('resolve');
    expect(applied.conflicts).toEqual([]);
    expect(applied.applied.sort()).toEqual(['a.txt', 'agent-only.txt']);
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('one\nperson and agent\nthree\n');
    expect(readFileSync(join(repo, 'shared.txt'), 'utf8')).toBe('line 1 (person)\nline 2\nline 3\nline 4\nline 5 (later)\n');
    expect(git(repo, 'for-each-ref', '--format=%(refname)', 'refs/deepdesk/folder-state/')).toBe('refs/deepdesk/folder-state/resolve\n');
    expect(await service.remove('resolve')).toMatchObject({ removed: true });
    expect(git(repo, 'for-each-ref', 'refs/deepdesk/folder-state/')).toBe('');
  });

  it('fails cleanly when a file it touches changes between the snapshot and the apply; other files are the person’s to change', async () => {
    const wt = (await service.create({ folder: repo, name: 'race', carry: false })).path;
    write(join(wt, 'shared.txt'), 'line 1 (agent)\nline 2\nline 3\nline 4\nline 5\n');
    const runner = new GitRunner(env);
    const plan = await planApply(runner, { name: 'race', worktree: wt, repoRoot: repo });
    try {
      // Far enough from the agent's line for the patch to still apply: only reading it again sees it.
      write(join(repo, 'shared.txt'), 'line 1\nline 2\nline 3\nline 4\nline 5 (typed meanwhile)\n');
      const err = await refusal(carryOut(runner, plan));
      expect(err.code).toBe('changed');
      expect(err.message).toMatch(/changed .*nothing was changed — try again/);
    } finally {
      plan.dispose();
    }
    expect(readFileSync(join(repo, 'shared.txt'), 'utf8')).toBe('line 1\nline 2\nline 3\nline 4\nline 5 (typed meanwhile)\n');
    expect(git(repo, 'for-each-ref', 'refs/deepdesk/')).toBe('');

    // Asked again it goes; a file it does not touch, changed meanwhile, is left as the person made it.
    const again = await planApply(runner, { name: 'race', worktree: wt, repoRoot: repo });
    try {
      write(join(repo, 'sub', 'b.txt'), 'typed meanwhile\n');
      expect((await carryOut(runner, again)).applied).toEqual(['shared.txt']);
    } finally {
      again.dispose();
    }
    expect(readFileSync(join(repo, 'shared.txt'), 'utf8')).toBe('line 1 (agent)\nline 2\nline 3\nline 4\nline 5 (typed meanwhile)\n');
    expect(readFileSync(join(repo, 'sub', 'b.txt'), 'utf8')).toBe('typed meanwhile\n');
  });

  it('with nothing uncommitted on either side merges the two HEADs: the folder’s HEAD is what is kept; a conflict changes nothing; dirty files are kept', async () => {
    const wt = (await service.create({ folder: repo, name: 'committed', carry: false })).path;
    write(join(wt, 'a.txt'), 'one\ntwo (agent)\nthree\n');
    git(wt, 'commit', '-q', '-am', 'agent commit');
    // The person's branch moved on meanwhile; their folder is clean.
    write(join(repo, 'sub', 'b.txt'), 'bee (person)\n');
    git(repo, 'commit', '-q', '-am', 'person commit');
    const head = git(repo, 'rev-parse', 'HEAD').trim();

    const result = await service.apply('committed');
    expect(result).toMatchObject({ applied: ['a.txt'], conflicts: [] });
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('one\ntwo (agent)\nthree\n');
    expect(readFileSync(join(repo, 'sub', 'b.txt'), 'utf8')).toBe('bee (person)\n');
    expect(git(repo, 'rev-parse', result.savedRef!).trim()).toBe(head);
    expect(git(repo, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(git(repo, 'diff', '--cached', '--name-only')).toBe('');
    expect(git(repo, 'status', '--porcelain')).toBe(' M a.txt\n');

    // A committed change against the person's committed one: listed, nothing changed.
    git(repo, 'checkout', '-q', '--', 'a.txt');
    const clash = (await service.create({ folder: repo, name: 'clash-committed', carry: false })).path;
    write(join(clash, 'sub', 'b.txt'), 'bee (agent)\n');
    git(clash, 'commit', '-q', '-am', 'agent commit');
    write(join(repo, 'sub', 'b.txt'), 'bee (person again)\n');
    git(repo, 'commit', '-q', '-am', 'person commit again');
    const before = personState();
    expect(await service.apply('clash-committed')).toMatchObject({ applied: [], conflicts: ['sub/b.txt'] });
    expect(personState()).toBe(before);
    expect(git(repo, 'for-each-ref', 'refs/deepdesk/before-apply/')).toContain(result.savedRef!);
    expect(git(repo, 'for-each-ref', 'refs/deepdesk/before-apply/clash-committed/')).toBe('');

    // A dirty file and an untracked one in the folder, the worktree's work committed: both kept, and kept in the saved ref.
    write(join(repo, 'shared.txt'), 'line 1\nline 2\nline 3\nline 4\nline 5 (person, uncommitted)\n');
    write(join(repo, 'mine.txt'), 'untracked\n');
    const again = await service.apply('committed');
    expect(again).toMatchObject({ applied: ['a.txt'], conflicts: [] });
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('one\ntwo (agent)\nthree\n');
    expect(readFileSync(join(repo, 'shared.txt'), 'utf8')).toBe('line 1\nline 2\nline 3\nline 4\nline 5 (person, uncommitted)\n');
    expect(readFileSync(join(repo, 'mine.txt'), 'utf8')).toBe('untracked\n');
    expect(git(repo, 'show', `${again.savedRef!}:shared.txt`)).toBe('line 1\nline 2\nline 3\nline 4\nline 5 (person, uncommitted)\n');
    expect(git(repo, 'show', `${again.savedRef!}:mine.txt`)).toBe('untracked\n');
    expect(git(repo, 'show', `${again.savedRef!}:a.txt`)).toBe('one\ntwo\nthree\n');
  });
});

describe('Apply to folder: the snapshots', () => {
  /** Puts `index`'s times at `file`'s: git cannot trust the stat of a file written in its index's second, and reads it again. */
  function racy(index: string, file: string): void {
    const { mtime } = statSync(file);
    utimesSync(index, mtime, mtime);
  }

  it('sees edits of the same size made in the second each index was written, on both sides: neither is lost; the untracked file is kept and saved', async () => {
    const wt = (await service.create({ folder: repo, name: 'racy-apply', carry: false })).path;
    write(join(wt, 'shared.txt'), 'LINE 1\nline 2\nline 3\nline 4\nline 5\n');
    git(wt, 'commit', '-q', '-am', 'agent commit');
    // The agent's uncommitted edit, the same size, in the second of the worktree's index.
    write(join(wt, 'a.txt'), 'one\nTWO\nthree\n');
    racy(git(wt, 'rev-parse', '--path-format=absolute', '--git-path', 'index').trim(), join(wt, 'a.txt'));
    // The person's branch moved on; then, just before Apply, an edit of the same size in the second of their index, and a new file.
    write(join(repo, 'sub', 'b.txt'), 'bee (person)\n');
    git(repo, 'commit', '-q', '-am', 'person commit');
    write(join(repo, 'shared.txt'), 'line 1\nline 2\nline 3\nline 4\nLINE 5\n');
    racy(join(repo, '.git', 'index'), join(repo, 'shared.txt'));
    write(join(repo, 'mine.txt'), 'untracked\n');
    const head = git(repo, 'rev-parse', 'HEAD');

    const result = await service.apply('racy-apply');
    expect(result.conflicts).toEqual([]);
    expect(result.applied.sort()).toEqual(['a.txt', 'shared.txt']);
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('one\nTWO\nthree\n');
    expect(readFileSync(join(repo, 'shared.txt'), 'utf8')).toBe('LINE 1\nline 2\nline 3\nline 4\nLINE 5\n');
    expect(readFileSync(join(repo, 'mine.txt'), 'utf8')).toBe('untracked\n');
    expect(readFileSync(join(repo, 'sub', 'b.txt'), 'utf8')).toBe('bee (person)\n');
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(head);
    // The folder as it was: the person's last edit and their untracked file in it.
    expect(git(repo, 'show', `${result.savedRef!}:a.txt`)).toBe('one\ntwo\nthree\n');
    expect(git(repo, 'show', `${result.savedRef!}:mine.txt`)).toBe('untracked\n');
    expect(git(repo, 'show', `${result.savedRef!}:shared.txt`)).toBe('line 1\nline 2\nline 3\nline 4\nLINE 5\n');
  });

  it('a clean folder whose files git reads again is its HEAD: kept as that commit, the worktree’s change applied', async () => {
    const wt = (await service.create({ folder: repo, name: 'clean-racy', carry: false })).path;
    write(join(wt, 'sub', 'b.txt'), 'bee (agent)\n');
    git(wt, 'commit', '-q', '-am', 'agent commit');
    racy(git(wt, 'rev-parse', '--path-format=absolute', '--git-path', 'index').trim(), join(wt, 'sub', 'b.txt'));
    racy(join(repo, '.git', 'index'), join(repo, 'a.txt'));
    const head = git(repo, 'rev-parse', 'HEAD').trim();
    const result = await service.apply('clean-racy');
    expect(result).toMatchObject({ applied: ['sub/b.txt'], conflicts: [] });
    expect(git(repo, 'rev-parse', result.savedRef!).trim()).toBe(head);
    expect(readFileSync(join(repo, 'sub', 'b.txt'), 'utf8')).toBe('bee (agent)\n');
    expect(git(repo, 'status', '--porcelain')).toBe(' M sub/b.txt\n');
  });
});

describe('Commit… and Remove worktree', () => {
  it('commits everything on the worktree branch as the person; says when there is nothing or no identity', async () => {
    const wt = (await service.create({ folder: repo, name: 'commits', carry: false })).path;
    write(join(wt, 'a.txt'), 'committed\n');
    write(join(wt, 'fresh.txt'), 'new\n');
    const made = await service.commit('commits', 'Agent work');
    expect(made.files).toBe(2);
    expect(git(wt, 'log', '-1', '--format=%an <%ae>|%s|%D')).toBe(`Pat Person <pat@example.com>|Agent work|HEAD -> deepdesk/commits\n`);
    expect(made.commit).toBe(git(wt, 'rev-parse', 'HEAD').trim());
    expect(await service.status('commits')).toMatchObject({ ahead: 1, uncommitted: false, currentBranch: 'deepdesk/commits' });
    expect((await refusal(service.commit('commits', 'again'))).code).toBe('nothing_to_commit');
    // Trailers only when chosen (Settings › Provenance), Assisted-by with the thread's model, never Co-authored-by.
    expect(git(wt, 'log', '-1', '--format=%B')).toBe('Agent work\n\n');
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ provenance: { trailer: true } }));
    write(join(wt, 'a.txt'), 'again\n');
    await service.commit('commits', 'With a trailer');
    expect(git(wt, 'log', '-1', '--format=%B')).toBe('With a trailer\n\nAssisted-by: Deepdesk:unknown\n\n');

    const anonymous = new WorktreeService({ dataDir, env: { ...env, GIT_CONFIG_GLOBAL: '/dev/null' } });
    try {
      write(join(wt, 'a.txt'), 'more\n');
      const err = await refusal(anonymous.commit('commits', 'who?'));
      expect(err.code).toBe('no_identity');
      expect(err.message).toContain('git config user.name');
    } finally {
      anonymous.close();
    }
  });

  it('refuses to remove unapplied work, saying what would be lost; --force removes it and its branch', async () => {
    const wt = (await service.create({ folder: repo, name: 'keep', carry: false })).path;
    write(join(wt, 'a.txt'), 'agent a\n');
    git(wt, 'commit', '-q', '-am', 'one');
    write(join(wt, 'shared.txt'), 'agent shared\n');
    write(join(wt, 'loose.txt'), 'untracked\n');
    expect(await service.remove('keep')).toEqual({ removed: false, lost: '3 changed files not applied, 2 uncommitted', branchDeleted: false });
    expect(existsSync(wt)).toBe(true);
    // A run going in it (in any process sharing the data folder) keeps it, forced or not.
    const db = openDatabase(databasePath(dataDir));
    const runs = new RunRecords(db);
    runs.start('thread-in-keep', wt, process.pid);
    const busy = await refusal(service.remove('keep', { force: true }));
    expect(busy.code).toBe('busy');
    expect(busy.message).toMatch(/thread thread-in-keep.*stop it first/);
    runs.end('thread-in-keep', 'done');
    db.close();
    expect(await service.remove('keep', { force: true })).toEqual({ removed: true, branchDeleted: true, keptThreads: [] });
    expect(existsSync(wt)).toBe(false);
    expect(git(repo, 'branch', '--list', 'deepdesk/*')).toBe('');
    expect(git(repo, 'worktree', 'list')).not.toContain(wt);
    expect(service.list()).toEqual([]);
  });

  it('a worktree whose folder the person deleted is pruned', async () => {
    const wt = (await service.create({ folder: repo, name: 'deleted', carry: false })).path;
    rmSync(wt, { recursive: true, force: true });
    expect(service.list()[0]).toMatchObject({ name: 'deleted', exists: false });
    expect((await refusal(service.status('deleted'))).code).toBe('not_found');
    expect(await service.remove('deleted')).toEqual({ removed: true, branchDeleted: true, keptThreads: [] });
    expect(git(repo, 'worktree', 'list')).not.toContain(wt);
    expect(service.list()).toEqual([]);
  });

  it('keeps its threads: moved to the folder it was made from, marked, found by search, told; its checkpoints and recent entry go', async () => {
    const made = await service.create({ folder: repo, name: 'review', carry: false });
    const db = openDatabase(databasePath(dataDir));
    const threads = new ThreadStore(db);
    const state = newThreadState('thread-in-review');
    state.messages.push({ role: 'user', content: 'Review the parser' }, { role: 'assistant', content: 'The subagent found a flaky assertion.' });
    threads.save(state, { folder: made.threadFolder });
    threads.save(newThreadState('thread-elsewhere'), { folder: repo });
    const runs = new RunRecords(db);
    runs.start('thread-in-review', made.threadFolder, process.pid);
    runs.end('thread-in-review', 'done');
    const checkpoints = CheckpointStore.open(dataDir);
    checkpoints.commit({ folder: made.threadFolder, blobs: new Map(), manifest: new Map(), checkpoints: [{ folder: made.threadFolder, threadId: 'thread-in-review', messageIndex: 0, messageLine: 'Review', kind: 'agent', changes: [{ path: 'a.txt', before: null, after: null }] }] });
    expect(checkpoints.checkpointsOfThread('thread-in-review')).toHaveLength(1);
    const recent = new RecentFolders(dataDir);
    recent.remember(repo);
    recent.remember(made.threadFolder);

    const removed = await service.remove('review');
    expect(removed).toEqual({ removed: true, branchDeleted: true, keptThreads: ['thread-in-review'] });
    expect(threads.get('thread-in-review')).toMatchObject({ folder: repo, removedWorktree: { name: 'review', branch: 'deepdesk/review' } });
    expect(threads.get('thread-elsewhere')!.removedWorktree).toBeUndefined();
    expect(threads.search(repo, 'flaky').map((m) => m.threadId)).toEqual(['thread-in-review']);
    expect(threads.load('thread-in-review').messages).toHaveLength(2);
    expect(threads.pendingNotes('thread-in-review')).toEqual([
      expect.objectContaining({ kind: 'worktree', display: 'Worktree review was removed: this thread continues in project.', text: expect.stringContaining(`works in the person's folder ${repo} itself`) }),
    ]);
    expect(runs.get('thread-in-review')!.folder).toBe(repo);
    expect(checkpoints.checkpointsOfThread('thread-in-review')).toEqual([]);
    expect(recent.list().map((f) => f.path)).toEqual([repo]);
    // Saved again by a window that still had the old list: a removed worktree is not offered.
    const stale = new RecentFolders(dataDir);
    stale.remember(made.threadFolder);
    expect(stale.list().map((f) => f.path)).toEqual([repo]);
    stale.close();
    recent.close();
    checkpoints.close();
    db.close();
  });
});
