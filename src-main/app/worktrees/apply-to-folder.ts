// `Apply to folder`: a worktree's changes (its commits since its base and its uncommitted and
// untracked work) merged into the person's working tree with a three-way merge, in two steps:
//
// 1. planApply: W = the worktree's working state, P = the person's (snapshot trees, see
//    snapshot.ts), each made a commit (W on the worktree's HEAD, P on the person's HEAD; a
//    side with nothing uncommitted is its HEAD commit itself) so that `git merge-tree
//    --write-tree` merges them from their merge base, the worktree's base. When neither side
//    has anything uncommitted, that is the merge of the two HEADs, worked out while the
//    snapshots are read. When the worktree took the folder's state in (mergeFolderIn: the folder's state
//    then is its base since), both are made on that state's commit instead, so the merge is
//    from there. Conflicts end it here: nothing was changed; the merged tree (with git's
//    conflict markers) says what conflicts. Clean, it yields the merged tree M. P is kept
//    under `refs/deepdesk/before-apply/<name>/<time>` meanwhile (the ref is dropped again
//    when there is nothing to apply).
// 2. carryOut: the working tree goes from P to M with `git read-tree -m -u P M` on P's own
//    temporary index (never the person's index, never a commit on their branch). git checks
//    every file it would change against that index before it writes any: a file the apply
//    touches that the person changed since P was read fails the whole apply (nothing changed,
//    try again), and an untracked file in the way is never overwritten. Files the apply does
//    not touch are the person's to change meanwhile; it leaves them alone. The result lists
//    the paths M changed. moveWorkingTree does the same for the worktree's own files.

import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { changedIndexPaths } from './index-tree';
import { parseMergeTree, type MergeTreeConflicts } from './conflicts';
import { changedPaths, knownIndexPath, snapshotTree, type Snapshot } from './snapshot';
import { gitError, LONG_TIMEOUT_MS, nulFields, SNAPSHOT_IDENTITY, WorktreeError, type GitRunner } from './worktree-git';

export interface ApplyPlan {
  name: string;
  repoRoot: string;
  /** W: the worktree's working state. */
  worktreeTree: string;
  /** P: the person's working state. */
  personTree: string;
  /** P as a commit on the person's HEAD, or that HEAD itself when P is its tree (what the saved ref points at). */
  personCommit: string;
  /** W as a commit on the worktree's HEAD, or that HEAD itself when W is its tree. */
  worktreeCommit: string;
  /** Paths both sides changed in ways that do not merge; when any, nothing is to be applied. */
  conflicts: string[];
  /** On conflicts: the merged tree (git's conflict markers in those files) and git's messages. */
  conflicted?: MergeTreeConflicts;
  /** M: the merge of P and W (undefined on conflicts); equal to P when the folder has the changes already. */
  mergedTree?: string;
  /** The ref keeping P, made while planning when there is something to apply (carryOut drops it if it fails; discard() too). */
  savedRef?: string;
  /** The snapshot P was read with: its index is what the apply checks the folder against. */
  personSnapshot: Snapshot;
  /** The snapshot W was read with (for moveWorkingTree in the worktree). */
  worktreeSnapshot: Snapshot;
  /** Removes the temporary files (carried out or not). */
  dispose(): void;
  /** For a plan that will not be carried out: drops its saved ref too. */
  discard(): Promise<void>;
}

export interface ApplyWhere {
  name: string;
  worktree: string;
  repoRoot: string;
  /** The commit of the folder's state the worktree took in last (mergeFolderIn): both sides are merged from it. */
  since?: string | null;
}

/** One side's working state: its snapshot and that snapshot as a commit. */
interface SnapshotSide {
  snapshot: Snapshot;
  commit: string;
  /** The snapshot is its HEAD's tree: `commit` is that HEAD. */
  atHead: boolean;
}

