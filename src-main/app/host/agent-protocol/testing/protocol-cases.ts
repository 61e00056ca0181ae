// Agent Protocol cases (SPEC §19), written once and run with the real SDK `Client` against any
// server: the reference LangGraph server (to keep them honest) and Deepdesk's. Each names the
// route families it needs, so a server is held only to the cases whose routes it serves
// (`casesFor`): when a family's routes are merged, its cases run with no change here.

import { randomUUID } from 'node:crypto';
import { Client } from '@langchain/langgraph-sdk';
import { expect } from 'vitest';
import type { Route } from '../http';
import { ChatOpenAI } from '@langchain/openai';
import { createDeepAgent } from 'deepagents';
import { startScriptedServer, type RecordedRequest, type ScriptedServer } from '../../../../core/models/testing/scripted-server';

export type RouteFamily = 'meta' | 'assistants' | 'store' | 'threads' | 'runs';

export interface CaseTarget {
  url: string;
  /** Sent as `x-api-key` (the reference fixture needs none). */
  apiKey?: string;
  /** The scripted model the target's `deepdesk` assistant calls (cases with runs push their steps). */
  model: ScriptedServer;
}

export interface ProtocolCase {
  name: string;
  needs: readonly RouteFamily[];
  run(target: CaseTarget): Promise<void>;
}

/** One route that shows a family is served. */
const FAMILY_ROUTE: Record<RouteFamily, { method: Route['method']; pattern: string }> = {
  meta: { method: 'GET', pattern: '/info' },
  assistants: { method: 'POST', pattern: '/assistants/search' },
  store: { method: 'PUT', pattern: '/store/items' },
  threads: { method: 'POST', pattern: '/threads' },
  runs: { method: 'POST', pattern: '/threads/:thread_id/runs' },
};

/** The cases whose route families `routes` serves. */
export function casesFor(routes: readonly Route[]): ProtocolCase[] {
  const served = (family: RouteFamily) => routes.some((r) => r.method === FAMILY_ROUTE[family].method && r.pattern === FAMILY_ROUTE[family].pattern);
  return PROTOCOL_CASES.filter((c) => c.needs.every(served));
}

const clientOf = (target: CaseTarget) => new Client({ apiUrl: target.url, ...(target.apiKey !== undefined ? { apiKey: target.apiKey } : {}) });

/** The status and body text of the SDK error `call` throws. */
async function failure(call: Promise<unknown>): Promise<{ status: number; text: string }> {
  try {
    await call;
  } catch (err) {
    const e = err as { status?: number; message?: string };
    return { status: e.status ?? -1, text: e.message ?? String(err) };
  }
  throw new Error('the call succeeded; it should have failed');
}

