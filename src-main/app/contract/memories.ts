// The contract's shapes for memories (SPEC §25): a page of the list with each memory's scope,
// status, writer, source thread, use and stale mark; a memory's history; proposals and their
// answers; moving between scopes; and which memories each turn of a thread used.

import { z } from 'zod';

const ok = z.object({ ok: z.literal(true) });

export const memoryScopeSchema = z.enum(['project', 'global']);

export const memoryEntrySchema = z.object({
  /** `/memories/x.md` (the project's) or `/memories/global/x.md` (every project's). */
  path: z.string(),
  size: z.number(),
  modifiedAt: z.string().optional(),
  /** Who wrote it last: a thread id, 'user' (the person) or `import:<tool>`. */
  modifiedBy: z.string().optional(),
  snippet: z.string().optional(),
  scope: memoryScopeSchema.optional(),
  /** `proposed`: written beside untrusted content and waiting for the person. */
  status: z.enum(['active', 'proposed']).optional(),
  /** The last version's writer, for people (`person`, `agent (thread …, turn 2, model)`, `import:codex`). */
  writer: z.string().optional(),
  /** The thread that wrote the last version. */
  thread: z.string().optional(),
  /** The version shown (a proposal's own number). */
  version: z.number().int().optional(),
  /** A proposal's untrusted sources (`read_file /README.md`). */
  sources: z.array(z.string()).optional(),
  /** What the memory names that the project no longer has (`scripts/build.sh no longer exists`). */
  stale: z.string().optional(),
  lastUsedAt: z.string().optional(),
  /** In how many turns it was used. */
  usedTurns: z.number().int().optional(),
});
export type MemoryEntry = z.infer<typeof memoryEntrySchema>;

/** The most memories one `memories.list` call returns (the panel asks for a page at a time). */
export const MAX_MEMORY_PAGE = 500;

/** Memories in path order; `next` is the path to pass as `after` for the following page, null at the end. */
export const memoryPageSchema = z.object({
  entries: z.array(memoryEntrySchema),
  next: z.string().nullable(),
  /** A shared store's URL (without its password) when the memories are not this computer's SQLite (SPEC §13). */
  sharedStore: z.string().optional(),
  /** Said once: memories kept before scopes were moved to /memories/global/. */
  notice: z.string().optional(),
});
export type MemoryPage = z.infer<typeof memoryPageSchema>;

export const memoryVersionSchema = z.object({
  version: z.number().int(),
  action: z.enum(['write', 'edit', 'delete', 'approve', 'reject', 'restore', 'import', 'move']),
  status: z.enum(['active', 'proposed', 'rejected', 'superseded', 'approved', 'deleted']),
  at: z.string(),
  writer: z.string(),
  thread: z.string().optional(),
  sources: z.array(z.string()),
  /** The text of the version; null for a delete. */
  text: z.string().nullable(),
});
export type MemoryVersionInfo = z.infer<typeof memoryVersionSchema>;

export const memoryUseSchema = z.object({ path: z.string(), version: z.number().int() });

export const memoryMethods = {
  /** A page of memories after the path `after`: all, those whose name or text contains `query` (ignoring case), of one scope, or of one status. */
  'memories.list': {
    params: z.object({
      query: z.string().optional(),
      after: z.string().optional(),
      limit: z.number().int().positive().max(MAX_MEMORY_PAGE).optional(),
      scope: memoryScopeSchema.optional(),
      status: z.enum(['active', 'proposed', 'stale']).optional(),
    }),
    result: memoryPageSchema,
  },
  'memories.read': { params: z.object({ path: z.string() }), result: z.object({ path: z.string(), text: z.string() }) },
  'memories.write': { params: z.object({ path: z.string(), text: z.string() }), result: ok },
  'memories.delete': { params: z.object({ path: z.string() }), result: ok },
  /** Every version of a memory, oldest first. */
  'memories.history': { params: z.object({ path: z.string() }), result: z.object({ path: z.string(), versions: z.array(memoryVersionSchema) }) },
  /** Brings a version back (as a new version). */
  'memories.restore': { params: z.object({ path: z.string(), version: z.number().int().positive() }), result: ok },
  /** Approves the proposal at `path` (the latest, or `version`), as proposed or with `text` instead (Edit and approve). */
  'memories.approve': { params: z.object({ path: z.string(), version: z.number().int().positive().optional(), text: z.string().optional() }), result: ok },
  'memories.reject': { params: z.object({ path: z.string(), version: z.number().int().positive().optional() }), result: ok },
  /** Moves a memory between the project's scope and the global one; the result is its new path. */
  'memories.move': { params: z.object({ path: z.string(), to: memoryScopeSchema }), result: z.object({ path: z.string() }) },
  /** The memories each turn of a thread carried (SPEC §25 "Used in"), turns from 1. */
  'memories.used': {
    params: z.object({ threadId: z.string() }),
    result: z.object({ turns: z.array(z.object({ turn: z.number().int(), memories: z.array(memoryUseSchema) })) }),
  },
} as const;