export async function planApply(git: GitRunner, where: ApplyWhere, signal?: AbortSignal, now = new Date()): Promise<ApplyPlan> {
  const { worktree, repoRoot } = where;
  const parent = where.since ?? undefined;
  // Both HEADs, and meanwhile their merge: when both working states turn out to be their HEAD's
  // trees (nothing uncommitted on either side), that is the merge of the working states and
  // their HEADs are their commits (P's kept under the saved ref). Not when merging from `since`.
  let resolveHeads!: (heads: Promise<[Head | undefined, Head | undefined]>) => void;
  const heads = new Promise<[Head | undefined, Head | undefined]>((resolve) => (resolveHeads = resolve));
  const early = heads.then(([w, p]) => (parent === undefined && w !== undefined && p !== undefined ? mergeTrees(git, repoRoot, p.commit, w.commit, signal) : undefined));
  early.catch(() => undefined);
  // Each side snapshotted and made a commit on its own, neither waiting for the other.
  const side = async (top: string, which: 0 | 1, message: string): Promise<SnapshotSide> => {
    // A state that is its HEAD's tree is known from the index files (index-tree.ts), with no write-tree.
    const headTree = heads.then((h) => h[which]?.tree, () => undefined);
    const snapshot = await snapshotTree(git, top, signal, { headTree });
    try {
      const head = (await heads)[which];
      if (parent === undefined && head?.tree === snapshot.tree) return { snapshot, commit: head.commit, atHead: true };
      return { snapshot, commit: await snapshotCommit(git, top, snapshot.tree, message, parent ?? head?.commit, signal), atHead: false };
    } catch (err) {
      snapshot.dispose();
      throw err;
    }
  };
  const person = side(repoRoot, 1, `deepdesk: the folder before applying worktree ${where.name}`);
  const sides = [side(worktree, 0, `deepdesk: the working state of worktree ${where.name}`), person];
  // Asked once the snapshots are under way (they are the longest part).
  resolveHeads(headsOf(git, worktree, repoRoot, signal));
  // P is kept (as soon as it is known, while the worktree's side may still be read) until the
  // merge is worked out: the ref goes again when there is nothing to apply or a side failed.
  const savedRef = `refs/deepdesk/before-apply/${where.name}/${now.toISOString().replace(/[-:.]/g, '')}`;
  const saving = person.then((p) => git.run(['update-ref', savedRef, p.commit], { cwd: repoRoot, signal }));
  saving.catch(() => undefined);
  const settled = await Promise.allSettled(sides);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed !== undefined) {
    for (const s of settled) if (s.status === 'fulfilled') s.value.snapshot.dispose();
    if ((await saving.catch(() => undefined))?.code === 0) await dropRef(git, repoRoot, savedRef);
    throw failed.reason;
  }
  const [worktreeSide, personSide] = settled.map((s) => (s as PromiseFulfilledResult<SnapshotSide>).value) as [SnapshotSide, SnapshotSide];
  const { snapshot: worktreeSnapshot, commit: worktreeCommit } = worktreeSide;
  const { snapshot: personSnapshot, commit: personCommit } = personSide;
  const dispose = () => {
    worktreeSnapshot.dispose();
    personSnapshot.dispose();
  };
  try {
    const W = worktreeSnapshot.tree;
    const P = personSnapshot.tree;
    const base = { name: where.name, repoRoot, worktreeTree: W, personTree: P, personCommit, worktreeCommit, personSnapshot, worktreeSnapshot, dispose, discard: async () => dispose() };
    const merging = worktreeSide.atHead && personSide.atHead ? early.then((m) => m ?? mergeTrees(git, repoRoot, personCommit, worktreeCommit, signal)) : mergeTrees(git, repoRoot, personCommit, worktreeCommit, signal);
    const [merged, saved] = await Promise.all([merging, saving]);
    const [M] = nulFields(merged.stdout);
    if (merged.code !== 0 || M === P || saved.code !== 0) {
      if (saved.code === 0) await dropRef(git, repoRoot, savedRef);
      if (merged.code !== 0 && merged.code !== 1) throw gitError(merged, 'merging the worktree into your folder', LONG_TIMEOUT_MS);
      if (merged.code === 1) {
        const conflicted = parseMergeTree(merged.stdout);
        return { ...base, conflicts: conflicted.paths, conflicted };
      }
      if (M === P) return { ...base, conflicts: [], mergedTree: M };
      throw gitError(saved, 'keeping your folder as it was', LONG_TIMEOUT_MS);
    }
    return {
      ...base,
      conflicts: [],
      mergedTree: M!,
      savedRef,
      discard: async () => {
        dispose();
        await dropRef(git, repoRoot, savedRef);
      },
    };
  } catch (err) {
    dispose();
    throw err;
  }
}

/** `git merge-tree` of two commits from their merge base: the merged tree, and on conflicts (exit 1) what conflicts. */
function mergeTrees(git: GitRunner, cwd: string, ours: string, theirs: string, signal?: AbortSignal) {
  return git.run(['merge-tree', '--write-tree', '--name-only', '-z', ours, theirs], { cwd, signal, timeoutMs: LONG_TIMEOUT_MS });
}

/** A HEAD commit and its tree. */
interface Head {
  commit: string;
  tree: string;
}

/** A working tree's HEAD; undefined on a branch with no commit yet (or when git cannot say). */
async function headOf(git: GitRunner, cwd: string, signal?: AbortSignal): Promise<Head | undefined> {
  const read = await git.run(['rev-parse', 'HEAD^{commit}', 'HEAD^{tree}', '--'], { cwd, signal });
  const [commit, tree] = read.stdout.split('\n');
  return read.code === 0 && commit && tree ? { commit, tree } : undefined;
}

/**
 * Both HEADs: the worktree's and the folder's. One process when the worktree is known to be a
 * linked worktree of the folder's own `.git` (its index at `<folder>/.git/worktrees/<id>/index`):
 * git names its HEAD `worktrees/<id>/HEAD` there. Otherwise, or when that fails, one each.
 */