async function raw(target: CaseTarget, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(target.url + path, {
    method,
    headers: { 'content-type': 'application/json', ...(target.apiKey !== undefined ? { 'x-api-key': target.apiKey } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, text: await response.text() };
}

const ASSISTANT_KEYS = ['assistant_id', 'config', 'context', 'created_at', 'description', 'graph_id', 'metadata', 'name', 'updated_at', 'version'];
/** The reference's id for the assistant of graph `deepdesk`: UUID v5 in its graph namespace. */
const DEEPDESK_ASSISTANT_ID = '0bf14eba-f3fb-580c-907c-6333d095288e';

export const PROTOCOL_CASES: ProtocolCase[] = [
  {
    name: '/ok and /info answer without a key',
    needs: ['meta'],
    async run(target) {
      expect(await (await fetch(`${target.url}/ok`)).json()).toEqual({ ok: true });
      const info = (await (await fetch(`${target.url}/info`)).json()) as { version: unknown; flags: Record<string, unknown> };
      expect(typeof info.version).toBe('string');
      expect(info.flags).toMatchObject({ assistants: true, crons: false });
    },
  },
  {
    name: 'assistants: search finds deepdesk in the reference shape; get by id and by graph id',
    needs: ['assistants'],
    async run(target) {
      const client = clientOf(target);
      const all = await client.assistants.search();
      const deepdesk = all.find((a) => a.graph_id === 'deepdesk');
      expect(deepdesk).toBeDefined();
      expect(Object.keys(deepdesk!).sort()).toEqual(ASSISTANT_KEYS);
      expect(deepdesk).toMatchObject({ assistant_id: DEEPDESK_ASSISTANT_ID, name: 'deepdesk', version: 1, metadata: { created_by: 'system' } });
      expect((await client.assistants.search({ graphId: 'deepdesk' })).map((a) => a.assistant_id)).toEqual([DEEPDESK_ASSISTANT_ID]);
      expect(await client.assistants.search({ graphId: 'no-such-graph' })).toEqual([]);
      expect((await client.assistants.search({ name: 'DEEPD' })).map((a) => a.graph_id)).toContain('deepdesk');
      expect((await client.assistants.get('deepdesk')).assistant_id).toBe(DEEPDESK_ASSISTANT_ID);
      expect((await client.assistants.get(DEEPDESK_ASSISTANT_ID)).graph_id).toBe('deepdesk');
      const selected = await client.assistants.search({ graphId: 'deepdesk', select: ['assistant_id', 'name'] });
      expect(selected).toEqual([{ assistant_id: DEEPDESK_ASSISTANT_ID, name: 'deepdesk' }]);
    },
  },
  {
    name: 'assistants: unknown → 404; a malformed search → 400 naming the field',
    needs: ['assistants'],
    async run(target) {
      const client = clientOf(target);
      expect((await failure(client.assistants.get(randomUUID()))).status).toBe(404);
      expect((await failure(client.assistants.get('no-such-assistant'))).status).toBe(404);
      const bad = await failure(client.assistants.search({ limit: 0 }));
      expect(bad.status).toBe(400);
      expect(bad.text).toContain('limit');
    },
  },
  {
    name: 'store: put, get, search, namespaces, delete under ["memories"]',
    needs: ['store'],
    async run(target) {
      const client = clientOf(target);
      const key = `protocol-case-${randomUUID()}.md`;
      await client.store.putItem(['memories'], key, { content: 'remember the tide tables' });
      const item = await client.store.getItem(['memories'], key);
      expect(item).toMatchObject({ namespace: ['memories'], key, value: { content: 'remember the tide tables' } });
      expect(typeof item!.createdAt).toBe('string');
      expect(typeof item!.updatedAt).toBe('string');
      await client.store.putItem(['memories'], key, { content: 'and the moon' });
      expect((await client.store.getItem(['memories'], key))!.value).toEqual({ content: 'and the moon' });
      const found = await client.store.searchItems(['memories'], { limit: 100 });
      expect(found.items.map((i) => i.key)).toContain(key);
      expect(found.items.find((i) => i.key === key)).toMatchObject({ namespace: ['memories'], value: { content: 'and the moon' } });
      const filtered = await client.store.searchItems(['memories'], { filter: { content: 'and the moon' }, limit: 100 });
      expect(filtered.items.map((i) => i.key)).toContain(key);
      expect((await client.store.searchItems(['memories'], { filter: { content: 'not this' }, limit: 100 })).items.map((i) => i.key)).not.toContain(key);
      expect((await client.store.listNamespaces({ prefix: ['memories'] })).namespaces).toEqual([['memories']]);
      await client.store.deleteItem(['memories'], key);
      expect(await client.store.getItem(['memories'], key)).toBeNull();
      // Deleting what is not there succeeds, as getting it answers null.
      await client.store.deleteItem(['memories'], key);
      expect(await client.store.getItem(['memories'], `never-${key}`)).toBeNull();
    },
  },
  {
    name: 'store: a malformed item → 400 naming the field; a label with a period → 422',
    needs: ['store'],
    async run(target) {
      const notObject = await raw(target, 'PUT', '/store/items', { namespace: ['memories'], key: 'x.md', value: 'text' });
      expect(notObject.status).toBe(400);
      expect(notObject.text).toContain('value');
      const noKey = await raw(target, 'PUT', '/store/items', { namespace: ['memories'], value: { content: 'x' } });
      expect(noKey.status).toBe(400);
      expect(noKey.text).toContain('key');
      expect((await raw(target, 'PUT', '/store/items', { namespace: ['mem.ories'], key: 'x.md', value: { content: 'x' } })).status).toBe(422);
      expect((await raw(target, 'POST', '/store/items/search', { namespace_prefix: ['a.b'] })).status).toBe(422);
      expect((await raw(target, 'PUT', '/store/items', { namespace: [], key: 'x.md', value: { content: 'x' } })).status).toBe(400);
    },
  },
  {
    name: 'threads: create, get, search, delete; 409 on if_exists raise; 404 unknown; 400 malformed',
    needs: ['threads'],
    async run(target) {
      const client = clientOf(target);
      const tag = randomUUID();
      const thread = await client.threads.create({ metadata: { case: tag } });
      expect(thread).toMatchObject({ metadata: { case: tag }, status: 'idle' });
      expect(await client.threads.get(thread.thread_id)).toMatchObject({ thread_id: thread.thread_id, metadata: { case: tag } });
      expect((await client.threads.search({ metadata: { case: tag } })).map((t) => t.thread_id)).toEqual([thread.thread_id]);
      expect((await failure(client.threads.create({ threadId: thread.thread_id, ifExists: 'raise' }))).status).toBe(409);
      expect((await client.threads.create({ threadId: thread.thread_id, ifExists: 'do_nothing' })).thread_id).toBe(thread.thread_id);
      expect((await failure(client.threads.get(randomUUID()))).status).toBe(404);
      const bad = await raw(target, 'POST', '/threads', { metadata: 'not an object' });
      expect(bad.status).toBe(400);
      expect(bad.text).toContain('metadata');
      await client.threads.delete(thread.thread_id);
      expect((await failure(client.threads.get(thread.thread_id))).status).toBe(404);
      expect((await failure(client.threads.delete(randomUUID()))).status).toBe(404);
    },
  },
  {
    name: 'runs: wait answers the final values; the thread is idle after; unknown run → 404',
    needs: ['threads', 'runs'],
    async run(target) {
      const client = clientOf(target);
      target.model.push({ text: 'All done.' });
      const thread = await client.threads.create();
      const values = (await client.runs.wait(thread.thread_id, 'deepdesk', { input: { messages: [{ role: 'user', content: 'say done' }] } })) as { messages: Array<{ content: unknown; type: string }> };
      expect(values.messages.at(-1)).toMatchObject({ type: 'ai', content: 'All done.' });
      expect((await client.threads.get(thread.thread_id)).status).toBe('idle');
      const runs = await client.runs.list(thread.thread_id);
      expect(runs.map((r) => r.status)).toEqual(['success']);
      expect((await failure(client.runs.get(thread.thread_id, randomUUID()))).status).toBe(404);
      expect((await failure(client.runs.wait(thread.thread_id, 'no-such-assistant', { input: { messages: [] } }))).status).toBe(404);
    },
  },
  {
    name: "Deep Agents' async subagents: a parent starts a task on the server's deepdesk and reads its result",
    needs: ['threads', 'runs'],
    run: asyncSubagentCase,
  },
];

/** The parent is Deep Agents 1.14.1 on its own scripted model; its async subagent is the target's `deepdesk`. */
async function asyncSubagentCase(target: CaseTarget): Promise<void> {
  const client = clientOf(target);
  target.model.push({ text: 'The tide is high at six.' });
  let checked = '';
  const launchedTask = (request: RecordedRequest) => /taskId: ([0-9a-f-]+)/.exec(String(request.messages.at(-1)?.content ?? ''))?.[1];
  const parentModel = await startScriptedServer([
    { toolCalls: [{ name: 'start_async_task', args: { description: 'When is high tide?', agentName: 'tides' } }] },
    async (request) => {
      const taskId = launchedTask(request);
      if (taskId === undefined) throw new Error(`no task was launched: ${JSON.stringify(request.messages.at(-1))}`);
      // The task's thread is the remote thread: wait for its run to end, then have the parent check it.
      const [run] = await client.runs.list(taskId);
      await client.runs.join(taskId, run!.run_id);
      return { toolCalls: [{ name: 'check_async_task', args: { taskId } }] };
    },
    (request) => {
      checked = JSON.stringify(request.messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '');
      return { text: 'Done.' };
    },
  ]);
  try {
    const parent = createDeepAgent({
      model: new ChatOpenAI({ model: 'gpt-test', apiKey: 'test-key', configuration: { baseURL: parentModel.url } }),
      subagents: [{ name: 'tides', description: 'Knows the tides.', graphId: 'deepdesk', url: target.url, ...(target.apiKey !== undefined ? { headers: { 'x-api-key': target.apiKey } } : {}) }],
    });
    await parent.invoke({ messages: [{ role: 'user', content: 'Ask about the tide.' }] });
    expect(checked).toContain('success');
    expect(checked).toContain('The tide is high at six.');
  } finally {
    await parentModel.close();
  }
}
