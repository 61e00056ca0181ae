// `Apply to folder`: a worktree's changes (its commits since its base and its uncommitted and
// untracked work) merged into the person's working tree with a three-way merge, in two steps:
//
// 1. planApply: W = the worktree's working state, P = the person's (snapshot trees, see
//    snapshot.ts), each made a commit (W on the worktree's HEAD, P on the person's HEAD) so
//    that `git merge-tree --write-tree` merges them from their merge base, the worktree's
//    base. Conflicts end it here: nothing was changed. Clean, it yields the merged tree M.
//    P is kept under `refs/deepdesk/before-apply/<name>/<time>` meanwhile (the ref is dropped
//    again when there is nothing to apply).
// 2. carryOut: the working tree goes from P to M with `git read-tree -m -u P M` on P's own
//    temporary index (never the person's index, never a commit on their branch). git checks
//    every file it would change against that index before it writes any: a file the apply
//    touches that the person changed since P was read fails the whole apply (nothing changed,
//    try again), and an untracked file in the way is never overwritten. Files the apply does
//    not touch are the person's to change meanwhile; it leaves them alone. The result lists
//    the paths M changed.

import { changedPaths, snapshotTree, type Snapshot } from './snapshot';
import { gitError, LONG_TIMEOUT_MS, nulFields, SNAPSHOT_IDENTITY, WorktreeError, type GitRunner } from './worktree-git';

export interface ApplyPlan {
  name: string;
  repoRoot: string;
  /** W: the worktree's working state. */
  worktreeTree: string;
  /** P: the person's working state. */
  personTree: string;
  /** P as a commit on the person's HEAD (what the saved ref points at). */
  personCommit: string;
  /** Paths both sides changed in ways that do not merge; when any, nothing is to be applied. */
  conflicts: string[];
  /** M: the merge of P and W (undefined on conflicts); equal to P when the folder has the changes already. */
  mergedTree?: string;
  /** The ref keeping P, made while planning when there is something to apply (carryOut drops it if it fails; discard() too). */
  savedRef?: string;
  /** The snapshot P was read with: its index is what the apply checks the folder against. */
  personSnapshot: Snapshot;
  /** Removes the temporary files (carried out or not). */
  dispose(): void;
  /** For a plan that will not be carried out: drops its saved ref too. */
  discard(): Promise<void>;
}

export async function planApply(git: GitRunner, where: { name: string; worktree: string; repoRoot: string }, signal?: AbortSignal, now = new Date()): Promise<ApplyPlan> {
  const { worktree, repoRoot } = where;
  const settled = await Promise.allSettled([snapshotTree(git, worktree, signal), snapshotTree(git, repoRoot, signal)]);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed !== undefined) {
    for (const s of settled) if (s.status === 'fulfilled') s.value.dispose();
    throw failed.reason;
  }
  const [worktreeSnapshot, personSnapshot] = settled.map((s) => (s as PromiseFulfilledResult<Snapshot>).value) as [Snapshot, Snapshot];
  worktreeSnapshot.dispose();
  const dispose = () => personSnapshot.dispose();
  try {
    const W = worktreeSnapshot.tree;
    const P = personSnapshot.tree;
    const [worktreeCommit, personCommit] = await Promise.all([
      snapshotCommit(git, worktree, W, `deepdesk: the working state of worktree ${where.name}`, signal),
      snapshotCommit(git, repoRoot, P, `deepdesk: the folder before applying worktree ${where.name}`, signal),
    ]);
    const base = { name: where.name, repoRoot, worktreeTree: W, personTree: P, personCommit, personSnapshot, dispose, discard: async () => dispose() };
    // P is kept while the merge is worked out: the ref goes again when there is nothing to apply.
    const savedRef = `refs/deepdesk/before-apply/${where.name}/${now.toISOString().replace(/[-:.]/g, '')}`;
    const [merged, saved] = await Promise.all([
      git.run(['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', personCommit, worktreeCommit], { cwd: repoRoot, signal, timeoutMs: LONG_TIMEOUT_MS }),
      git.run(['update-ref', savedRef, personCommit], { cwd: repoRoot, signal }),
    ]);
    const [M, ...conflicted] = nulFields(merged.stdout);
    if (merged.code !== 0 || M === P || saved.code !== 0) {
      if (saved.code === 0) await dropRef(git, repoRoot, savedRef);
      if (merged.code !== 0 && merged.code !== 1) throw gitError(merged, 'merging the worktree into your folder', LONG_TIMEOUT_MS);
      if (merged.code === 1) return { ...base, conflicts: [...new Set(conflicted)] };
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

/** `tree` as a commit on `cwd`'s HEAD (no parent on a branch with no commit yet), by Deepdesk, on no branch. */
async function snapshotCommit(git: GitRunner, cwd: string, tree: string, message: string, signal?: AbortSignal): Promise<string> {
  const call = { cwd, signal, env: SNAPSHOT_IDENTITY };
  const onHead = await git.run(['commit-tree', tree, '-p', 'HEAD', '-m', message], call);
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
  const listed = changedPaths(git, repoRoot, personTree, mergedTree, signal);
  listed.catch(() => undefined);
  // No signal: git checks everything, then writes; it is not cut in the middle.
  const moved = await git.run(['read-tree', '-m', '-u', personTree, mergedTree], { cwd: repoRoot, indexFile: plan.personSnapshot.indexFile, timeoutMs: LONG_TIMEOUT_MS });
  if (moved.code !== 0) {
    await dropRef(git, repoRoot, savedRef);
    const reason = gitReason(moved.stderr);
    if (/not uptodate|would be overwritten|would be lost/i.test(moved.stderr)) {
      throw new WorktreeError(`your folder changed while the changes were being applied (${reason}); nothing was changed — try again`, 'changed');
    }
    throw new WorktreeError(`the changes cannot be applied to your folder (${reason}); nothing was changed`, 'failed');
  }
  // The paths M changed (listed while it was applied); a listing that failed does not undo the apply.
  const applied = await listed.catch(() => [] as string[]);
  return { applied, savedRef };
}

async function dropRef(git: GitRunner, cwd: string, ref: string): Promise<void> {
  await git.run(['update-ref', '-d', ref], { cwd });
}

/** git's first error line, e.g. `Entry 'a.txt' not uptodate. Cannot merge.` */
function gitReason(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  const line = lines.find((l) => /^(error|fatal):/.test(l)) ?? lines[0] ?? '';
  return line.replace(/^(error|fatal):\s*/, '') || 'git read-tree failed';
}
