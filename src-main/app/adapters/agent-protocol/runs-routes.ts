// The Agent Protocol's run routes (SPEC §19), as the reference server's api/runs.mjs: runs
// on a thread (create, stream, wait, list, get, join, rejoin, cancel, delete) and stateless
// runs (on a thread made for them).

import { z } from 'zod';
import { ThreadStore } from '../../threads/thread-store';
import type { ProtocolContext } from './context';
import { NOT_PRODUCED } from './event-translator';
import { json, ProtocolHttpError, type ProtocolReply, type ProtocolRequest, type Route } from './http';
import { toLangChainMessages } from './messages';
import type { ProtocolRuns } from './protocol-runs';
import type { RunRequest } from './run-request';
import { STREAM_MODES, type RunStream } from './run-stream';
import { writtenFiles } from './thread-files';
import { checkpointId } from './thread-state';
import { parseBody, parseQuery, uuidParam } from './validate';

const record = z.record(z.string(), z.unknown());

const runCreate = z.object({
  assistant_id: z.string().min(1),
  input: z.unknown().optional(),
  checkpoint_id: z.string().nullish(),
  checkpoint: z.object({ checkpoint_id: z.string().nullish() }).catchall(z.unknown()).nullish(),
  command: z.object({ resume: z.unknown().optional(), goto: z.unknown().optional(), update: z.unknown().optional() }).nullish(),
  metadata: record.nullish(),
  config: z.object({ tags: z.array(z.string()).optional(), recursion_limit: z.number().int().optional(), configurable: record.nullish() }).catchall(z.unknown()).nullish(),
  context: z.unknown().optional(),
  stream_mode: z.union([z.enum(STREAM_MODES), z.array(z.enum(STREAM_MODES))]).nullish(),
  multitask_strategy: z.enum(['reject', 'rollback', 'interrupt', 'enqueue']).nullish(),
  on_disconnect: z.enum(['cancel', 'continue']).nullish(),
  if_not_exists: z.enum(['reject', 'create']).nullish(),
  on_completion: z.enum(['delete', 'keep']).nullish(),
  stream_subgraphs: z.boolean().nullish(),
  stream_resumable: z.boolean().nullish(),
});

type RunCreate = z.output<typeof runCreate>;

/** A protocol client in words: a browser page by its origin, else its user agent (data: cut, control characters dropped). */
export function clientOf(request: ProtocolRequest): string | undefined {
  const header = (name: string): string | undefined => {
    const value = request.headers[name];
    const raw = Array.isArray(value) ? value[0] : value;
    const text = raw === undefined ? undefined : [...raw].filter((c) => c.charCodeAt(0) >= 0x20 && (c.charCodeAt(0) < 0x7f || c.charCodeAt(0) > 0x9f)).join('').trim();
    return text === undefined || text === '' ? undefined : text.slice(0, 80);
  };
  const origin = header('origin');
  if (origin !== undefined) return `a page at ${origin}`;
  // Deep Agents' async subagent tools (and their completion callbacks) send `x-auth-scheme: langsmith`; the SDK's own Client sends none.
  const agent = header('user-agent');
  if (header('x-auth-scheme') === 'langsmith') return `a Deep Agents parent${agent !== undefined ? ` (${agent})` : ''}`;
  return agent;
}

function runRequest(body: RunCreate, client?: string): RunRequest {
  const modes = body.stream_mode == null ? [] : Array.isArray(body.stream_mode) ? body.stream_mode : [body.stream_mode];
  const refused = modes.filter((mode) => NOT_PRODUCED.includes(mode));
  if (refused.length > 0) {
    throw new ProtocolHttpError(422, `stream_mode: Deepdesk runs have no LangGraph super-steps or checkpoints to stream (${refused.join(', ')}); ask for values, messages, messages-tuple, updates, events, custom or tools.`);
  }
  return {
    assistant_id: body.assistant_id,
    input: body.input,
    command: body.command ?? undefined,
    config: body.config == null ? undefined : { ...body.config, configurable: body.config.configurable ?? undefined },
    metadata: body.metadata ?? undefined,
    stream_mode: modes.length > 0 ? modes : ['values'],
    multitask_strategy: body.multitask_strategy ?? 'reject',
    if_not_exists: body.if_not_exists ?? undefined,
    on_completion: body.on_completion ?? undefined,
    ...(client !== undefined ? { client } : {}),
  };
}

