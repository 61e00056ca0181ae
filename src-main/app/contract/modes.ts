// The contract's approval-mode shapes (SPEC §6, §7). Renderer-safe: zod only.
import { z } from 'zod';

export const approvalModeSchema = z.enum(['ask', 'edit', 'auto', 'plan']);
export type ApprovalModeDto = z.infer<typeof approvalModeSchema>;

export const sandboxStatusSchema = z.object({
  /** Whether the agent's commands run in an OS sandbox here. */
  available: z.boolean(),
  kind: z.string().optional(),
  /** Why not, when not. */
  reason: z.string().optional(),
});

export const modeStateSchema = z.object({
  mode: approvalModeSchema,
  /** The person chose a mode for this folder (until then `ask` applies and the window offers the choice). */
  chosen: z.boolean(),
  sandbox: sandboxStatusSchema,
  /** The "no sandbox here" notice was already shown for this folder. */
  sandboxNoticeShown: z.boolean(),
  /** The window opened the offer of modes by itself once already for this folder (it does so once). */
  offerShown: z.boolean(),
  /** The person dismissed the offer for this folder: the window no longer offers it (the Mode control stays). */
  offerDismissed: z.boolean(),
});
export type ModeState = z.infer<typeof modeStateSchema>;

export const modeMethods = {
  'mode.get': { params: z.object({}).strict(), result: modeStateSchema },
  'mode.set': { params: z.object({ mode: approvalModeSchema }), result: modeStateSchema },
  /** The window showed the "no sandbox here" notice: it is not shown again for this folder. */
  'mode.sandboxNoticeShown': { params: z.object({}).strict(), result: modeStateSchema },
  /** The offer of modes on a folder with none chosen: `shown` once the window opened it by itself, `dismissed` when the person dismissed it. */
  'mode.offer': { params: z.object({ event: z.enum(['shown', 'dismissed']) }), result: modeStateSchema },
} as const;

export const modeEvents = {
  'mode.changed': modeStateSchema,
} as const;
