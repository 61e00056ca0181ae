// The contract's terminal shapes (SPEC §6, §7). Renderer-safe: zod only.
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

const ok = z.object({ ok: z.literal(true) });

export const terminalMethods = {
  'terminal.list': { params: threadRef, result: z.array(terminalInfoSchema) },
  'terminal.attach': { params: terminalRef, result: z.object({ buffer: z.string(), at: z.number().int().nonnegative() }) },
  /** The window stopped showing this terminal: never hold its output back for it. */
  'terminal.detach': { params: terminalRef, result: ok },
  'terminal.input': { params: terminalRef.extend({ data: z.string().max(1_000_000) }), result: ok },
  'terminal.resize': { params: terminalRef.extend({ cols: z.number().int().min(2).max(1000), rows: z.number().int().min(1).max(1000) }), result: ok },
  'terminal.ack': { params: terminalRef.extend({ bytes: z.number().int().min(0) }), result: ok },
  /** Ends the person's shell, or removes a finished command's view. */
  'terminal.close': { params: terminalRef, result: ok },
} as const;

export const terminalEvents = {
  'terminal.data': z.object({ threadId: z.string(), terminalId: z.string(), data: z.string(), end: z.number().int().nonnegative() }),
  /** The thread's list of terminals changed: a command started or ended, a shell started or ended. */
  'terminal.changed': z.object({ threadId: z.string() }),
} as const;
