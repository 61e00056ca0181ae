// The agent host's service (SPEC §16): the methods its clients call over the socket, each
// checked with zod (a client is another process), answered by the runs it owns.

import { z } from 'zod';
import { APPROVAL_MODES } from '../../core/agent/permissions/modes';
import type { ApprovalDecision } from '../../core/agent/types';
import { openDatabase } from '../../core/backends/store/store';
import { databasePath } from '../base/data-dir';
import { HostRuns } from './runs';
import { HostCandidateSets, MAX_CANDIDATES } from '../session/candidate-sets';
import { resolveThread } from '../threads/thread-ref';
import { ThreadStore } from '../threads/thread-store';
import { HostWindows, windowCallParams, windowOpenParams } from './windows';
import { acpInParams, acpOpenParams, HostAcp } from './acp-tunnels';
import { holdDataFolderSecrets } from '../settings/data-folder-secrets';
import { sandboxRequestSchema, sessionFlagsRequest } from '../base/session-flag-schemas';
import { sandboxWorkFolder } from '../sandboxes/sandbox-request';
import { asHostError, HostRequestError, type HostService } from '../base/host-service';
import { RecentFolders } from '../places/recent-folders';
import { listenProtocol, openedInDeepdesk, type ProtocolHostContext } from './agent-protocol/listen';
import { protocolKey, rotateProtocolKey } from './agent-protocol/protocol-key';
import { checkListenRequest, protocolListenRequest, type ProtocolListenRequest } from '../contract/protocol-listen';
import type { ProtocolServer } from './agent-protocol/http';
import { protocolRoutes, protocolRuns } from './agent-protocol/routes';

const threadId = z.string().min(1).max(200);

const startParams = z.object({
  request: sessionFlagsRequest.extend({
    folder: z.string().min(1),
    prompt: z.string(),
    threadId: threadId.optional(),
    mode: z.enum(APPROVAL_MODES),
    maxCostUsd: z.number().positive().optional(),
    acceptDraft: z.boolean().optional(),
    /** A candidate's own instruction (its set gives it), added after the goal. */
    instruction: z.string().min(1).max(20_000).optional(),
    // `run --candidates N` (SPEC §21): the set this run is one of, and the budget the set shares.
    candidateSet: z.object({ id: z.string().min(1).max(200), maxCostUsd: z.number().positive().optional(), index: z.number().int().min(0).max(99), count: z.number().int().min(1).max(100) }).optional(),
  }),
  approve: z.enum(['ask', 'auto', 'deny']),
  interactive: z.boolean(),
  detach: z.boolean(),
});

// A set of candidates (SPEC §21): N runs of one goal on worktrees of the folder, one budget; the ranking when all end.
const candidatesStartParams = z.object({
  folder: z.string().min(1),
  count: z.number().int().min(1).max(MAX_CANDIDATES),
  models: z.array(z.string().min(1).max(500).nullable()).max(MAX_CANDIDATES).default([]),
  agents: z.array(z.string().min(1).max(200).nullable()).max(MAX_CANDIDATES).optional(),
  prompts: z.array(z.string().min(1).max(20_000).nullable()).max(MAX_CANDIDATES).optional(),
  request: startParams.shape.request.omit({ folder: true, threadId: true, candidateSet: true, model: true, maxCostUsd: true, externalAgent: true, instruction: true }),
  maxCostUsd: z.number().positive().optional(),
  approve: z.enum(['ask', 'auto', 'deny']),
  threadIds: z.array(threadId).max(MAX_CANDIDATES).optional(),
  follow: z.boolean(),
});

const METHODS = {
  'runs.start': startParams,
  'candidates.start': candidatesStartParams,
  'candidates.ranking': z.object({ setId: z.string().min(1).max(200) }),
  'runs.attach': z.object({ threadId, afterSeq: z.number().int().min(0).default(0), interactive: z.boolean().default(false) }),
  'runs.detach': z.object({ threadId }),
  'runs.decide': z.object({
    threadId,
    key: z.string().min(1),
    decision: z.discriminatedUnion('type', [z.object({ type: z.literal('approve') }), z.object({ type: z.literal('reject'), message: z.string().max(100_000).optional() })]),
  }),
  'runs.stop': z.object({ threadId }),
  'runs.list': z.object({}).default({}),
  'threads.resolve': z.object({ ref: z.string().min(1).max(200) }),
  'window.open': windowOpenParams,
  'window.call': windowCallParams,
  'window.runs': z.object({}).default({}),
  'acp.open': acpOpenParams,
  'acp.in': acpInParams,
  // `serve --sandbox`: the folder its window opens on (SPEC §18).
  'sandboxes.workFolder': z.object({ folder: z.string().min(1), cwd: z.string().min(1), env: z.record(z.string(), z.string()), sandbox: sandboxRequestSchema }),
  // Serve the Agent Protocol for as long as this connection stays (`deepdesk host --listen` while a host runs).
  'protocol.listen': protocolListenRequest,
} as const;

