// Agent Protocol cases (SPEC §19), written once and run with the real SDK `Client` against both
// servers: the reference LangGraph server (to keep them honest) and Deepdesk's. Both must pass
// every case; where Deepdesk differs by design (SPEC §19), the case says so.

import { randomUUID } from 'node:crypto';
import { Client } from '@langchain/langgraph-sdk';
import { expect } from 'vitest';
import { ChatOpenAI } from '@langchain/openai';
import { createDeepAgent } from 'deepagents';
import { startScriptedServer, type RecordedRequest, type ScriptedServer } from '../../../../core/models/testing/scripted-server';

export interface CaseTarget {
  url: string;
  /** Sent as `x-api-key` (the reference fixture needs none). */
  apiKey?: string;
  /** The scripted model the target's `deepdesk` assistant calls (cases with runs push their steps). */
  model: ScriptedServer;
  /** The text of a file a run on `threadId` wrote at `path` (e.g. `/a.txt`); undefined when none. */
  files(threadId: string, path: string): Promise<string | undefined>;
  /**
   * What a run paused at an interrupt reads while it waits: the reference says `success`;
   * Deepdesk `interrupted`, by design (a run waiting for the person is not done; it goes on,
   * then ends `success`, once answered: waiting-runs.test.ts).
   */
  waitingRunStatus: 'success' | 'interrupted';
}

