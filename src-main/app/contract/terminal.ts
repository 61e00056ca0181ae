// The contract's terminal and approval-mode shapes (SPEC §6, §7). Renderer-safe: zod only.
import { z } from 'zod';

/** `shell`: the person's own shell; `cmd-N`: a command the agent ran. */
export const terminalIdSchema = z.string().min(1).max(64).regex(/^(shell|cmd-\d+)$/, 'a terminal id is `shell` or `cmd-N`');

const threadRef = z.object({ threadId: z.string().min(1) });
/** Without terminalId: the person's shell. */
export const terminalRef = threadRef.extend({ terminalId: terminalIdSchema.optional() });

export const terminalInfoSchema = z.discriminatedUnion('kind', [
  z.object({ id: z.literal('shell'), kind: z.literal('shell'), running: z.boolean(), sandboxed: z.literal(false) }),
  z.object({
    id: z.string(),
    kind: z.literal('command'),
    command: z.string(),
    sandboxed: z.boolean(),
    startedAt: z.string(),
    running: z.boolean(),
    exitCode: z.number().nullable().optional(),
    timedOut: z.boolean().optional(),
  }),
]);
export type TerminalInfoDto = z.infer<typeof terminalInfoSchema>;

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
});
export type ModeState = z.infer<typeof modeStateSchema>;

const ok = z.object({ ok: z.literal(true) });

export const terminalMethods = {
  'terminal.list': { params: threadRef, result: z.array(terminalInfoSchema) },
  'terminal.attach': { params: terminalRef, result: z.object({ buffer: z.string() }) },
  /** The window stopped showing this terminal: never hold its output back for it. */
  'terminal.detach': { params: terminalRef, result: ok },
  'terminal.input': { params: terminalRef.extend({ data: z.string().max(1_000_000) }), result: ok },
  'terminal.resize': { params: terminalRef.extend({ cols: z.number().int().min(2).max(1000), rows: z.number().int().min(1).max(1000) }), result: ok },
  'terminal.ack': { params: terminalRef.extend({ bytes: z.number().int().min(0) }), result: ok },
  /** Ends the person's shell, or removes a finished command's view. */
  'terminal.close': { params: terminalRef, result: ok },
} as const;

export const modeMethods = {
  'mode.get': { params: z.object({}).strict(), result: modeStateSchema },
  'mode.set': { params: z.object({ mode: approvalModeSchema }), result: modeStateSchema },
  /** The window showed the "no sandbox here" notice: it is not shown again for this folder. */
  'mode.sandboxNoticeShown': { params: z.object({}).strict(), result: modeStateSchema },
} as const;

export const terminalEvents = {
  'terminal.data': z.object({ threadId: z.string(), terminalId: z.string(), data: z.string() }),
  /** The thread's list of terminals changed: a command started or ended, a shell started or ended. */
  'terminal.changed': z.object({ threadId: z.string() }),
  'mode.changed': modeStateSchema,
} as const;
