// The agent host's service (SPEC §16): the methods its clients call over the socket, each
// checked with zod (a client is another process), answered by the runs it owns, its windows,
// and the protocols handed to it (host-adapters.ts).

import { z } from 'zod';
import { budgetNodeSchema } from '../contract/budgets';
import { APPROVAL_MODES } from '../../core/agent/permissions/modes';
import type { ApprovalDecision } from '../../core/agent/types';
import { openDatabase } from '../../core/backends/store/store';
import { databasePath } from '../base/data-dir';
import { HostRuns } from './runs';
import { HostCandidateSets, MAX_CANDIDATES } from '../session/candidate-sets';
import { resolveThread } from '../threads/thread-ref';
import { ThreadStore } from '../threads/thread-store';
import { HostWindows, windowCallParams, windowOpenParams } from './windows';
import { holdDataFolderSecrets } from '../settings/data-folder-secrets';
import { sandboxRequestSchema, sessionFlagsRequest } from '../base/session-flag-schemas';
import { sandboxWorkFolder } from '../sandboxes/sandbox-request';
import { asHostError, HostRequestError, type HostService } from '../base/host-service';
import { hostMethod, type HostAdapter, type HostAdapters, type HostMethod, type HostParts } from './host-adapters';

const threadId = z.string().min(1).max(200);

const startParams = z.object({
  request: sessionFlagsRequest.extend({
    folder: z.string().min(1),
    prompt: z.string(),
    threadId: threadId.optional(),
    mode: z.enum(APPROVAL_MODES),
    /** The run's own caps (`run --max-cost`, SPEC §26). */
    budget: budgetNodeSchema.optional(),
    acceptDraft: z.boolean().optional(),
    /** A candidate's own instruction (its set gives it), added after the goal. */
    instruction: z.string().min(1).max(20_000).optional(),
    // `run --candidates N` (SPEC §21): the set this run is one of, and the budget the set shares.
    candidateSet: z.object({ id: z.string().min(1).max(200), caps: budgetNodeSchema.optional(), index: z.number().int().min(0).max(99), count: z.number().int().min(1).max(100) }).optional(),
  }),
  approve: z.enum(['ask', 'auto', 'deny']),
  interactive: z.boolean(),
  detach: z.boolean(),
});

const candidatesStartParams = z.object({
  folder: z.string().min(1),
  count: z.number().int().min(1).max(MAX_CANDIDATES),
  models: z.array(z.string().min(1).max(500).nullable()).max(MAX_CANDIDATES).default([]),
  agents: z.array(z.string().min(1).max(200).nullable()).max(MAX_CANDIDATES).optional(),
  prompts: z.array(z.string().min(1).max(20_000).nullable()).max(MAX_CANDIDATES).optional(),
  request: startParams.shape.request.omit({ folder: true, threadId: true, candidateSet: true, model: true, budget: true, externalAgent: true, instruction: true }),
  /** The set's one budget. */
  budget: budgetNodeSchema.optional(),
  approve: z.enum(['ask', 'auto', 'deny']),
  threadIds: z.array(threadId).max(MAX_CANDIDATES).optional(),
  follow: z.boolean(),
});

const decideParams = z.object({
  threadId,
  key: z.string().min(1),
  decision: z.discriminatedUnion('type', [z.object({ type: z.literal('approve') }), z.object({ type: z.literal('reject'), message: z.string().max(100_000).optional() })]),
});

export interface HostServiceOptions {
  dataDir: string;
  env: NodeJS.ProcessEnv;
  version: string;
  /** `host --reviewer` (SPEC §23): the reviewer of its runs, windows and editors whose own flags name none. */
  reviewer?: string;
}

