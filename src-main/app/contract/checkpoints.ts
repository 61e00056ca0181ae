// The contract of checkpoints (SPEC §8) for the window: the Changes region, restoring to
// before a user message (files only, or files and conversation), undoing a restore and
// reverting one file. Kept apart from the shared index, which only adds these to its maps.
// No Node imports: the renderer bundles it.

import { z } from 'zod';
import { hunkSchema } from './agent-events';

const threadRef = z.object({ threadId: z.string().min(1) });

/** What to do with files the person changed after the agent: ask (report them, change nothing), keep theirs, or restore anyway. */
export const resolutionSchema = z.enum(['ask', 'keep-mine', 'take-restore']);
export type ResolutionDto = z.infer<typeof resolutionSchema>;

/** Who wrote a line or a hunk (SPEC §24): a thread's agent (its model, and its name when another agent), the person, or nobody known. */
export const lineAuthorSchema = z.object({
  kind: z.enum(['agent', 'person', 'unknown']),
  thread: z.string().optional(),
  model: z.string().optional(),
  agent: z.string().optional(),
});
export type LineAuthorDto = z.infer<typeof lineAuthorSchema>;

/** One hunk of a file's change (no context lines: '-' removed, '+' added, '\\' no newline at the end), with who wrote it and the person's Reviewed mark. */
export const reviewHunkSchema = hunkSchema.extend({ id: z.string(), authors: z.array(lineAuthorSchema), reviewed: z.boolean() });
export type ReviewHunkDto = z.infer<typeof reviewHunkSchema>;

export const changedFileSchema = z.object({
  /** Virtual path, e.g. `/src/a.ts`. */
  path: z.string(),
  status: z.enum(['added', 'modified', 'deleted']),
  /** file, symlink, or inside an ignored folder (only noted, not kept). */
  type: z.enum(['f', 'l', 'd', 'i']),
  added: z.number(),
  removed: z.number(),
  binary: z.boolean(),
  before: z.string().optional(),
  after: z.string().optional(),
  /** A text file's change by hunks (with its texts). */
  hunks: z.array(reviewHunkSchema).optional(),
  /** A file that later runs or steers a program outside the sandbox (SPEC §23 (5)): marked in Changes. */
  sensitive: z.object({ kind: z.enum(['ci', 'hooks', 'build-scripts', 'editor-tasks', 'environment', 'agent-instructions']), what: z.string() }).optional(),
});
export type ChangedFile = z.infer<typeof changedFileSchema>;

export const threadChangesSchema = z.object({
  files: z.array(changedFileSchema),
  /** The latest restore of the thread while it can be undone, and the user message (ordinal among the thread's user messages) it went back to. */
  undo: z.object({ checkpointId: z.string(), turn: z.number().int().nullable() }).nullable(),
});
export type ThreadChanges = z.infer<typeof threadChangesSchema>;

/** `refused`: never restored, whatever the resolution (the path goes through a link, or into `.git`). */
const conflictSchema = z.object({ path: z.string(), reason: z.string(), refused: z.boolean().optional() });

export const restoreResultSchema = z.object({
  /** False when conflicts stopped it (resolution 'ask'): nothing changed; ask the person. */
  applied: z.boolean(),
  restored: z.number(),
  conflicts: z.array(conflictSchema),
  skipped: z.array(conflictSchema),
  checkpointId: z.string().optional(),
  /** Undo restore of a restore that rewound the conversation: whether the conversation came back too (it cannot once the thread went on). */
  conversationRestored: z.boolean().optional(),
});
export type RestoreResult = z.infer<typeof restoreResultSchema>;

export const rewindResultSchema = restoreResultSchema.extend({
  /** Whether the conversation was rewound (not when conflicts stopped the restore: nothing changed then). */
  rewound: z.boolean(),
  /** The message the conversation went back to before, as the person typed it (for the message box). */
  text: z.string().optional(),
});
export type RewindResult = z.infer<typeof rewindResultSchema>;

const resolution = { resolution: resolutionSchema.optional() };

export const checkpointMethods = {
  'checkpoints.changes': { params: threadRef, result: threadChangesSchema },
  /** `turn`: the user message's ordinal among the thread's user messages (0 = the first). */
  'checkpoints.restoreToMessage': { params: threadRef.extend({ turn: z.number().int().min(0), ...resolution }), result: restoreResultSchema },
  /**
   * Files and conversation: restores the files as restoreToMessage does, then removes that
   * user message and everything after it from the thread. Refused while the thread runs.
   */
  'checkpoints.rewindToMessage': { params: threadRef.extend({ turn: z.number().int().min(0), ...resolution }), result: rewindResultSchema },
  'checkpoints.undoRestore': { params: threadRef.extend({ checkpointId: z.string().min(1), ...resolution }), result: restoreResultSchema },
  'checkpoints.revertFile': { params: threadRef.extend({ path: z.string().min(1), ...resolution }), result: restoreResultSchema },
  /** Puts back one hunk (its id from `checkpoints.changes`); asked while the thread runs, it waits for the step going on to end. */
  'checkpoints.revertHunk': { params: threadRef.extend({ path: z.string().min(1), hunkId: z.string().min(1), ...resolution }), result: restoreResultSchema },
  /** The Reviewed mark of one hunk (Keep sets it), kept with the thread. */
  'checkpoints.markReviewed': { params: threadRef.extend({ hunkId: z.string().min(1), reviewed: z.boolean() }), result: z.object({ ok: z.literal(true) }) },
} as const;

export const checkpointEvents = {
  /** A restore, undo or revert changed the thread's checkpoints (agent steps arrive as `checkpoint` thread events). */
  'checkpoints.changed': threadRef,
} as const;