export interface ProtocolCase {
  name: string;
  run(target: CaseTarget): Promise<void>;
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

/** A request as another client may send it; a string body is sent as it is. */
async function raw(target: CaseTarget, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(target.url + path, {
    method,
    headers: { 'content-type': 'application/json', ...(target.apiKey !== undefined ? { 'x-api-key': target.apiKey } : {}) },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  return { status: response.status, text: await response.text() };
}

const human = (content: string) => ({ messages: [{ role: 'user', content }] });

/** A state's messages as [type, text] (what both servers agree on; ids and metadata are each server's). */
function messagesOf(values: unknown): Array<[string, unknown]> {
  const messages = (values as { messages?: Array<{ type: string; content: unknown }> } | null)?.messages ?? [];
  return messages.map((m) => [m.type, m.content]);
}

async function collect(parts: AsyncIterable<{ event: string; data: unknown }>): Promise<Array<{ event: string; data: unknown }>> {
  const out: Array<{ event: string; data: unknown }> = [];
  for await (const part of parts) out.push({ event: part.event, data: part.data });
  return out;
}

const THREAD_KEYS = ['config', 'created_at', 'interrupts', 'metadata', 'status', 'thread_id', 'updated_at', 'values'];
const STATE_KEYS = ['checkpoint', 'created_at', 'metadata', 'next', 'parent_checkpoint', 'tasks', 'values'];
const RUN_KEYS = ['assistant_id', 'created_at', 'kwargs', 'metadata', 'multitask_strategy', 'run_id', 'status', 'thread_id', 'updated_at'];
const ASSISTANT_KEYS = ['assistant_id', 'config', 'context', 'created_at', 'description', 'graph_id', 'metadata', 'name', 'updated_at', 'version'];
/** The reference's id for the assistant of graph `deepdesk`: UUID v5 in its graph namespace. */
const DEEPDESK_ASSISTANT_ID = '0bf14eba-f3fb-580c-907c-6333d095288e';

export const PROTOCOL_CASES: ProtocolCase[] = [
  {
    name: '/ok and /info answer without a key',
    async run(target) {
      expect(await (await fetch(`${target.url}/ok`)).json()).toEqual({ ok: true });
      const info = (await (await fetch(`${target.url}/info`)).json()) as { version: unknown; flags: Record<string, unknown> };
      expect(typeof info.version).toBe('string');
      expect(info.flags).toMatchObject({ assistants: true, crons: false });
    },
  },
  {
    name: 'assistants: search finds deepdesk in the reference shape; get by id and by graph id',
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
    // Deepdesk's item values carry their status too (SPEC §25), and it lists both memory scopes as
    // namespaces: the case asks what both answer. Its server is run with review off (a put is active).
    name: 'store: put, get, search, namespaces, delete under ["memories"]',
    async run(target) {
      const client = clientOf(target);
      const key = `protocol-case-${randomUUID()}.md`;
      await client.store.putItem(['memories'], key, { content: 'remember the tide tables' });
      const item = await client.store.getItem(['memories'], key);
      expect(item).toMatchObject({ namespace: ['memories'], key, value: { content: 'remember the tide tables' } });
      expect(typeof item!.createdAt).toBe('string');
      expect(typeof item!.updatedAt).toBe('string');
      await client.store.putItem(['memories'], key, { content: 'and the moon' });
      expect((await client.store.getItem(['memories'], key))!.value).toMatchObject({ content: 'and the moon' });
      const found = await client.store.searchItems(['memories'], { limit: 100 });
      expect(found.items.map((i) => i.key)).toContain(key);
      expect(found.items.find((i) => i.key === key)).toMatchObject({ namespace: ['memories'], value: { content: 'and the moon' } });
      const filtered = await client.store.searchItems(['memories'], { filter: { content: 'and the moon' }, limit: 100 });
      expect(filtered.items.map((i) => i.key)).toContain(key);
      expect((await client.store.searchItems(['memories'], { filter: { content: 'not this' }, limit: 100 })).items.map((i) => i.key)).not.toContain(key);
      expect((await client.store.listNamespaces({ prefix: ['memories'] })).namespaces).toContainEqual(['memories']);
      await client.store.deleteItem(['memories'], key);
      expect(await client.store.getItem(['memories'], key)).toBeNull();
      // Deleting what is not there succeeds, as getting it answers null.
      await client.store.deleteItem(['memories'], key);
      expect(await client.store.getItem(['memories'], `never-${key}`)).toBeNull();
    },
  },
  {
    name: 'store: a malformed item → 400 naming the field; a label with a period → 422',
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
    },
  },
  {
    name: 'runs: an unknown assistant → 404',
    async run(target) {
      const client = clientOf(target);
      const thread = await client.threads.create();
      expect((await failure(client.runs.wait(thread.thread_id, 'no-such-assistant', { input: human('x') }))).status).toBe(404);
      expect((await client.runs.list(thread.thread_id))).toEqual([]);
    },
  },
  {
    name: 'runs: a stream in values, updates and messages-tuple: the reference event names and data shapes',
    async run(target) {
      const client = clientOf(target);
      target.model.push({ text: 'Hello there', pace: { chunkChars: 3, chunksPerSecond: 200 } });
      const thread = await client.threads.create();
      let created: { run_id: string; thread_id?: string } | undefined;
      const parts = await collect(
        client.runs.stream(thread.thread_id, 'deepdesk', { input: human('hi'), streamMode: ['values', 'updates', 'messages-tuple'], onRunCreated: (m) => (created = m) }),
      );
      expect(parts[0]).toMatchObject({ event: 'metadata', data: { run_id: created!.run_id, attempt: 1 } });
      expect(created!.thread_id).toBe(thread.thread_id);
      expect(new Set(parts.map((p) => p.event))).toEqual(new Set(['metadata', 'values', 'updates', 'messages']));
      // The state it starts from, first: the person's message.
      expect(messagesOf(parts.find((p) => p.event === 'values')!.data)).toEqual([['human', 'hi']]);
      // Token chunks: [message chunk, metadata naming the node], one message id, the text in order.
      const tokens = parts.filter((p) => p.event === 'messages').map((p) => p.data as [Record<string, unknown>, Record<string, unknown>]);
      expect(tokens.length).toBeGreaterThan(1);
      for (const [chunk, metadata] of tokens) {
        expect(chunk).toMatchObject({ content: expect.any(String), id: expect.any(String), type: expect.stringMatching(/^(ai|AIMessageChunk)$/) });
        expect(metadata).toMatchObject({ langgraph_node: 'model_request', langgraph_step: expect.any(Number), thread_id: thread.thread_id, run_id: created!.run_id });
      }
      expect(tokens.map(([chunk]) => chunk.content).join('')).toBe('Hello there');
      expect(new Set(tokens.map(([chunk]) => chunk.id)).size).toBe(1);
      // The model node's update holds its whole message.
      const model = parts.filter((p) => p.event === 'updates').map((p) => (p.data as Record<string, unknown>).model_request).filter((u) => u != null);
      expect(model).toHaveLength(1);
      expect(model[0]).toMatchObject({ messages: [{ type: 'ai', content: 'Hello there', id: tokens[0]![0].id }] });
      expect(messagesOf(parts.filter((p) => p.event === 'values').at(-1)!.data)).toEqual([
        ['human', 'hi'],
        ['ai', 'Hello there'],
      ]);
      expect(await client.runs.get(thread.thread_id, created!.run_id)).toMatchObject({ run_id: created!.run_id, thread_id: thread.thread_id, status: 'success', multitask_strategy: 'reject' });
    },
  },
  {
    name: 'runs: create then join answers the final values; the thread is idle with the values; list and get',
    async run(target) {
      const client = clientOf(target);
      target.model.push({ text: 'joined answer' });
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, 'deepdesk', { input: human('join me') });
      expect(run).toMatchObject({ thread_id: thread.thread_id, status: expect.stringMatching(/^(pending|running)$/), multitask_strategy: 'reject' });
      expect(Object.keys(run).sort()).toEqual(RUN_KEYS);
      const joined = await client.runs.join(thread.thread_id, run.run_id);
      expect(messagesOf(joined)).toEqual([
        ['human', 'join me'],
        ['ai', 'joined answer'],
      ]);
      const after = await client.threads.get(thread.thread_id);
      expect(after.status).toBe('idle');
      expect(after.metadata).toMatchObject({ graph_id: 'deepdesk', assistant_id: DEEPDESK_ASSISTANT_ID });
      expect(Object.keys(after).sort()).toEqual(THREAD_KEYS);
      expect(messagesOf(after.values)).toEqual(messagesOf(joined));
      expect(after.interrupts).toEqual({});
      expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe('success');
      expect((await client.runs.list(thread.thread_id)).map((r) => r.run_id)).toEqual([run.run_id]);
      const state = await client.threads.getState(thread.thread_id);
      expect(Object.keys(state).sort()).toEqual(STATE_KEYS);
      expect(Object.keys(state.checkpoint).sort()).toEqual(['checkpoint_id', 'checkpoint_map', 'checkpoint_ns', 'thread_id']);
      expect(state.next).toEqual([]);
      expect(messagesOf(state.values)).toEqual(messagesOf(joined));
    },
  },
  {
    name: 'runs: an approval is an interrupt; approve writes the file, reject does not',
    async run(target) {
      const client = clientOf(target);
      target.model.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/approved.txt', content: 'yes' } }] }, { text: 'written' });
      const thread = await client.threads.create();
      const first = await client.runs.wait(thread.thread_id, 'deepdesk', { input: human('write it') });
      expect(first).toMatchObject({ __interrupt__: [{ id: expect.any(String), value: { actionRequests: [{ name: 'write_file', args: { file_path: '/approved.txt', content: 'yes' } }] } }] });
      const [run] = await client.runs.list(thread.thread_id);
      expect(run!.status).toBe(target.waitingRunStatus);
      const waiting = await client.threads.get(thread.thread_id);
      expect(waiting.status).toBe('interrupted');
      const interrupts = Object.values(waiting.interrupts ?? {}).flat() as Array<{ id: string; value: { actionRequests: unknown[]; reviewConfigs: unknown[] } }>;
      expect(interrupts).toHaveLength(1);
      expect(interrupts[0]!.value.actionRequests).toEqual([{ name: 'write_file', args: { file_path: '/approved.txt', content: 'yes' }, description: expect.any(String) }]);
      // Deepdesk's also spells them in snake_case, as Python's middleware does (deep-agents-ui and agent-chat-ui read those).
      expect(interrupts[0]!.value.reviewConfigs).toMatchObject([{ actionName: 'write_file', allowedDecisions: ['approve', 'edit', 'reject'] }]);
      const state = await client.threads.getState(thread.thread_id);
      expect(state.next).toHaveLength(1);
      expect(state.tasks.flatMap((t) => t.interrupts)).toEqual(interrupts);
      expect(await target.files(thread.thread_id, '/approved.txt')).toBeUndefined();

      const approved = await client.runs.wait(thread.thread_id, 'deepdesk', { command: { resume: { decisions: [{ type: 'approve' }] } } });
      expect(messagesOf(approved).at(-1)).toEqual(['ai', 'written']);
      expect(await target.files(thread.thread_id, '/approved.txt')).toBe('yes');
      expect((await client.threads.get(thread.thread_id)).status).toBe('idle');

      target.model.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/refused.txt', content: 'no' } }] }, { text: 'not written' });
      await client.runs.wait(thread.thread_id, 'deepdesk', { input: human('write another') });
      expect((await client.threads.get(thread.thread_id)).status).toBe('interrupted');
      const rejected = await client.runs.wait(thread.thread_id, 'deepdesk', { command: { resume: { decisions: [{ type: 'reject', message: 'not that' }] } } });
      expect(messagesOf(rejected).at(-1)).toEqual(['ai', 'not written']);
      expect(await target.files(thread.thread_id, '/refused.txt')).toBeUndefined();
      expect((await client.runs.list(thread.thread_id)).map((r) => r.status)).toEqual(['success', 'success', 'success', 'success']);
    },
  },
  {
    name: 'runs: an interrupt resumed by its id (command.resume keyed by interrupt id) answers that interrupt',
    async run(target) {
      const client = clientOf(target);
      target.model.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/keyed.txt', content: 'by id' } }] }, { text: 'written by id' });
      const thread = await client.threads.create();
      const first = (await client.runs.wait(thread.thread_id, 'deepdesk', { input: human('write it') })) as { __interrupt__: Array<{ id: string }> };
      const [interrupt] = first.__interrupt__;
      // LangGraph's interrupt ids are 32 hex digits; a resume object keyed by them is read as keyed.
      expect(interrupt!.id).toMatch(/^[0-9a-f]{32}$/);
      const waiting = await client.threads.get(thread.thread_id);
      expect(Object.values(waiting.interrupts ?? {}).flat().map((i) => (i as { id: string }).id)).toEqual([interrupt!.id]);
      const approved = await client.runs.wait(thread.thread_id, 'deepdesk', { command: { resume: { [interrupt!.id]: { decisions: [{ type: 'approve' }] } } } });
      expect(messagesOf(approved).at(-1)).toEqual(['ai', 'written by id']);
      expect(await target.files(thread.thread_id, '/keyed.txt')).toBe('by id');
      expect((await client.threads.get(thread.thread_id)).status).toBe('idle');
    },
  },
  {
    name: 'runs: a second run on a busy thread under reject → 422; a cancelled run is interrupted, the thread idle; unknown run → 404',
    async run(target) {
      const client = clientOf(target);
      const thread = await client.threads.create();
      target.model.push({ hang: true });
      const before = target.model.requests.length;
      const first = await client.runs.create(thread.thread_id, 'deepdesk', { input: human('think') });
      await expect.poll(() => target.model.requests.length, { timeout: 60_000 }).toBeGreaterThan(before);
      expect((await client.threads.get(thread.thread_id)).status).toBe('busy');
      const busy = await failure(client.runs.create(thread.thread_id, 'deepdesk', { input: human('again') }));
      expect(busy.status).toBe(422);
      await client.runs.cancel(thread.thread_id, first.run_id, true);
      expect((await client.runs.get(thread.thread_id, first.run_id)).status).toBe('interrupted');
      expect((await client.threads.get(thread.thread_id)).status).toBe('idle');
      expect((await failure(client.runs.get(thread.thread_id, randomUUID()))).status).toBe(404);
      expect((await failure(client.runs.cancel(thread.thread_id, randomUUID()))).status).toBe(404);
    },
  },
  {
    // A run on an unknown thread is the reference's 422 (its put finds no thread), joining an
    // unknown run answers the thread's values: Deepdesk answers both 404 (SPEC §19; runs.test.ts).
    name: 'runs: a malformed run → 400 naming the field; runs of an unknown thread → 404',
    async run(target) {
      const client = clientOf(target);
      const thread = await client.threads.create();
      for (const [field, body] of [
        ['stream_mode', { assistant_id: 'deepdesk', stream_mode: 'tokens' }],
        ['multitask_strategy', { assistant_id: 'deepdesk', multitask_strategy: 'later' }],
        ['config', { assistant_id: 'deepdesk', config: 'x' }],
        ['metadata', { assistant_id: 'deepdesk', metadata: 'x' }],
        ['assistant_id', { input: null }],
      ] as const) {
        const bad = await raw(target, 'POST', `/threads/${thread.thread_id}/runs`, body);
        expect(bad.status, field).toBe(400);
        expect(bad.text, field).toContain(field);
      }
      expect((await raw(target, 'GET', `/threads/not-a-uuid/runs`)).status).toBe(400);
      expect((await raw(target, 'POST', `/threads/${thread.thread_id}/runs`, '{"assistant_id": ')).status).toBe(400);
      expect((await raw(target, 'POST', '/threads', '{not json')).status).toBe(400);
      expect((await failure(client.runs.list(randomUUID()))).status).toBe(404);
      expect((await client.runs.list(thread.thread_id))).toEqual([]);
    },
  },
  {
    name: "Deep Agents' async subagents: a parent starts a task on the server's deepdesk and reads its result",
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
