// The contract of checkpoints (SPEC §8) for the window: the Changes region, restoring to
// before a user message (files only, or files and conversation), undoing a restore and
// reverting one file. Kept apart from the shared index, which only adds these to its maps.
// No Node imports: the renderer bundles it.

import { z } from 'zod';

const threadRef = z.object({ threadId: z.string().min(1) });

/** What to do with files the person changed after the agent: ask (report them, change nothing), keep theirs, or restore anyway. */
export const resolutionSchema = z.enum(['ask', 'keep-mine', 'take-restore']);
export type ResolutionDto = z.infer<typeof resolutionSchema>;

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
} as const;

export const checkpointEvents = {
  /** A restore, undo or revert changed the thread's checkpoints (agent steps arrive as `checkpoint` thread events). */
  'checkpoints.changed': threadRef,
} as const;
