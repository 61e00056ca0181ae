// The contract of worktrees in the window (SPEC §16, issue 40): a thread in a worktree is a
// thread whose folder is the worktree's thread folder, so the window shows one by opening that
// folder (app.openFolder). These methods are answered by the open folder's app: whether it can
// have worktrees, making one, and — when the open folder is a worktree — its state against its
// base, its diff, `Apply to folder` (its conflicts with their lines), `Ask the agent to
// resolve` (worktrees.mergeFolderIn), `Commit…` and `Remove worktree`.
// Renderer-safe: zod only.
import { z } from 'zod';

const empty = z.object({}).strict();

export const worktreeFileSchema = z.object({
  path: z.string(),
  kind: z.enum(['added', 'modified', 'deleted']),
  /** Lines added and removed; null for a binary file. */
  added: z.number().nullable(),
  removed: z.number().nullable(),
});

export const worktreeInfoSchema = z.object({
  name: z.string(),
  /** `deepdesk/<name>`. */
  branch: z.string(),
  /** The commit it was made from (the folder's HEAD then). */
  baseCommit: z.string(),
  /** The commit of the folder's state it took in last (Ask the agent to resolve), which its changes are counted from; null when none. */
  sinceCommit: z.string().nullable(),
  /** The person's folder it was made from, and that folder's name. */
  originFolder: z.string(),
  originName: z.string(),
  /** The worktree's folder (`<data-dir>/worktrees/<name>`). */
  path: z.string(),
  /** Commits on its branch since its base. */
  ahead: z.number().int().nonnegative(),
  /** Files whose working state differs from its HEAD (untracked files not ignored included). */
  uncommitted: z.number().int().nonnegative(),
  /** Its changes against its base (or the folder's state it took in), working state included (the first 1,000). */
  files: z.array(worktreeFileSchema),
  filesTotal: z.number().int().nonnegative(),
  counts: z.object({ added: z.number().int(), modified: z.number().int(), deleted: z.number().int() }),
  /** Whether its working state is the one last applied to the person's folder. */
  applied: z.boolean(),
});
export type WorktreeInfoDto = z.infer<typeof worktreeInfoSchema>;

/** A conflict's lines as git's conflict view shows them (both sides, the base with diff3, a few lines around). */
export const conflictHunkSchema = z.object({
  /** Where it starts in the merged file (1-based). */
  line: z.number().int(),
  before: z.array(z.string()),
  folder: z.array(z.string()),
  base: z.array(z.string()).optional(),
  worktree: z.array(z.string()),
  after: z.array(z.string()),
});
export type ConflictHunkDto = z.infer<typeof conflictHunkSchema>;

export const conflictedFileSchema = z.object({
  path: z.string(),
  /** git's words for a conflict that has no lines (a file deleted on one side, a binary file). */
  notes: z.array(z.string()),
  hunks: z.array(conflictHunkSchema),
  /** Some hunks or lines are left out. */
  truncated: z.boolean(),
});
export type ConflictedFileDto = z.infer<typeof conflictedFileSchema>;

export const worktreeMethods = {
  /** The open folder's worktree, or null when it is not one. */
  'worktrees.info': { params: empty, result: worktreeInfoSchema.nullable() },
  /**
   * Whether a worktree can be made of the open folder (a local git repository with a commit,
   * not a worktree itself; `why` says why not), and — unless `count: false`, which keeps it
   * quick in a big repository — how many of its files differ from its HEAD (what `carry` would
   * carry over).
   */
  'worktrees.canCreate': {
    params: z.object({ count: z.boolean().optional() }).strict(),
    result: z.object({ git: z.boolean(), why: z.string().optional(), uncommitted: z.number().int().nonnegative().optional() }),
  },
  /** Makes a worktree of the open folder; the window then opens `threadFolder` (a new thread starts there). */
  'worktrees.create': {
    params: z.object({ name: z.string().max(200).optional(), carry: z.boolean() }).strict(),
    result: z.object({ name: z.string(), threadFolder: z.string(), branch: z.string(), carried: z.number().int().nonnegative() }),
  },
  /** The open worktree's diff against its base (commits and working state), cut at 4 MB. */
  'worktrees.diff': { params: empty, result: z.object({ diff: z.string(), truncated: z.boolean() }) },
  /** `Apply to folder`: on conflicts nothing is applied and they are listed, with their lines (`details`); `savedRef` keeps the folder's state before. */
  'worktrees.apply': {
    params: empty,
    result: z.object({ applied: z.array(z.string()), conflicts: z.array(z.string()), details: z.array(conflictedFileSchema).optional(), savedRef: z.string().optional() }),
  },
  /**
   * `Ask the agent to resolve` (after a conflict): the folder's state now taken into the
   * worktree — its files the merge of both, git's conflict markers in `conflicts` — and later
   * applies merged from it. The folder is not changed. The window then asks the thread's agent.
   */
  'worktrees.mergeFolderIn': {
    params: empty,
    result: z.object({ changed: z.array(z.string()), conflicts: z.array(conflictedFileSchema) }),
  },
  /** `Commit…`: everything in the worktree committed on its branch. */
  'worktrees.commit': {
    params: z.object({ message: z.string().min(1).max(100_000) }).strict(),
    result: z.object({ commit: z.string(), files: z.number().int().nonnegative() }),
  },
  /**
   * `Remove worktree`: without `force`, refused (`removed: false`) when work would be lost,
   * `lost` saying what. Its threads are kept (`keptThreads`): they are threads of `originFolder` now.
   */
  'worktrees.remove': {
    params: z.object({ force: z.boolean() }).strict(),
    result: z.object({ removed: z.boolean(), lost: z.string().optional(), branchDeleted: z.boolean(), originFolder: z.string(), keptThreads: z.array(z.string()).optional() }),
  },
} as const;

export const worktreeEvents = {
  /** A worktree of this folder was made, applied, committed or removed: ask worktrees.info again. */
  'worktrees.changed': z.object({}),
} as const;

export type WorktreeMethodName = keyof typeof worktreeMethods;