export function runRoutes(context: ProtocolContext, runs: ProtocolRuns): Route[] {
  const threads = new ThreadStore(context.db);

  const knownThread = (threadId: string): void => {
    if (!runs.threadExists(threadId)) throw new ProtocolHttpError(404, `Thread with ID ${threadId} not found`);
  };
  const knownRun = (threadId: string, runId: string) => {
    knownThread(threadId);
    const run = runs.get(threadId, runId);
    if (run === undefined) throw new ProtocolHttpError(404, 'Run not found');
    return run;
  };
  /** What `join` and `wait` answer once the run is over: its last state, or the thread's. */
  const outcome = async (threadId: string, stream: RunStream | undefined): Promise<unknown> => {
    if (stream !== undefined) {
      await stream.finished();
      if (stream.last !== null) return stream.last;
    }
    if (!threads.exists(threadId)) return null;
    const state = threads.load(threadId);
    return { messages: toLangChainMessages(threadId, state.messages), todos: state.todos, files: writtenFiles(state.messages, threads.get(threadId)?.folder) };
  };
  /** `wait` and `join`: headers at once and a newline each second until the answer (as the reference's waitKeepAlive). */
  const waiting = (answer: Promise<unknown>, headers?: Record<string, string>): ProtocolReply => ({ kind: 'wait', answer, ...(headers ? { headers } : {}) });
  const sse = (stream: RunStream, request: ProtocolRequest, headers: Record<string, string>, lastEventId?: string): ProtocolReply => ({
    kind: 'sse',
    headers,
    events: stream.follow(lastEventId, request.disconnected),
  });
  /** A run's stream joined (from `Last-Event-ID` on): its parts, then each new one until it ends. */
  const joinStream = (request: ProtocolRequest, threadId: string, runId: string): ProtocolReply => {
    const stream = runs.stream(threadId, runId);
    if (stream === undefined) return { kind: 'sse', events: (async function* () {})() };
    const lastEventId = request.headers['last-event-id'];
    if (request.query.get('cancel_on_disconnect') === '1' || request.query.get('cancel_on_disconnect') === 'true') {
      request.disconnected.addEventListener('abort', () => void runs.cancel(threadId, runId).catch(() => undefined), { once: true });
    }
    return sse(stream, request, {}, typeof lastEventId === 'string' && lastEventId !== '' ? lastEventId : undefined);
  };
  /** A run from a checkpoint other than the thread's newest would fork it (agent-chat-ui's regenerate and edit): refused, not appended. */
  const refuseFork = (body: RunCreate, threadId: string | undefined): void => {
    const asked = body.checkpoint_id ?? body.checkpoint?.checkpoint_id ?? undefined;
    if (asked === undefined) return;
    const newest = threadId === undefined ? undefined : threads.get(threadId);
    if (newest !== undefined && asked === checkpointId(threadId!, newest.messageCount)) return;
    throw new ProtocolHttpError(422, 'checkpoint: Deepdesk threads do not fork from a checkpoint; send the new message on the thread as it is.');
  };
  /** `streamed`: the run's stream is the reply (a page closing it stops the run: cancelWhenLeft). */
  const create = async (request: ProtocolRequest, threadId: string | undefined, streamed = false) => {
    const body = parseBody(runCreate, request.body);
    refuseFork(body, threadId);
    const created = await runs.create(threadId, runRequest(body, clientOf(request)));
    const location = threadId === undefined ? `/runs/${created.run.run_id}` : `/threads/${threadId}/runs/${created.run.run_id}`;
    if (body.on_disconnect === 'cancel') {
      const cancel = () => void runs.cancel(created.run.thread_id, created.run.run_id).catch(() => undefined);
      if (request.disconnected.aborted) cancel();
      else request.disconnected.addEventListener('abort', cancel, { once: true });
    } else if (streamed && request.headers.origin !== undefined) {
      runs.cancelWhenLeft(created.run.thread_id, created.run.run_id, request.disconnected, `${clientOf(request)} over the Agent Protocol (it closed the run's stream)`);
    }
    return { ...created, headers: { 'content-location': location } };
  };

  const thread = (pattern: string) => `/threads/:thread_id/runs${pattern}`;
  // A run created, streamed or waited for: on a thread, or stateless (on a thread made for it).
  const starts = (base: string, threadOf: (request: ProtocolRequest) => string | undefined): Route[] => [
    {
      method: 'POST',
      pattern: base,
      handle: async (request) => {
        const { run, headers } = await create(request, threadOf(request));
        return json(run, 200, headers);
      },
    },
    {
      method: 'POST',
      pattern: `${base}/stream`,
      streams: true,
      handle: async (request) => {
        const { stream, headers } = await create(request, threadOf(request), true);
        return sse(stream, request, headers);
      },
    },
    {
      method: 'POST',
      pattern: `${base}/wait`,
      handle: async (request) => {
        const { run, stream, headers } = await create(request, threadOf(request));
        return waiting(outcome(run.thread_id, stream), headers);
      },
    },
  ];
  return [
    ...starts(thread(''), (request) => uuidParam(request, 'thread_id')),
    ...starts('/runs', () => undefined),
    {
      method: 'GET',
      pattern: thread(''),
      handle: async (request) => {
        const threadId = uuidParam(request, 'thread_id');
        knownThread(threadId);
        const query = parseQuery(
          z.object({ limit: z.coerce.number().int().min(0).default(10), offset: z.coerce.number().int().min(0).default(0), status: z.string().optional() }),
          request,
        );
        return json(runs.list(threadId, query));
      },
    },
    {
      method: 'GET',
      pattern: thread('/:run_id'),
      handle: async (request) => json(knownRun(uuidParam(request, 'thread_id'), uuidParam(request, 'run_id'))),
    },
    {
      method: 'DELETE',
      pattern: thread('/:run_id'),
      handle: async (request) => {
        knownThread(uuidParam(request, 'thread_id'));
        await runs.delete(uuidParam(request, 'thread_id'), uuidParam(request, 'run_id'));
        return { kind: 'empty', status: 204 };
      },
    },
    {
      method: 'GET',
      pattern: thread('/:run_id/join'),
      handle: async (request) => {
        const { thread_id, run_id } = knownRun(uuidParam(request, 'thread_id'), uuidParam(request, 'run_id'));
        return waiting(outcome(thread_id, runs.stream(thread_id, run_id)));
      },
    },
    {
      method: 'GET',
      pattern: thread('/:run_id/stream'),
      streams: true,
      handle: async (request) => {
        const { thread_id, run_id } = knownRun(uuidParam(request, 'thread_id'), uuidParam(request, 'run_id'));
        return joinStream(request, thread_id, run_id);
      },
    },
    {
      // A run joined by its id alone (the SDK's `joinStream(null, runId)`), as the reference serves it.
      method: 'GET',
      pattern: '/runs/:run_id/stream',
      streams: true,
      handle: async (request) => {
        const run = runs.byId(uuidParam(request, 'run_id'));
        if (run === undefined) throw new ProtocolHttpError(404, 'Run not found');
        return joinStream(request, run.thread_id, run.run_id);
      },
    },
    {
      method: 'POST',
      pattern: thread('/:run_id/cancel'),
      handle: async (request) => {
        const threadId = uuidParam(request, 'thread_id');
        const runId = uuidParam(request, 'run_id');
        knownRun(threadId, runId);
        const query = parseQuery(z.object({ wait: z.string().optional(), action: z.enum(['interrupt', 'rollback']).default('interrupt') }), request);
        if (query.action === 'rollback') throw new ProtocolHttpError(422, "action: rollback is not possible: Deepdesk cannot roll a thread's messages back. Use interrupt (the run stops, its messages stay).");
        const wait = query.wait === '1' || query.wait === 'true';
        const cancelled = runs.cancel(threadId, runId, `${clientOf(request) ?? 'a client'} over the Agent Protocol`);
        if (wait) await cancelled;
        else void cancelled.catch(() => undefined);
        return { kind: 'empty', status: wait ? 204 : 202 };
      },
    },
  ];
}