async function headsOf(git: GitRunner, worktree: string, repoRoot: string, signal?: AbortSignal): Promise<[Head | undefined, Head | undefined]> {
  const index = knownIndexPath(worktree);
  const gitDir = index !== undefined ? dirname(index) : undefined;
  if (gitDir !== undefined && dirname(gitDir) === join(repoRoot, '.git', 'worktrees')) {
    const id = basename(gitDir);
    const read = await git.run(['rev-parse', 'HEAD^{commit}', 'HEAD^{tree}', `worktrees/${id}/HEAD^{commit}`, `worktrees/${id}/HEAD^{tree}`, '--'], { cwd: repoRoot, signal });
    const [commit, tree, worktreeCommit, worktreeTree] = read.stdout.split('\n');
    if (read.code === 0 && commit && tree && worktreeCommit && worktreeTree) return [{ commit: worktreeCommit, tree: worktreeTree }, { commit, tree }];
  }
  return Promise.all([headOf(git, worktree, signal), headOf(git, repoRoot, signal)]);
}

/** `tree` as a commit on `parent` or `cwd`'s HEAD (no parent on a branch with no commit yet), by Deepdesk, on no branch. */
async function snapshotCommit(git: GitRunner, cwd: string, tree: string, message: string, parent: string | undefined, signal?: AbortSignal): Promise<string> {
  const call = { cwd, signal, env: SNAPSHOT_IDENTITY };
  const onHead = await git.run(['commit-tree', tree, '-p', parent ?? 'HEAD', '-m', message], call);
  if (onHead.code === 0) return onHead.stdout.trim();
  if (onHead.aborted) throw new WorktreeError('cancelled', 'cancelled');
  return git.line(['commit-tree', tree, '-m', message], call, 'recording a snapshot');
}

export interface CarriedOut {
  applied: string[];
  /** Where the person's folder as it was before is kept (a ref holding P as a commit). */
  savedRef?: string;
}

export async function carryOut(git: GitRunner, plan: ApplyPlan, signal?: AbortSignal): Promise<CarriedOut> {
  if (plan.conflicts.length > 0 || plan.mergedTree === undefined) throw new Error('carryOut: a plan with conflicts applies nothing');
  const { repoRoot, personTree, mergedTree, savedRef } = plan;
  if (mergedTree === personTree || savedRef === undefined) return { applied: [] };
  try {
    return { applied: await moveWorkingTree(git, { cwd: repoRoot, snapshot: plan.personSnapshot, to: mergedTree, whose: 'your folder' }, signal), savedRef };
  } catch (err) {
    await dropRef(git, repoRoot, savedRef);
    throw err;
  }
}

/**
 * Takes the working tree at `cwd` from its snapshot's tree to `to`, checked against the
 * snapshot's index (see carryOut): a file changed since the snapshot that the move would
 * touch fails it all, nothing changed. Returns the paths it changed.
 */
export async function moveWorkingTree(git: GitRunner, move: { cwd: string; snapshot: Snapshot; to: string; whose: string }, signal?: AbortSignal): Promise<string[]> {
  const { cwd, snapshot, to, whose } = move;
  const from = snapshot.tree;
  if (from === to) return [];
  // The snapshot's index holds `from`; once moved, it holds `to`: the paths that differ are what changed.
  const before = readIndex(snapshot.indexFile);
  // No signal: git checks everything, then writes; it is not cut in the middle.
  const moved = await git.run(['read-tree', '-m', '-u', from, to], { cwd, indexFile: snapshot.indexFile, timeoutMs: LONG_TIMEOUT_MS });
  if (moved.code !== 0) {
    const reason = gitReason(moved.stderr);
    if (/not uptodate|would be overwritten|would be lost/i.test(moved.stderr)) {
      throw new WorktreeError(`${whose} changed while the changes were being written (${reason}); nothing was changed — try again`, 'changed');
    }
    throw new WorktreeError(`the changes cannot be written to ${whose} (${reason}); nothing was changed`, 'failed');
  }
  // The paths it changed (from the index files, else from git); a listing that failed does not undo the move.
  const after = readIndex(snapshot.indexFile);
  const listed = before !== undefined && after !== undefined ? changedIndexPaths(before, after, from.length / 2) : undefined;
  return listed ?? changedPaths(git, cwd, from, to, signal).catch(() => [] as string[]);
}

function readIndex(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

export async function dropRef(git: GitRunner, cwd: string, ref: string): Promise<void> {
  await git.run(['update-ref', '-d', ref], { cwd });
}

/** git's first error line, e.g. `Entry 'a.txt' not uptodate. Cannot merge.` */
function gitReason(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  const line = lines.find((l) => /^(error|fatal):/.test(l)) ?? lines[0] ?? '';
  return line.replace(/^(error|fatal):\s*/, '') || 'git read-tree failed';
}
