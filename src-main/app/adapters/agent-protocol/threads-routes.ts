// The Agent Protocol's `/threads` family (SPEC §19): create, get, patch, delete, search, count,
// copy, state and history, over Deepdesk's threads. A protocol thread is a Deepdesk thread (same
// id); one created here before its first run lives only in agent_protocol_threads until that run.

import { goalJson } from '../../../core/goals/goal';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ThreadStore, type ThreadSummary } from '../../threads/thread-store';
import { HostRequestError } from '../../base/host-service';
import { assistantIdOf } from './assistants-routes';
import { DEEPDESK_GRAPH_ID, type ProtocolContext, type ThreadActivity } from './context';
import { json, ProtocolHttpError, type ProtocolReply, type Route } from './http';
import { ProtocolThreadRecords, type ProtocolThreadRecord, type ThreadMetadata } from './protocol-threads';
import { checkpointCount, latestState, latestStateOfText, threadJson, threadStates, type ProtocolThreadState, type ThreadView } from './thread-state';
import { LangChainMessagesText } from './messages';
import { WrittenFiles, writtenFiles } from './thread-files';
import { contains, parseBody, uuidParam } from './validate';

const metadataSchema = z.record(z.string(), z.unknown());
const statusSchema = z.enum(['idle', 'busy', 'interrupted', 'error']);

const createSchema = z.object({
  thread_id: z.uuid().optional(),
  metadata: metadataSchema.optional(),
  if_exists: z.enum(['raise', 'do_nothing']).optional(),
  supersteps: z.array(z.unknown()).max(0, 'is not supported: a Deepdesk thread holds only what its runs did').optional(),
});
const patchSchema = z.object({ metadata: metadataSchema });
const filterSchema = z.object({ metadata: metadataSchema.optional(), status: statusSchema.optional(), values: metadataSchema.optional() });
const searchSchema = filterSchema.extend({
  ids: z.array(z.uuid()).optional(),
  limit: z.number().int().min(1).max(1000).optional(),
  offset: z.number().int().min(0).optional(),
  sort_by: z.enum(['thread_id', 'status', 'created_at', 'updated_at']).optional(),
  sort_order: z.enum(['asc', 'desc']).optional(),
  select: z.array(z.string()).optional(),
});
const historySchema = z.object({
  limit: z.number().int().min(1).optional(),
  // The reference takes a checkpoint id; the SDK types it as a config naming one: both are taken.
  before: z.union([z.string(), z.object({ configurable: z.object({ checkpoint_id: z.string() }) }).transform((c) => c.configurable.checkpoint_id)]).optional(),
  metadata: metadataSchema.optional(),
  checkpoint: z.object({ checkpoint_id: z.uuid().optional() }).optional(),
});
const stateCheckpointSchema = z.object({ checkpoint: z.object({ checkpoint_id: z.uuid().optional() }).nullish() });

const notFound = (threadId: string): ProtocolHttpError => new ProtocolHttpError(404, `Thread with ID ${threadId} not found`);

