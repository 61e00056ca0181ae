// Git worktrees for threads (SPEC §16): a thread can work in a worktree of the person's
// folder, a folder of its own at `<data-dir>/worktrees/<name>` on a branch `deepdesk/<name>`
// made from the folder's HEAD, so parallel agents never trample each other's files. A thread
// in a worktree is simply a thread whose folder is the worktree's thread folder.
//
// Every git call goes through the one runner (core/git/run-git): no repository hook runs, no
// prompt, never a shell. What is made is recorded in the data folder's database
// (worktree-store.ts); a failure while making one leaves nothing behind. Removing one keeps its
// threads: they move to the folder it was made from (thread-store.ts), told so.

import { existsSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import type Database from 'better-sqlite3';
import { openDatabase } from '../../core/backends/store/store-db';
import { CheckpointStore } from '../../core/checkpoints/store';
import { recorderFor } from '../../core/checkpoints/recorder';
import { databasePath } from '../base/data-dir';
import { RecentFolders } from '../places/recent-folders';
import { provenanceFor, readSavedSettings } from '../settings/settings-service';
import { ThreadStore } from '../threads/thread-store';
import { carryOut, dropRef, moveWorkingTree, planApply, type ApplyPlan } from './apply-to-folder';
import { changesBetween, unifiedDiff, type ChangedFile, type ChangeKind } from './changes';
import { conflictDetails, unresolvedConflicts, type ConflictedFile } from './conflicts';
import { changedPaths, forgetIndexPath, snapshotTreeOnly } from './snapshot';
import { BRANCH_PREFIX, generateName, nameProblem } from './worktree-names';
import { GitRunner, LONG_TIMEOUT_MS, WorktreeError } from './worktree-git';
import { WorktreeStore, type WorktreeRecord } from './worktree-store';
import { RunRecords } from '../threads/run-records';
import { TrustStore } from '../../core/trust/store';
import { isPathInside } from '../../core/fs/path-inside';

export { WorktreeError } from './worktree-git';
export type { WorktreeRecord } from './worktree-store';
export type { ChangedFile, ChangeKind } from './changes';
export type { ConflictedFile } from './conflicts';
export { changeCountsText } from './changes';

export interface WorktreeServiceOptions {
  dataDir: string;
  /** Where the records are kept (default: the data folder's database, opened here and closed by close()). */
  db?: Database.Database;
  /** The environment git runs in (default: process.env): the person's git configuration applies. */
  env?: NodeJS.ProcessEnv;
}

export interface CreateWorktreeOptions {
  /** The person's folder: a local folder in a git repository (its top or a folder inside it). */
  folder: string;
  /** The worktree's name (see nameProblem); made up when not given. */
  name?: string;
  /** Words to make the name from when none is given (e.g. the prompt): `fix-parser-k3x9`. */
  nameHint?: string;
  /** Carry the folder's uncommitted changes (untracked files not ignored included) over, as uncommitted changes. */
  carry: boolean;
  signal?: AbortSignal;
}

export interface CreatedWorktree {
  name: string;
  /** The worktree's folder. */
  path: string;
  /** The folder a thread in it works in: `path`, or the same subfolder of it as `folder` is of its repository. */
  threadFolder: string;
  branch: string;
  baseCommit: string;
  /** How many changed files were carried over (0 without `carry`). */
  carried: number;
}

export interface WorktreeListing extends WorktreeRecord {
  /** Whether its folder is still there (the person may have deleted it). */
  exists: boolean;
}

export interface WorktreeStatus {
  name: string;
  path: string;
  threadFolder: string;
  /** The branch it was made on, `deepdesk/<name>`. */
  branch: string;
  /** The branch checked out in it now (null when detached); normally `branch`. */
  currentBranch: string | null;
  head: string;
  baseCommit: string;
  /** The folder's state it took in last (Ask the agent to resolve): its changes are counted from there. */
  sinceCommit: string | null;
  /** Commits on its branch since its base. */
  ahead: number;
  /** Whether its working state differs from its HEAD (untracked files not ignored included). */
  uncommitted: boolean;
  uncommittedFiles: number;
  /** Its changes against its base, working state included (at most 1,000 listed). */
  files: ChangedFile[];
  filesTotal: number;
  filesTruncated: boolean;
  counts: Record<ChangeKind, number>;
  /** Whether its working state is the one last applied to the person's folder. */
  applied: boolean;
  appliedAt: string | null;
}

export interface ApplyResult {
  /** The paths changed in the person's folder (empty on conflicts or when it had them all already). */
  applied: string[];
  /** Paths that do not merge (or still hold conflict markers); when any, nothing was applied. */
  conflicts: string[];
  /** What conflicts in each of them: the lines of both sides, or git's words. */
  details?: ConflictedFile[];
  /** The ref that keeps the person's folder as it was before (a commit of its working state). */
  savedRef?: string;
}

export interface CommitResult {
  commit: string;
  /** Files in the commit. */
  files: number;
}

export interface RemoveResult {
  removed: boolean;
  /** Why it was not removed: the work that would be lost, e.g. `3 changed files not applied, 2 uncommitted`. */
  lost?: string;
  branchDeleted: boolean;
  /** The threads that worked in it, now threads of the folder it was made from (when removed). */
  keptThreads?: string[];
}

export interface MergeFolderInResult {
  /** The worktree's files it changed. */
  changed: string[];
  /** The files that conflict: they hold git's conflict markers now, for the agent to resolve. */
  conflicts: ConflictedFile[];
}

const LISTED_FILES = 1_000;
const DIFF_BYTES = 4 * 1024 * 1024;

export class WorktreeService {
  private readonly git: GitRunner;
  private readonly store: WorktreeStore;
  private readonly runs: RunRecords;
  private readonly db: Database.Database;
  private readonly ownDb: Database.Database | undefined;

  constructor(private readonly options: WorktreeServiceOptions) {
    this.git = new GitRunner(options.env ?? process.env);
    this.ownDb = options.db === undefined ? openDatabase(databasePath(options.dataDir)) : undefined;
    this.db = options.db ?? this.ownDb!;
    this.store = new WorktreeStore(this.db);
    this.runs = new RunRecords(this.db);
  }

  /** Closes the database when the service opened it. */
  close(): void {
    this.ownDb?.close();
  }

  /** Makes a worktree of `folder`'s repository on a new branch from its HEAD; nothing is left half made. */
  async create(options: CreateWorktreeOptions): Promise<CreatedWorktree> {
    const { signal } = options;
    if (options.name !== undefined) {
      const problem = nameProblem(options.name);
      if (problem !== undefined) throw new WorktreeError(problem, 'bad_name');
    }
    const { top, folder, baseCommit } = await this.baseOf(options.folder, signal);
    await this.git.requireMergeTree(top);

    let carriedTree: string | undefined;
    let carried = 0;
    if (options.carry) {
      const [tree, headTree] = await Promise.all([snapshotTreeOnly(this.git, top, signal), this.treeOf(top, baseCommit, signal)]);
      if (tree !== headTree) {
        carriedTree = tree;
        carried = (await changedPaths(this.git, top, headTree, tree, signal)).length;
      }
    }

    const subdir = relative(top, folder).split(sep).join('/');
    const name = await this.reserve(options, { top, folder, subdir, baseCommit }, signal);
    const record = this.store.get(name)!;
    forgetIndexPath(record.path);
    try {
      await this.git.out(['worktree', 'add', '--quiet', '-b', record.branch, record.path, baseCommit], { cwd: top, signal, timeoutMs: LONG_TIMEOUT_MS }, 'making the worktree');
      if (carriedTree !== undefined) {
        // The carried state in the working tree, the index left at HEAD: uncommitted changes.
        await this.git.out(['read-tree', '-u', '--reset', carriedTree], { cwd: record.path, signal, timeoutMs: LONG_TIMEOUT_MS }, 'carrying the changes over');
        await this.git.out(['reset', '-q'], { cwd: record.path, signal, timeoutMs: LONG_TIMEOUT_MS }, 'carrying the changes over');
      }
      mkdirSync(record.threadFolder, { recursive: true });
      this.withTrust((trust) => trust.extendTo(options.folder, record.threadFolder));
    } catch (err) {
      await this.undoCreate(record);
      if (err instanceof WorktreeError) throw err;
      throw new WorktreeError(`making the worktree: ${err instanceof Error ? err.message : String(err)}`, 'failed');
    }
    return { name, path: record.path, threadFolder: record.threadFolder, branch: record.branch, baseCommit, carried };
  }

  /** Every worktree made, oldest first, and whether its folder is still there. */
  list(): WorktreeListing[] {
    return this.store.list().map((r) => ({ ...r, exists: existsSync(r.path) }));
  }

  get(name: string): WorktreeRecord | undefined {
    return this.store.get(name);
  }

  /** The worktree a (thread's) folder lies in, or undefined. */
  byFolder(folder: string): WorktreeRecord | undefined {
    const candidates = new Set([folder]);
    try {
      candidates.add(realpathSync(folder));
    } catch {
      // Gone: compared as it is.
    }
    return this.store.list().find((r) => [...candidates].some((f) => isPathInside(r.path, f)));
  }

  /**
   * How many files of `folder`'s repository differ from its HEAD (untracked files not ignored
   * included): what create() would carry over. Throws `not_git` for a folder that cannot have worktrees.
   */
  async uncommittedChanges(folder: string, signal?: AbortSignal): Promise<number> {
    const { top } = await this.repositoryOf(folder, signal);
    const [head, tree] = await Promise.all([this.git.run(['rev-parse', '--verify', '-q', 'HEAD^{tree}'], { cwd: top, signal }), snapshotTreeOnly(this.git, top, signal)]);
    if (head.code === 0) return (await changedPaths(this.git, top, head.stdout.trim(), tree, signal)).length;
    // No commit yet: every file is a change.
    return (await this.git.out(['ls-tree', '-r', '-z', '--name-only', tree], { cwd: top, signal }, 'listing files')).split('\0').filter(Boolean).length;
  }

  async status(name: string, signal?: AbortSignal): Promise<WorktreeStatus> {
    const record = this.present(name);
    const cwd = record.path;
    const [working, head, headTree, currentBranch, ahead] = await Promise.all([
      snapshotTreeOnly(this.git, cwd, signal),
      this.git.line(['rev-parse', '--verify', 'HEAD^{commit}'], { cwd, signal }, 'reading the worktree'),
      this.git.line(['rev-parse', '--verify', 'HEAD^{tree}'], { cwd, signal }, 'reading the worktree'),
      this.git.run(['symbolic-ref', '-q', '--short', 'HEAD'], { cwd, signal }),
      this.git.line(['rev-list', '--count', `${record.baseCommit}..HEAD`], { cwd, signal }, 'counting commits'),
    ]);
    const [changes, uncommitted] = await Promise.all([
      changesBetween(this.git, cwd, baseOf(record), working, { limit: LISTED_FILES, signal }),
      changedPaths(this.git, cwd, headTree, working, signal),
    ]);
    return {
      name,
      path: record.path,
      threadFolder: record.threadFolder,
      branch: record.branch,
      currentBranch: currentBranch.code === 0 ? currentBranch.stdout.trim() : null,
      head,
      baseCommit: record.baseCommit,
      sinceCommit: record.sinceCommit,
      ahead: Number(ahead),
      uncommitted: uncommitted.length > 0,
      uncommittedFiles: uncommitted.length,
      files: changes.files,
      filesTotal: changes.total,
      filesTruncated: changes.truncated,
      counts: changes.counts,
      applied: record.appliedTree === working,
      appliedAt: record.appliedAt,
    };
  }

  /** Its diff against its base: commits and working state (uncommitted and untracked files) together, at most 4 MB. */
  async diff(name: string, signal?: AbortSignal): Promise<{ diff: string; truncated: boolean }> {
    const record = this.present(name);
    const working = await snapshotTreeOnly(this.git, record.path, signal);
    return unifiedDiff(this.git, record.path, baseOf(record), working, { maxBytes: DIFF_BYTES, signal });
  }

  /**
   * `Apply to folder`: the worktree's changes merged into the person's working tree (three-way,
   * from its base, or from the folder's state it last took in). On conflicts nothing is
   * changed and they are listed with their lines; so are files still holding the conflict
   * markers mergeFolderIn left for the agent. Otherwise the folder's state before is kept
   * under `savedRef` and the merge result written to its working tree only (the index and
   * branch are left alone).
   */
  async apply(name: string, signal?: AbortSignal): Promise<ApplyResult> {
    const record = this.present(name);
    const plan = await this.plan(record, signal);
    try {
      if (plan.conflicts.length > 0) return { applied: [], conflicts: plan.conflicts, details: await this.conflictsOf(record, plan, signal) };
      const unresolved = await unresolvedConflicts(this.git, record.path, plan.worktreeTree, record.sinceConflicts, signal);
      if (unresolved.length > 0) {
        await plan.discard();
        return { applied: [], conflicts: unresolved.map((f) => f.path), details: unresolved };
      }
      const done = await this.asThreadStep(record, () => carryOut(this.git, plan, signal));
      this.store.setApplied(name, plan.worktreeTree);
      return { applied: done.applied, conflicts: [], ...(done.savedRef !== undefined ? { savedRef: done.savedRef } : {}) };
    } finally {
      plan.dispose();
    }
  }

  /**
   * `Ask the agent to resolve`: the person's folder as it is now taken into the worktree, for
   * the thread's agent to bring the two together. The worktree's files become the merge of
   * both (git's conflict markers where they conflict), and later applies merge from the
   * folder's state now, so what the agent makes of them applies cleanly where the person has
   * not changed the same lines again. The person's folder is not changed; refused while a
   * thread works in the worktree (its files would change under it).
   */
  async mergeFolderIn(name: string, signal?: AbortSignal): Promise<MergeFolderInResult> {
    const record = this.present(name);
    this.refuseWhileRunning(record);
    const plan = await this.plan(record, signal);
    try {
      const merged = plan.conflicted?.tree ?? plan.mergedTree!;
      const conflicts = plan.conflicts.length > 0 ? await this.conflictsOf(record, plan, signal) : [];
      await this.git.out(['update-ref', folderStateRef(name), plan.personCommit], { cwd: record.repoRoot, signal }, 'keeping your folder’s state');
      const changed = await moveWorkingTree(this.git, { cwd: record.path, snapshot: plan.worktreeSnapshot, to: merged, whose: `worktree ${name}` }, signal);
      this.store.setSince(name, plan.personCommit, plan.conflicts);
      return { changed, conflicts };
    } finally {
      await plan.discard();
    }
  }

  /** The model of the worktree's thread's latest step. */
  private threadModel(record: WorktreeRecord): string | undefined {
    const threadId = new ThreadStore(this.db).threadsIn(record.threadFolder)[0]?.id;
    if (threadId === undefined) return undefined;
    const checkpoints = CheckpointStore.open(this.options.dataDir);
    try {
      return checkpoints.threadModel(threadId);
    } finally {
      checkpoints.close();
    }
  }

  /** An Apply is a step of the worktree's thread in the person's folder: the lines it brings are the thread's (SPEC §24). */
  private async asThreadStep<T>(record: WorktreeRecord, apply: () => Promise<T>): Promise<T> {
    const threadId = new ThreadStore(this.db).threadsIn(record.threadFolder)[0]?.id;
    if (threadId === undefined) return apply();
    const checkpoints = CheckpointStore.open(this.options.dataDir);
    try {
      return (await recorderFor(checkpoints, record.originFolder).step({ threadId, messageIndex: null, messageLine: `Apply worktree ${record.name}`, tool: 'apply' }, 'all', apply)).result;
    } finally {
      checkpoints.close();
    }
  }

  /** The merge of the worktree's working state into the person's, planned (see apply-to-folder.ts). */
  private async plan(record: WorktreeRecord, signal?: AbortSignal): Promise<ApplyPlan> {
    if (!existsSync(record.repoRoot)) throw new WorktreeError(`the repository of worktree ${record.name} (${record.repoRoot}) is gone`, 'not_found');
    // The version is asked alongside the snapshots; a git too old says so before anything else.
    const where = { name: record.name, worktree: record.path, repoRoot: record.repoRoot, since: record.sinceCommit };
    const [version, planned] = await Promise.allSettled([this.git.requireMergeTree(record.repoRoot), planApply(this.git, where, signal)]);
    if (version.status === 'rejected') {
      if (planned.status === 'fulfilled') await planned.value.discard();
      throw version.reason;
    }
    if (planned.status === 'rejected') throw planned.reason;
    return planned.value;
  }

  private conflictsOf(record: WorktreeRecord, plan: ApplyPlan, signal?: AbortSignal): Promise<ConflictedFile[]> {
    const sides = { folderCommit: plan.personCommit, worktreeCommit: plan.worktreeCommit, folderName: 'your folder', worktreeName: `worktree ${record.name}` };
    return conflictDetails(this.git, record.repoRoot, plan.conflicted!, sides, signal);
  }

  /** `Commit…`: everything in the worktree (untracked files too) committed on its branch as the person. */
  async commit(name: string, message: string, signal?: AbortSignal): Promise<CommitResult> {
    const record = this.present(name);
    const cwd = record.path;
    if (message.trim() === '') throw new WorktreeError('a commit needs a message', 'failed');
    const [user, email] = await Promise.all([this.git.run(['config', 'user.name'], { cwd, signal }), this.git.run(['config', 'user.email'], { cwd, signal })]);
    if (user.stdout.trim() === '' || email.stdout.trim() === '') {
      throw new WorktreeError('git does not know who you are: set git config user.name and git config user.email (e.g. git config --global user.name "Your Name")', 'no_identity');
    }
    await this.git.out(['add', '-A'], { cwd, signal, timeoutMs: LONG_TIMEOUT_MS }, 'staging the changes');
    const staged = await this.git.out(['diff', '--cached', '--name-only', '-z', '--no-renames'], { cwd, signal, timeoutMs: LONG_TIMEOUT_MS }, 'listing the changes');
    const files = staged.split('\0').filter(Boolean).length;
    if (files === 0) throw new WorktreeError(`nothing to commit in worktree ${name}`, 'nothing_to_commit');
    // Settings › Provenance's trailer, only when chosen (never Co-authored-by).
    const trailer = provenanceFor(readSavedSettings(this.options.dataDir).provenance, record.originFolder).trailer ? ['--trailer', `Assisted-by: Deepdesk:${this.threadModel(record) ?? 'unknown'}`] : [];
    await this.git.out(['commit', '-q', '--no-verify', '-m', message, ...trailer], { cwd, signal, timeoutMs: LONG_TIMEOUT_MS }, 'committing');
    const commit = await this.git.line(['rev-parse', 'HEAD'], { cwd }, 'reading the commit');
    return { commit, files };
  }

  /**
   * `Remove worktree`: refused (removed: false, `lost` says what) when work would be lost — its
   * working state differs from its base and from what was last applied — unless `force`. Its
   * branch is deleted when merged (`git branch -d`), or whatever it holds with `force`. A
   * worktree whose folder is gone is pruned. Its threads are kept: they move to the folder it
   * was made from, marked with it, and their agent is told on its next request.
   */
  async remove(name: string, options: { force?: boolean; signal?: AbortSignal } = {}): Promise<RemoveResult> {
    const record = this.store.get(name);
    if (record === undefined) throw new WorktreeError(`there is no worktree named ${name}`, 'not_found');
    const force = options.force === true;
    this.refuseWhileRunning(record);
    const cwd = record.repoRoot;
    if (!existsSync(cwd)) {
      // The repository itself is gone: only the worktree's folder is left to remove.
      if (existsSync(record.path) && !force) return { removed: false, lost: `its repository ${cwd} is gone; its folder ${record.path} is all that is left`, branchDeleted: false };
      rmSync(record.path, { recursive: true, force: true });
      return { removed: true, branchDeleted: false, keptThreads: this.forget(record, { applied: false, branchDeleted: false }) };
    }
    let lost: string | undefined;
    if (existsSync(record.path)) {
      lost = await this.wouldLose(record, options.signal).catch((err: unknown) => {
        if (!force) throw err;
        return 'its changes could not be read';
      });
      if (lost !== undefined && !force) return { removed: false, lost, branchDeleted: false };
      const removed = await this.git.run(['worktree', 'remove', '--force', record.path], { cwd, timeoutMs: LONG_TIMEOUT_MS });
      if (removed.code !== 0) rmSync(record.path, { recursive: true, force: true });
    }
    forgetIndexPath(record.path);
    this.withTrust((trust) => trust.revoke(record.threadFolder));
    await this.git.run(['worktree', 'prune'], { cwd });
    const branchDeleted = (await this.git.run(['branch', force ? '-D' : '-d', '--', record.branch], { cwd })).code === 0;
    if (record.sinceCommit !== null) await dropRef(this.git, cwd, folderStateRef(name));
    return { removed: true, branchDeleted, keptThreads: this.forget(record, { applied: lost === undefined, branchDeleted }) };
  }

  /** A worktree that is gone: its threads move to the folder it was made from; its record, checkpoints and place among the recent folders go. */
  private forget(record: WorktreeRecord, outcome: { applied: boolean; branchDeleted: boolean }): string[] {
    const kept = this.keepThreads(record, outcome);
    bestEffort(() => {
      const checkpoints = CheckpointStore.open(this.options.dataDir);
      try {
        checkpoints.forgetFolder(record.path);
      } finally {
        checkpoints.close();
      }
    });
    bestEffort(() => {
      const recent = new RecentFolders(this.options.dataDir);
      try {
        recent.forget(record.path);
      } finally {
        recent.close();
      }
    });
    this.store.delete(record.name);
    return kept;
  }

  /**
   * The worktree's threads become threads of the folder it was made from (a thread of a folder
   * inside it, of the same folder there when it exists): listed and searched there, marked
   * with the worktree, readable, and continued there — the person's folder is where the
   * work lives now (applied, or on the branch). Their agent is told on its next request.
   */
  private keepThreads(record: WorktreeRecord, outcome: { applied: boolean; branchDeleted: boolean }): string[] {
    const threads = new ThreadStore(this.db);
    const removedAt = new Date().toISOString();
    const moved = threads.threadsIn(record.path);
    for (const thread of moved) {
      const there = join(record.repoRoot, relative(record.path, thread.folder));
      const folder = existsSync(there) ? there : record.originFolder;
      threads.moveFromWorktree(thread.id, folder, { name: record.name, branch: record.branch, removedAt });
      this.runs.moveThread(thread.id, folder);
      threads.addNote(thread.id, { kind: 'worktree', text: movedNote(record, folder, outcome), display: `Worktree ${record.name} was removed: this thread continues in ${basename(folder)}.` });
    }
    return moved.map((t) => t.id);
  }

  /** Whatever forces it, a worktree is never changed or pulled from under a run (the window's, a `deepdesk run`'s). */
  private refuseWhileRunning(record: WorktreeRecord): void {
    const going = this.runs.goingIn(record.threadFolder);
    if (going.length > 0) {
      throw new WorktreeError(`a thread is working in worktree ${record.name} (thread ${going.map((r) => r.threadId).join(', ')}): stop it first`, 'busy');
    }
  }

  /** The person's trust file (folder trust, SPEC §9), opened for one change; best effort: without it the worktree's folder asks, as any new folder does. */
  private withTrust(change: (trust: TrustStore) => void): void {
    let trust: TrustStore | undefined;
    try {
      trust = new TrustStore(this.options.dataDir);
      change(trust);
    } catch {
      // Fails closed: nothing carried over is nothing trusted.
    } finally {
      trust?.close();
    }
  }

  /** What removing the worktree would lose, in a few words, or undefined when nothing. */
  private async wouldLose(record: WorktreeRecord, signal?: AbortSignal): Promise<string | undefined> {
    const cwd = record.path;
    const [working, headTree, baseTree] = await Promise.all([
      snapshotTreeOnly(this.git, cwd, signal),
      this.git.line(['rev-parse', '--verify', 'HEAD^{tree}'], { cwd, signal }, 'reading the worktree'),
      this.treeOf(cwd, baseOf(record), signal),
    ]);
    if (working === baseTree || working === record.appliedTree) return undefined;
    const [notApplied, uncommitted] = await Promise.all([
      changedPaths(this.git, cwd, record.appliedTree ?? baseTree, working, signal),
      changedPaths(this.git, cwd, headTree, working, signal),
    ]);
    const files = (n: number) => `${n} changed file${n === 1 ? '' : 's'}`;
    return `${files(notApplied.length)} not applied${uncommitted.length > 0 ? `, ${uncommitted.length} uncommitted` : ''}`;
  }

  /** The record of a worktree whose folder is there. */
  private present(name: string): WorktreeRecord {
    const record = this.store.get(name);
    if (record === undefined) throw new WorktreeError(`there is no worktree named ${name}`, 'not_found');
    if (!existsSync(record.path)) throw new WorktreeError(`the folder of worktree ${name} (${record.path}) is gone; removing it tidies up`, 'not_found');
    return record;
  }

  private treeOf(cwd: string, commit: string, signal?: AbortSignal): Promise<string> {
    return this.git.line(['rev-parse', '--verify', `${commit}^{tree}`], { cwd, signal }, 'reading a commit');
  }

  /**
   * Where a worktree of `folder` would come from: its repository's top folder, `folder`
   * itself (both real paths) and the commit of its HEAD. Throws a WorktreeError saying why
   * none can be made (remote, not in a repository, no commit yet).
   */
  async baseOf(folder: string, signal?: AbortSignal): Promise<{ top: string; folder: string; baseCommit: string }> {
    const where = await this.repositoryOf(folder, signal);
    const head = await this.git.run(['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { cwd: where.top, signal });
    if (head.aborted) throw new WorktreeError('cancelled', 'cancelled');
    if (head.code !== 0) throw new WorktreeError(`${where.top} has no commit yet: commit once before making a worktree of it`, 'failed');
    return { ...where, baseCommit: head.stdout.trim() };
  }

  /** The top folder of `folder`'s repository and `folder` itself, both real paths. */
  private async repositoryOf(folder: string, signal?: AbortSignal): Promise<{ top: string; folder: string }> {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(folder)) throw new WorktreeError(`worktrees need a local git repository; ${folder} is a remote folder`, 'not_git');
    let real: string;
    try {
      real = realpathSync(folder);
    } catch {
      throw new WorktreeError(`there is no folder at ${folder}`, 'not_found');
    }
    const top = await this.git.run(['rev-parse', '--show-toplevel'], { cwd: real, signal });
    if (top.aborted) throw new WorktreeError('cancelled', 'cancelled');
    if (top.code !== 0 || top.stdout.trim() === '') {
      const why = top.stderr.split('\n').find((l) => /^fatal:/.test(l) && !/not a git repository/i.test(l));
      throw new WorktreeError(`worktrees need a local git repository; ${folder} is not in one${why ? ` (${why.replace(/^fatal:\s*/, '')})` : ''}`, 'not_git');
    }
    return { top: realpathSync(top.stdout.trim()), folder: real };
  }

  /** Picks the name (the one asked for, or a new one), checks it is free and records it. */
  private async reserve(options: CreateWorktreeOptions, where: { top: string; folder: string; subdir: string; baseCommit: string }, signal?: AbortSignal): Promise<string> {
    const root = join(this.options.dataDir, 'worktrees');
    mkdirSync(root, { recursive: true, mode: 0o700 });
    const realRoot = realpathSync(root);
    for (let attempt = 0; attempt < 20; attempt++) {
      const name = options.name ?? generateName(attempt < 10 ? options.nameHint : undefined);
      const path = join(realRoot, name);
      const branch = `${BRANCH_PREFIX}${name}`;
      let taken: string | undefined;
      if (this.store.get(name) !== undefined) taken = `a worktree named ${name} exists already`;
      else if (existsSync(path)) taken = `${path} exists already`;
      else if (await this.git.ok(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: where.top, signal })) taken = `the branch ${branch} exists already in ${where.top}`;
      else if (!this.store.reserve({ name, path, repoRoot: where.top, originFolder: where.folder, subdir: where.subdir, branch, baseCommit: where.baseCommit })) {
        taken = `a worktree named ${name} exists already`;
      }
      if (taken === undefined) return name;
      if (options.name !== undefined) throw new WorktreeError(`${taken}: choose another name`, 'taken');
    }
    throw new WorktreeError('no free worktree name was found', 'taken');
  }

  /** Takes back what create() made: the worktree, its folder, its branch and its record. */
  private async undoCreate(record: WorktreeRecord): Promise<void> {
    const cwd = record.repoRoot;
    await this.git.run(['worktree', 'remove', '--force', record.path], { cwd, timeoutMs: LONG_TIMEOUT_MS });
    rmSync(record.path, { recursive: true, force: true });
    await this.git.run(['worktree', 'prune'], { cwd });
    await this.git.run(['branch', '-D', '--', record.branch], { cwd });
    this.store.delete(record.name);
  }
}

/** What the worktree's changes are counted from: the folder's state it last took in, else the commit it was made from. */
function baseOf(record: WorktreeRecord): string {
  return record.sinceCommit ?? record.baseCommit;
}

/** Keeps the folder's state a worktree took in (its objects are on no branch). */
function folderStateRef(name: string): string {
  return `refs/deepdesk/folder-state/${name}`;
}

/** What a moved thread's agent is told on its next request. */
function movedNote(record: WorktreeRecord, folder: string, outcome: { applied: boolean; branchDeleted: boolean }): string {
  const work = outcome.applied
    ? 'Its changes had been applied to that folder.'
    : 'Not all of its changes were applied to that folder: files you wrote or changed in the worktree may be missing or different there.';
  const branch = outcome.branchDeleted ? '' : ` Its branch ${record.branch} is kept in the repository.`;
  return (
    `Note: the git worktree this thread worked in (${record.name}, branch ${record.branch}) was removed. ` +
    `From now on this thread works in the person's folder ${folder} itself: that folder is / now. ${work}${branch} ` +
    'Look at the files again before relying on what you did in the worktree.'
  );
}

/** Tidying that may fail without failing what it follows (the data folder's other files). */
function bestEffort(work: () => void): void {
  try {
    work();
  } catch {
    // Left as it was: nothing depends on it.
  }
}