type MethodName = keyof typeof METHODS;

export interface HostServiceOptions {
  dataDir: string;
  env: NodeJS.ProcessEnv;
  version: string;
}

export async function createHostService(options: HostServiceOptions): Promise<HostService> {
  const db = openDatabase(databasePath(options.dataDir));
  // The data folder's keys (Settings' model keys, MCP sign-ins), one store for every client's sessions.
  const held = holdDataFolderSecrets(options.dataDir);
  const secrets = held.store;
  const runs = new HostRuns({ dataDir: options.dataDir, db, version: options.version, secrets });
  const threads = new ThreadStore(db);
  const log = (line: string) => process.stderr.write(`${new Date().toISOString()} [${process.pid}] ${line}\n`);
  const candidates = new HostCandidateSets(runs, { dataDir: options.dataDir, db, env: options.env, log, secrets });
  // Made when the first window opens: a host of `run`s only reads no keys.
  let windows: HostWindows | undefined;
  const editors = new HostAcp({
    // The Agent Client Protocol's SDK loads with the first editor, not with every host.
    open: async (streams, params) => (await import('./acp/open-acp-session')).openAcpSession(streams, params, { dataDir: options.dataDir, secrets }),
    log,
  });
  runs.workElsewhereFrom(async (threadId) => (await windows?.working(threadId)) === true || editors.working(threadId));
  let recent: RecentFolders | undefined;
  const protocolHost: ProtocolHostContext = {
    dataDir: options.dataDir,
    db,
    runs,
    start: (connection, params) => runs.start(connection, params),
    env: options.env,
    version: options.version,
    log,
    openedBefore: openedInDeepdesk(() => (recent ??= new RecentFolders(options.dataDir)), threads),
  };
  // One for every listener: the same queues whichever a client calls.
  const protocol = protocolRuns(protocolHost);
  /** The protocol's servers: those held until the host stops (a flag, Settings), and those of a connection; while any listens, the host is busy. */
  const listening = new Set<ProtocolServer>();
  /** Listens as asked; `already`: this host serves that address already (a second `host --listen` on it), nothing new was started. */
  const listen = async (request: ProtocolListenRequest, tell?: (line: string) => void): Promise<{ server: ProtocolServer; already: boolean }> => {
    const checked = checkListenRequest(request);
    if ('error' in checked) throw new HostRequestError(checked.error, 'bad_request');
    const { host, port } = checked.address;
    const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    const serving = port === 0 ? undefined : [...listening].find((s) => s.url === `http://${address}`);
    if (serving !== undefined) {
      log(`Agent Protocol: already listening on ${address} (asked again)`);
      return { server: serving, already: true };
    }
    let server: ProtocolServer;
    try {
      server = await listenProtocol(protocolHost, request, (context) => protocolRoutes(context, protocol), tell);
    } catch (err) {
      const inUse = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
      const why = inUse
        ? `another program already listens on ${address} (not this data folder's agent host): choose another port, or stop that program`
        : err instanceof Error
          ? err.message
          : String(err);
      log(`Agent Protocol: cannot listen on ${address}: ${why}`);
      throw new HostRequestError(`the Agent Protocol cannot listen on ${request.listen}: ${why}`, 'failed');
    }
    listening.add(server);
    log(`Agent Protocol: listening on ${server.url}`);
    return { server, already: false };
  };
  const unlisten = async (server: ProtocolServer): Promise<void> => {
    if (!listening.delete(server)) return;
    await server.close();
    log(`Agent Protocol: stopped listening on ${server.url}`);
  };
  return {
    busy: () => listening.size > 0 || runs.busy() || (windows?.busy() ?? false) || editors.busy(),
    serving: () => {
      runs.interruptOrphans();
      // Protocol runs another host left pending or running: that host is gone.
      protocol.interruptUnfinished();
    },
    async handle(connection, method, raw) {
      if (!Object.hasOwn(METHODS, method)) throw new HostRequestError(`unknown method ${method}`, 'bad_request');
      const parsed = METHODS[method as MethodName].safeParse(raw ?? {});
      if (!parsed.success) throw new HostRequestError(`bad parameters for ${method}: ${z.prettifyError(parsed.error)}`, 'bad_request');
      const params = parsed.data;
      switch (method as MethodName) {
        case 'runs.start':
          return runs.start(connection, params as z.output<typeof startParams>);
        case 'candidates.start':
          return candidates.start(connection, params as z.output<typeof candidatesStartParams>);
        case 'candidates.ranking':
          return candidates.ranking((params as { setId: string }).setId);
        case 'runs.attach': {
          const p = params as z.output<(typeof METHODS)['runs.attach']>;
          // A window's thread that works is followed in its folder's app.
          if (!runs.has(p.threadId)) {
            const windowThread = await windows?.attach(connection, p.threadId);
            if (windowThread !== undefined) return windowThread;
          }
          return runs.attach(connection, p.threadId, p.afterSeq, p.interactive);
        }
        case 'runs.detach':
          runs.detach(connection, (params as { threadId: string }).threadId);
          return { ok: true };
        case 'runs.decide': {
          const p = params as z.output<(typeof METHODS)['runs.decide']>;
          // Asked on the socket by a terminal (`run`, `attach`): the window's own answers come as window.call.
          const decision: ApprovalDecision =
            p.decision.type === 'approve' ? { type: 'approve', answeredIn: 'terminal' } : { type: 'reject', answeredIn: 'terminal', ...(p.decision.message !== undefined ? { message: p.decision.message } : {}) };
          if (!runs.has(p.threadId) && (await windows?.decide(p.threadId, p.key, decision))) return { ok: true };
          runs.decide(p.threadId, p.key, decision);
          return { ok: true };
        }
        case 'runs.stop': {
          const { threadId } = params as { threadId: string };
          // A window's thread is stopped in its folder's app.
          if (!runs.has(threadId) && ((await windows?.stop(threadId)) || (await editors.stop(threadId)))) return { state: 'stopped', reason: 'aborted', text: '' };
          return runs.stop(threadId);
        }
        // Every run's record: this host's, its windows' and those of other processes (run-records.ts).
        case 'runs.list':
          return { agents: runs.list() };
        // A thread's id from what a person typed: the whole id or a unique beginning (thread-ref.ts).
        case 'threads.resolve':
          try {
            return { threadId: resolveThread(threads, (params as { ref: string }).ref) };
          } catch (err) {
            throw asHostError(err);
          }
        case 'window.open':
          windows ??= new HostWindows({
            dataDir: options.dataDir,
            version: options.version,
            log,
            runs,
            candidates,
            secrets,
            protocol: {
              status: () => ({ listening: [...listening].map((server) => server.url), key: protocolKey(options.dataDir) }),
              rotateKey: () => {
                const key = rotateProtocolKey(options.dataDir);
                log('Agent Protocol: the key was rotated in Settings (the old one is refused from now on)');
                return { listening: [...listening].map((server) => server.url), key };
              },
            },
          });
          return windows.open(connection, params as z.output<typeof windowOpenParams>);
        case 'window.call': {
          const p = params as z.output<typeof windowCallParams>;
          if (windows === undefined) throw new HostRequestError('open a window first (window.open)', 'bad_request');
          return windows.call(connection, p.method, p.params);
        }
        // The threads the windows' apps have working: what quitting the desktop app asks about.
        case 'window.runs':
          return { threadIds: (await windows?.workingThreads()) ?? [] };
        case 'acp.open':
          try {
            return await editors.open(connection, params as z.output<typeof acpOpenParams>);
          } catch (err) {
            throw asHostError(err);
          }
        case 'acp.in':
          return editors.input(connection, (params as z.output<typeof acpInParams>).data);
        case 'sandboxes.workFolder': {
          const p = params as z.output<(typeof METHODS)['sandboxes.workFolder']>;
          const lines: string[] = [];
          try {
            const { folder } = await sandboxWorkFolder(p, { dataDir: options.dataDir, db, secrets }, (line) => lines.push(line));
            return { folder, lines };
          } catch (err) {
            throw asHostError(err);
          }
        }
        case 'protocol.listen': {
          // What the server says (a refused browser origin…) is told to the `host --listen` that asked for it too.
          const { server, already } = await listen(params as z.output<typeof protocolListenRequest>, (line) => {
            if (!connection.closed) connection.send('protocol.log', { line });
          });
          // Served already (Settings', another `host --listen`'s): it stays as it is; this connection holds nothing.
          if (!already) connection.onClose(() => void unlisten(server));
          return { url: server.url, already };
        }
      }
    },
    async listenProtocol(request) {
      const { server } = await listen(request);
      return server.url;
    },
    async close() {
      await Promise.all([...listening].map(unlisten));
      await protocol.close();
      recent?.close();
      await editors.close();
      await windows?.close();
      await runs.close();
      db.close();
      held.release();
    },
  };
}