export async function createHostService(options: HostServiceOptions, adapters: HostAdapters = {}): Promise<HostService> {
  const { dataDir, env, version, reviewer } = options;
  const db = openDatabase(databasePath(dataDir));
  // The data folder's keys (Settings' model keys, MCP sign-ins), one store for every client's sessions.
  const held = holdDataFolderSecrets(dataDir);
  const secrets = held.store;
  const runs = new HostRuns({ dataDir, db, version, secrets, ...(reviewer !== undefined ? { reviewer } : {}) });
  const threads = new ThreadStore(db);
  const log = (line: string) => process.stderr.write(`${new Date().toISOString()} [${process.pid}] ${line}\n`);
  const candidates = new HostCandidateSets(runs, { dataDir, db, env, version, log, secrets });
  const parts: HostParts = { dataDir, db, env, version, secrets, runs, threads, log, ...(reviewer !== undefined ? { reviewer } : {}) };
  const protocol = adapters.protocol?.(parts);
  const editors = adapters.editors?.(parts);
  const served = [protocol, editors].filter((adapter): adapter is HostAdapter => adapter !== undefined);
  // Made when the first window opens: a host of `run`s only reads no keys.
  let windows: HostWindows | undefined;
  runs.workElsewhereFrom(async (threadId) => (await windows?.working(threadId)) === true || served.some((adapter) => adapter.working?.(threadId) === true));
  const methods: Record<string, HostMethod> = {
    'runs.start': hostMethod(startParams, (connection, p) => runs.start(connection, p)),
    // A set of candidates (SPEC §21): N runs of one goal on worktrees of the folder, one budget; the ranking when all end.
    'candidates.start': hostMethod(candidatesStartParams, (connection, p) => candidates.start(connection, p)),
    'candidates.ranking': hostMethod(z.object({ setId: z.string().min(1).max(200) }), (_, p) => candidates.ranking(p.setId)),
    'runs.attach': hostMethod(z.object({ threadId, afterSeq: z.number().int().min(0).default(0), interactive: z.boolean().default(false) }), async (connection, p) => {
      // A window's thread that works is followed in its folder's app.
      if (!runs.has(p.threadId)) {
        const windowThread = await windows?.attach(connection, p.threadId);
        if (windowThread !== undefined) return windowThread;
      }
      return runs.attach(connection, p.threadId, p.afterSeq, p.interactive);
    }),
    'runs.detach': hostMethod(z.object({ threadId }), (connection, p) => {
      runs.detach(connection, p.threadId);
      return { ok: true };
    }),
    'runs.decide': hostMethod(decideParams, async (_, p) => {
      // Asked on the socket by a terminal (`run`, `attach`): the window's own answers come as window.call.
      const decision: ApprovalDecision =
        p.decision.type === 'approve' ? { type: 'approve', answeredIn: 'terminal' } : { type: 'reject', answeredIn: 'terminal', ...(p.decision.message !== undefined ? { message: p.decision.message } : {}) };
      if (!runs.has(p.threadId) && (await windows?.answer(p.threadId, p.key, decision))) return { ok: true };
      runs.answer(p.threadId, p.key, decision);
      return { ok: true };
    }),
    'runs.stop': hostMethod(z.object({ threadId }), async (_, { threadId }) => {
      // A window's thread is stopped in its folder's app, an editor's in its session.
      if (!runs.has(threadId) && ((await windows?.stop(threadId)) || (await stoppedIn(served, threadId)))) return { state: 'stopped', reason: 'aborted', text: '' };
      return runs.stop(threadId);
    }),
    // Every run's record: this host's, its windows' and those of other processes (run-records.ts).
    'runs.list': hostMethod(z.object({}).default({}), () => ({ agents: runs.list() })),
    // A thread's id from what a person typed: the whole id or a unique beginning (thread-ref.ts).
    'threads.resolve': hostMethod(z.object({ ref: z.string().min(1).max(200) }), (_, p) => {
      try {
        return { threadId: resolveThread(threads, p.ref) };
      } catch (err) {
        throw asHostError(err);
      }
    }),
    'window.open': hostMethod(windowOpenParams, (connection, p) => {
      windows ??= new HostWindows({ dataDir, version, log, runs, candidates, secrets, ...(protocol !== undefined ? { protocol } : {}), ...(reviewer !== undefined ? { reviewer } : {}) });
      return windows.open(connection, p);
    }),
    'window.call': hostMethod(windowCallParams, (connection, p) => {
      if (windows === undefined) throw new HostRequestError('open a window first (window.open)', 'bad_request');
      return windows.call(connection, p.method, p.params);
    }),
    // The threads the windows' apps have working: what quitting the desktop app asks about.
    'window.runs': hostMethod(z.object({}).default({}), async () => ({ threadIds: (await windows?.workingThreads()) ?? [] })),
    // `serve --sandbox`: the folder its window opens on (SPEC §18).
    'sandboxes.workFolder': hostMethod(z.object({ folder: z.string().min(1), cwd: z.string().min(1), env: z.record(z.string(), z.string()), sandbox: sandboxRequestSchema }), async (_, p) => {
      const lines: string[] = [];
      try {
        const { folder } = await sandboxWorkFolder(p, { dataDir, db, secrets }, (line) => lines.push(line));
        return { folder, lines };
      } catch (err) {
        throw asHostError(err);
      }
    }),
    ...Object.fromEntries(served.flatMap((adapter) => Object.entries(adapter.methods))),
  };
  return {
    busy: () => runs.busy() || (windows?.busy() ?? false) || served.some((adapter) => adapter.busy()),
    serving: () => {
      runs.interruptOrphans();
      for (const adapter of served) adapter.serving?.();
    },
    async handle(connection, name, raw) {
      const method = Object.hasOwn(methods, name) ? methods[name] : undefined;
      if (method === undefined) throw new HostRequestError(`unknown method ${name}`, 'bad_request');
      const parsed = method.params.safeParse(raw ?? {});
      if (!parsed.success) throw new HostRequestError(`bad parameters for ${name}: ${z.prettifyError(parsed.error)}`, 'bad_request');
      return method.handle(connection, parsed.data);
    },
    ...(protocol !== undefined ? { listenProtocol: (request) => protocol.listen(request) } : {}),
    async close() {
      for (const adapter of served) await adapter.close();
      await windows?.close();
      await runs.close();
      db.close();
      held.release();
    },
  };
}

/** Whether one of the adapters had the thread working, and stopped it. */
async function stoppedIn(adapters: readonly HostAdapter[], threadId: string): Promise<boolean> {
  for (const adapter of adapters) if ((await adapter.stop?.(threadId)) === true) return true;
  return false;
}