export function threadRoutes(context: ProtocolContext, activity: ThreadActivity): Route[] {
  const store = new ThreadStore(context.db);
  const records = new ProtocolThreadRecords(context.db);

  /**
   * A thread's metadata: the client's, over what every Deepdesk thread is (the `deepdesk`
   * graph), under what Deepdesk knows of it (its folder and title: facts, not settable).
   */
  function metadataOf(summary: ThreadSummary | undefined, record: ProtocolThreadRecord | undefined): ThreadMetadata {
    if (summary === undefined) return record?.metadata ?? {};
    return {
      graph_id: DEEPDESK_GRAPH_ID,
      assistant_id: assistantIdOf(DEEPDESK_GRAPH_ID),
      ...record?.metadata,
      deepdesk_folder: summary.folder,
      ...(summary.title !== '' ? { deepdesk_title: summary.title } : {}),
    };
  }

  /** What is known of a thread without reading its messages; undefined when there is no such thread. */
  function shallow(threadId: string, summary = store.get(threadId), record = records.get(threadId)): ThreadView | undefined {
    if (summary === undefined && record === undefined) return undefined;
    const updated = [summary?.updatedAt, record?.updatedAt].filter((t): t is string => t !== undefined).sort();
    return {
      threadId,
      metadata: metadataOf(summary, record),
      createdAt: record?.createdAt ?? summary!.createdAt,
      updatedAt: updated[updated.length - 1]!,
      status: activity.status(threadId),
      interrupts: activity.interrupts(threadId),
      ...(summary !== undefined ? { folder: summary.folder } : {}),
    };
  }

  /** The view with the thread's messages (one read of them; nothing kept). */
  function full(view: ThreadView): ThreadView {
    if (!store.exists(view.threadId)) return view;
    const state = store.load(view.threadId);
    store.forget(view.threadId);
    return { ...view, messages: state.messages, todos: state.todos, files: writtenFiles(state.messages, view.folder), ...(state.goal !== undefined ? { goal: goalJson(state.goal) } : {}) };
  }

  /**
   * The thread's newest state (getState: every message, as LangGraph clients expect), its
   * messages converted and written as JSON as they are read (a long thread is never held as objects).
   */
  function newestState(view: ThreadView): ProtocolThreadState {
    const text = new LangChainMessagesText(view.threadId);
    const written = new WrittenFiles();
    const state = store.readEachText(view.threadId, (json) => {
      text.addStored(json);
      written.addStored(json);
    });
    if (state === undefined) return latestState(view);
    return latestStateOfText({ ...view, todos: state.todos, files: written.files(view.folder), ...(state.goal !== undefined ? { goal: goalJson(state.goal) } : {}) }, text.finish());
  }

  function require(threadId: string): ThreadView {
    const view = shallow(threadId);
    if (view === undefined) throw notFound(threadId);
    return view;
  }

  /** Every thread passing the filter, with its messages read only when `values` is filtered on. */
  function matching(filter: z.infer<typeof filterSchema> & { ids?: string[] }): ThreadView[] {
    const summaries = new Map(store.list().map((s) => [s.id, s]));
    const recorded = new Map(records.all().map((r) => [r.threadId, r]));
    const ids = filter.ids ?? [...new Set([...summaries.keys(), ...recorded.keys()])];
    const views: ThreadView[] = [];
    for (const id of ids) {
      const view = shallow(id, summaries.get(id), recorded.get(id));
      if (view === undefined) continue;
      if (filter.metadata !== undefined && !contains(view.metadata, filter.metadata)) continue;
      if (filter.status !== undefined && view.status !== filter.status) continue;
      if (filter.values !== undefined) {
        const withMessages = full(view);
        // As the reference: a thread without values is not filtered out by them.
        if (withMessages.messages !== undefined && !contains(threadJson(withMessages, true).values, filter.values)) continue;
        views.push(withMessages);
        continue;
      }
      views.push(view);
    }
    return views;
  }

  function history(threadId: string, options: z.infer<typeof historySchema>): ProtocolReply {
    const view = full(require(threadId));
    const bound = (id: string | undefined, field: string): number | undefined => {
      if (id === undefined) return undefined;
      const count = checkpointCount(threadId, id);
      if (count === undefined) throw new ProtocolHttpError(404, `${field}: no checkpoint ${id} in thread ${threadId}`);
      return count;
    };
    const before = bound(options.before, 'before');
    const at = bound(options.checkpoint?.checkpoint_id, 'checkpoint.checkpoint_id');
    const atMost = Math.min(before === undefined ? Infinity : before - 1, at ?? Infinity);
    let states = threadStates(view, atMost === Infinity ? {} : { atMost });
    if (options.metadata !== undefined) states = states.filter((s) => contains(s.metadata, options.metadata));
    return json(states.slice(0, options.limit ?? 10));
  }

  function stateAt(threadId: string, checkpoint: string | undefined): ProtocolReply {
    if (checkpoint === undefined) return json(newestState(require(threadId)));
    const view = full(require(threadId));
    const count = checkpointCount(threadId, checkpoint);
    const state = count === undefined ? undefined : threadStates(view, { atMost: count, limit: 1 })[0];
    if (state === undefined || state.checkpoint?.checkpoint_id !== checkpoint) throw new ProtocolHttpError(404, `No checkpoint ${checkpoint} in thread ${threadId}`);
    return json(state);
  }

  return [
    {
      method: 'POST',
      pattern: '/threads',
      handle: async (request) => {
        const body = parseBody(createSchema, request.body);
        const threadId = body.thread_id ?? randomUUID();
        const existing = shallow(threadId);
        if (existing !== undefined) {
          if ((body.if_exists ?? 'raise') === 'raise') throw new ProtocolHttpError(409, 'Thread already exists');
          return json(threadJson(full(existing), true));
        }
        const now = new Date().toISOString();
        records.create(threadId, body.metadata ?? {}, now);
        return json(threadJson(require(threadId), true));
      },
    },

    {
      method: 'POST',
      pattern: '/threads/search',
      handle: async (request) => {
        const body = parseBody(searchSchema, request.body);
        const sortBy = body.sort_by ?? 'created_at';
        const order = (body.sort_order ?? 'desc') === 'desc' ? -1 : 1;
        const found = matching(body).sort((a, b) => {
          const key = (v: ThreadView): string => (sortBy === 'thread_id' ? v.threadId : sortBy === 'status' ? v.status : sortBy === 'created_at' ? v.createdAt : v.updatedAt);
          return order * key(a).localeCompare(key(b));
        });
        const offset = body.offset ?? 0;
        const limit = body.limit ?? 10;
        const page = found.slice(offset, offset + limit);
        const withValues = body.select === undefined || body.select.includes('values');
        const threads = page.map((view) => {
          const thread = threadJson(withValues ? full(view) : view, withValues) as unknown as Record<string, unknown>;
          return body.select === undefined ? thread : Object.fromEntries(Object.entries(thread).filter(([k]) => body.select!.includes(k)));
        });
        // The reference's pagination headers, as it computes them.
        const total = page.length > 0 ? found.length : 0;
        const next = offset + total;
        const headers: Record<string, string> = total === limit ? { 'X-Pagination-Next': String(next), 'X-Pagination-Total': String(next + 1) } : { 'X-Pagination-Total': String(next) };
        return json(threads, 200, headers);
      },
    },

    { method: 'POST', pattern: '/threads/count', handle: async (request) => json(matching(parseBody(filterSchema, request.body)).length) },

    { method: 'GET', pattern: '/threads/:thread_id', handle: async (request) => json(threadJson(full(require(uuidParam(request, 'thread_id'))), true)) },

    {
      method: 'PATCH',
      pattern: '/threads/:thread_id',
      handle: async (request) => {
        const threadId = uuidParam(request, 'thread_id');
        const body = parseBody(patchSchema, request.body);
        const view = require(threadId);
        records.merge(threadId, body.metadata, view.createdAt, new Date().toISOString());
        return json(threadJson(full(require(threadId)), true));
      },
    },

    {
      method: 'DELETE',
      pattern: '/threads/:thread_id',
      handle: async (request) => {
        const threadId = uuidParam(request, 'thread_id');
        require(threadId);
        // The reference deletes a thread with its runs whatever they do: the protocol's runs are
        // cancelled. Work in a window or an editor is the person's: refused as a busy thread.
        if (await context.runs.worksElsewhere(threadId)) throw busyElsewhere();
        await activity.cancelAll(threadId);
        if (store.exists(threadId)) {
          try {
            await context.runs.deleteThread(threadId);
          } catch (err) {
            if (err instanceof HostRequestError && err.code === 'failed') throw busyElsewhere();
            throw err;
          }
        }
        records.delete(threadId);
        return { kind: 'empty', status: 204 };
      },
    },

    {
      method: 'POST',
      pattern: '/threads/:thread_id/copy',
      handle: async (request) => {
        const threadId = uuidParam(request, 'thread_id');
        // As the reference: copying an unknown thread is a conflict.
        const view = shallow(threadId);
        if (view === undefined) throw new ProtocolHttpError(409, 'Thread not found');
        const copyId = randomUUID();
        const now = new Date().toISOString();
        const summary = store.get(threadId);
        if (summary !== undefined) {
          const state = store.load(threadId);
          store.forget(threadId);
          store.save({ ...state, id: copyId }, { folder: summary.folder, title: summary.title });
          store.forget(copyId);
        }
        records.create(copyId, { ...records.get(threadId)?.metadata, thread_id: copyId }, now);
        return json(threadJson(full(require(copyId)), true));
      },
    },

    { method: 'GET', pattern: '/threads/:thread_id/state', handle: async (request) => stateAt(uuidParam(request, 'thread_id'), undefined) },
    { method: 'GET', pattern: '/threads/:thread_id/state/:checkpoint_id', handle: async (request) => stateAt(uuidParam(request, 'thread_id'), uuidParam(request, 'checkpoint_id')) },
    { method: 'POST', pattern: '/threads/:thread_id/state/checkpoint', handle: async (request) => stateAt(uuidParam(request, 'thread_id'), parseBody(stateCheckpointSchema, request.body).checkpoint?.checkpoint_id) },

    {
      method: 'GET',
      pattern: '/threads/:thread_id/history',
      handle: async (request) => {
        const limit = request.query.get('limit');
        const before = request.query.get('before');
        return history(
          uuidParam(request, 'thread_id'),
          parseBody(historySchema, { ...(limit !== null ? { limit: Number(limit) } : {}), ...(before !== null ? { before } : {}) }),
        );
      },
    },
    { method: 'POST', pattern: '/threads/:thread_id/history', handle: async (request) => history(uuidParam(request, 'thread_id'), parseBody(historySchema, request.body)) },
  ];
}

/** The reference's conflict for a busy thread, saying where it works. */
function busyElsewhere(): ProtocolHttpError {
  return new ProtocolHttpError(409, 'Thread is busy: it is working in a Deepdesk window or an editor. Wait for it, or stop it there.');
}
