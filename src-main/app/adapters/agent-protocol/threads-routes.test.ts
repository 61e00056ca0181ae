import { Client } from '@langchain/langgraph-sdk';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newThreadState } from '../../../core/agent/types';
import { CheckpointStore } from '../../../core/checkpoints/store';
import { startGoal } from '../../../core/goals/goal';
import type { ChatMessage } from '../../../core/models/types';
import { ThreadStore } from '../../threads/thread-store';
import type { ProtocolInterrupt, ProtocolThreadStatus, ThreadActivity } from './context';
import { startProtocolServer, type ProtocolServer } from './http';
import { assistantIdOf } from './assistants-routes';
import { checkpointId, INTERRUPT_NODE } from './thread-state';
import { threadRoutes } from './threads-routes';
import { startProtocolHarness, type ProtocolHarness } from './testing/protocol-harness';

/** The database with every statement run counted (real SQLite; only counted). */
function counted(db: Database.Database): { db: Database.Database; runs: () => number } {
  let runs = 0;
  const proxy = new Proxy(db, {
    get(target, prop) {
      if (prop === 'prepare') {
        return (sql: string) => {
          const statement = target.prepare(sql);
          return new Proxy(statement, {
            get(s, p) {
              const value = Reflect.get(s, p, s) as unknown;
              if (typeof value !== 'function') return value;
              if (p === 'all' || p === 'get' || p === 'run' || p === 'iterate') {
                return (...args: unknown[]) => {
                  runs++;
                  return (value as (...a: unknown[]) => unknown).apply(s, args);
                };
              }
              return (value as (...a: unknown[]) => unknown).bind(s);
            },
          });
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { db: proxy, runs: () => runs };
}

/** A thread's activity as a test sets it (the runs side provides the real one). */
class TestActivity implements ThreadActivity {
  statuses = new Map<string, ProtocolThreadStatus>();
  pending = new Map<string, ProtocolInterrupt[]>();
  cancelled: string[] = [];
  status(threadId: string): ProtocolThreadStatus {
    return this.statuses.get(threadId) ?? 'idle';
  }
  interrupts(threadId: string): ProtocolInterrupt[] {
    return this.pending.get(threadId) ?? [];
  }
  async cancelAll(threadId: string): Promise<void> {
    this.cancelled.push(threadId);
  }
}

function turn(i: number): ChatMessage[] {
  return [
    { role: 'user', content: `question ${i}` },
    { role: 'assistant', content: `looking ${i}`, toolCalls: [{ id: `call-${i}`, name: 'ls', args: { path: '/' }, argsText: '{"path":"/"}' }] },
    { role: 'tool', toolCallId: `call-${i}`, toolName: 'ls', content: 'a.txt' },
    { role: 'assistant', content: `answer ${i}` },
  ];
}

describe('the Agent Protocol /threads routes', () => {
  let h: ProtocolHarness;
  let dataDir: string;
  let runs: () => number;
  let store: ThreadStore;
  let server: ProtocolServer;
  let client: Client;
  const activity = new TestActivity();

  beforeAll(async () => {
    let count: ReturnType<typeof counted> | undefined;
    // The thread routes alone, told of runs by a TestActivity; the harness serves every route.
    h = await startProtocolHarness({ db: (db) => (count = counted(db)).db });
    runs = count!.runs;
    dataDir = h.dataDir;
    store = new ThreadStore(h.context.db);
    server = await startProtocolServer({ host: '127.0.0.1', port: 0, key: () => h.key, corsOrigins: [], routes: threadRoutes(h.context, activity) });
    client = new Client({ apiUrl: server.url, apiKey: h.key });
  });

  afterAll(async () => {
    await server?.close();
    await h?.close();
  });

  /** The status and detail a failed SDK call got. */
  async function failure(call: Promise<unknown>): Promise<{ status: number; detail: string }> {
    try {
      await call;
    } catch (err) {
      const e = err as { status?: number; message?: string };
      return { status: e.status ?? 0, detail: e.message ?? '' };
    }
    throw new Error('the call did not fail');
  }

  it('creates, gets, patches and deletes a thread that has not run', async () => {
    const created = await client.threads.create({ metadata: { owner: 'me', nested: { a: 1 } } });
    expect(created).toMatchObject({ metadata: { owner: 'me', nested: { a: 1 } }, status: 'idle', config: {} });
    expect(created.thread_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created).not.toHaveProperty('values');
    expect(await client.threads.get(created.thread_id)).toEqual(created);

    const patched = await client.threads.update(created.thread_id, { metadata: { label: 'x' } });
    expect(patched.metadata).toEqual({ owner: 'me', nested: { a: 1 }, label: 'x' });
    expect(patched.updated_at >= created.updated_at).toBe(true);

    const state = await client.threads.getState(created.thread_id);
    expect(state).toEqual({ values: {}, next: [], tasks: [], created_at: null, checkpoint: null, parent_checkpoint: null });
    expect(await client.threads.getHistory(created.thread_id)).toEqual([]);

    await client.threads.delete(created.thread_id);
    expect(activity.cancelled).toContain(created.thread_id);
    expect(await failure(client.threads.get(created.thread_id))).toMatchObject({ status: 404 });
  });

  it('answers 409 for an existing id under if_exists raise, and the thread under do_nothing', async () => {
    const threadId = '0190a1b2-0000-7000-8000-000000000001';
    await client.threads.create({ threadId, metadata: { first: true } });
    const again = await failure(client.threads.create({ threadId }));
    expect(again.status).toBe(409);
    expect(again.detail).toMatch(/already exists/);
    expect((await client.threads.create({ threadId, ifExists: 'do_nothing', metadata: { first: false } })).metadata).toEqual({ first: true });
  });

  it('answers 404 for an unknown thread on every route, 400 for a malformed field naming it (as the reference\'s zValidator)', async () => {
    const unknown = '0190a1b2-0000-7000-8000-00000000dead';
    for (const call of [
      () => client.threads.get(unknown),
      () => client.threads.update(unknown, { metadata: {} }),
      () => client.threads.delete(unknown),
      () => client.threads.getState(unknown),
      () => client.threads.getHistory(unknown),
    ]) {
      expect((await failure(call())).status).toBe(404);
    }
    // The SDK spreads create's metadata into an object: a malformed one comes from other clients.
    const bad = await fetch(`${server.url}/threads`, { method: 'POST', headers: { 'x-api-key': h.key, 'content-type': 'application/json' }, body: JSON.stringify({ metadata: ['not', 'an', 'object'] }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { detail: string }).detail).toMatch(/metadata: /);
    const badPatch = await failure(client.threads.update('0190a1b2-0000-7000-8000-000000000001', { metadata: 'x' as unknown as Record<string, unknown> }));
    expect(badPatch).toMatchObject({ status: 400 });
    expect(badPatch.detail).toMatch(/metadata/);
    const badSearch = await failure(client.threads.search({ status: 'sleeping' as 'idle' }));
    expect(badSearch.status).toBe(400);
    expect(badSearch.detail).toMatch(/status/);
    expect((await failure(client.threads.get('not-a-uuid'))).status).toBe(400);
  });

  it('reads a window thread: its messages as LangChain messages, its folder and title in metadata, one state per turn', async () => {
    const state = newThreadState('0190a1b2-0000-7000-8000-0000000000aa');
    state.messages.push(...turn(1), ...turn(2));
    store.save(state, { folder: '/work/project', title: 'Files' });

    const thread = await client.threads.get(state.id);
    expect(thread.metadata).toEqual({ graph_id: 'deepdesk', assistant_id: assistantIdOf('deepdesk'), deepdesk_folder: '/work/project', deepdesk_title: 'Files' });
    expect(thread.interrupts).toEqual({});
    const values = thread.values as { messages: Array<Record<string, unknown>> };
    expect(values.messages.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'ai', 'human', 'ai', 'tool', 'ai']);
    expect(values.messages[1]).toMatchObject({ id: `${state.id}:1`, tool_calls: [{ name: 'ls', args: { path: '/' }, id: 'call-1', type: 'tool_call' }] });

    const current = await client.threads.getState(state.id);
    expect(current.checkpoint).toEqual({ thread_id: state.id, checkpoint_ns: '', checkpoint_id: checkpointId(state.id, 8), checkpoint_map: null });
    expect(current.parent_checkpoint?.checkpoint_id).toBe(checkpointId(state.id, 4));
    expect(current.next).toEqual([]);
    expect(current.metadata).toMatchObject({ source: 'loop', step: 1 });

    const history = await client.threads.getHistory(state.id);
    expect(history.map((s) => (s.values as { messages: unknown[] }).messages.length)).toEqual([8, 4]);
    expect(history[0]).toEqual(current);
    expect(await client.threads.getHistory(state.id, { before: { configurable: { checkpoint_id: checkpointId(state.id, 8) } } })).toEqual([history[1]]);
    const byId = await fetch(`${server.url}/threads/${state.id}/history`, { method: 'POST', headers: { 'x-api-key': h.key, 'content-type': 'application/json' }, body: JSON.stringify({ before: checkpointId(state.id, 8) }) });
    expect(await byId.json()).toEqual([history[1]]);
    expect(await client.threads.getHistory(state.id, { checkpoint: { checkpoint_id: checkpointId(state.id, 4) } })).toEqual([history[1]]);
    expect(await client.threads.getHistory(state.id, { limit: 1 })).toEqual([history[0]]);
    const getHistory = (await (await fetch(`${server.url}/threads/${state.id}/history?limit=1`, { headers: { 'x-api-key': h.key } })).json()) as unknown[];
    expect(getHistory).toEqual([history[0]]);
    expect(await client.threads.getState(state.id, checkpointId(state.id, 4))).toEqual(history[1]);

    // Patched metadata is the client's; the folder stays Deepdesk's fact.
    const patched = await client.threads.update(state.id, { metadata: { tag: 'w', deepdesk_folder: '/elsewhere' } });
    expect(patched.metadata).toMatchObject({ tag: 'w', deepdesk_folder: '/work/project' });
    expect((await client.threads.search({ metadata: { deepdesk_folder: '/work/project' } })).map((t) => t.thread_id)).toEqual([state.id]);
  });

  it("answers getState byte for byte as the thread's newest state, its messages written as they are read (issue 66)", async () => {
    const state = newThreadState('0190a1b2-0000-7000-8000-0000000000ee');
    // More than a batch of messages, of every kind: notes, media, calls that did not parse, failed tools, text JSON must escape.
    for (let i = 0; i < 50; i++) {
      state.messages.push(...turn(i));
      if (i % 7 === 0) state.messages.push({ role: 'user', content: `restored ${i}`, note: { id: `note-${i}`, kind: 'restore', display: 'Restored' } });
      if (i % 11 === 0) state.messages.push({ role: 'user', content: [{ type: 'text', text: 'see "this"\n\u2028 é 😀 \ud800' }, { type: 'image', mimeType: 'image/png', data: 'aGk=', name: 'a.png' }, { type: 'file', mimeType: 'audio/wav', data: 'aGk=', name: 'b.wav' }] });
      if (i % 13 === 0) {
        state.messages.push({ role: 'assistant', content: '', toolCalls: [{ id: `bad-${i}`, name: 'ls', args: {}, argsText: '{"path":', parseError: 'Unexpected end of JSON input' }] });
        state.messages.push({ role: 'tool', toolCallId: `bad-${i}`, toolName: 'ls', content: 'failed', isError: true });
      }
    }
    state.todos = [{ content: 'write "it"', status: 'in_progress' }];
    store.save(state, { folder: '/work/project', title: 'Every kind' });
    activity.pending.set(state.id, [{ id: 'int-2', value: { action_requests: [{ name: 'ls', args: { path: '/' } }] } }]);
    try {
      const headers = { 'x-api-key': h.key };
      const text = await (await fetch(`${server.url}/threads/${state.id}/state`, { headers })).text();
      // The newest state of the history is made from the thread loaded whole, as objects.
      const [newest] = (await (await fetch(`${server.url}/threads/${state.id}/history?limit=1`, { headers })).json()) as unknown[];
      expect(text).toBe(JSON.stringify(newest));
      const parsed = JSON.parse(text) as { values: { messages: Array<{ id: string; type: string }> } };
      expect(parsed.values.messages).toHaveLength(state.messages.length);
      expect(parsed.values.messages.at(-1)!.id).toBe(`${state.id}:${state.messages.length - 1}`);
      expect(new Set(parsed.values.messages.map((m) => m.type))).toEqual(new Set(['human', 'ai', 'tool', 'system']));
    } finally {
      activity.pending.delete(state.id);
    }
  });

  it('answers getState byte for byte from stored rows the store would not write: other escapes, repeated keys, spaces, more keys, corrupt rows (issue 66)', async () => {
    const state = newThreadState('0190a1b2-0000-7000-8000-0000000000ef');
    for (let i = 0; i < 4; i++) state.messages.push(...turn(i));
    store.save(state, { folder: '/work/project', title: 'Odd rows' });
    // Rows as an older build or another writer may have left them: each is read as load() reads it.
    const rows = [
      String.raw`{"role":"tool","toolCallId":"c\/1","toolName":"ls","content":"a\u0041 \u00e9 \/ \u001f \u2028"}`,
      String.raw`{"role":"user","content":"first","content":"second"}`,
      String.raw`{"role":"tool","toolCallId":"c2","toolName":"ls","content":"x","toolCallId":"c3"}`,
      String.raw`{ "role":"assistant","content":"spaced"}`,
      String.raw`{"role":"assistant","content":"with provider","provider":"openai"}`,
      String.raw`{"role":"tool","toolCallId":"c4","toolName":"ls","content":"failed","isError":true,"exitCode":2}`,
      String.raw`{"role":"tool","toolCallId":"c5","toolName":"ls","content":"ok","isError":false}`,
      String.raw`{"role":"tool","toolCallId":"c6","toolName":7,"content":"named by a number"}`,
      String.raw`{"role":"user","content":"a note, null","note":null}`,
      String.raw`{"role":"user","content":"😀 \ud800 raw tab:	"}`,
      String.raw`{"role":"user","content":"😀 \ud800 \udc00"}`,
      String.raw`{"role":"user","content":"cut`,
      String.raw`["role","user"]`,
      String.raw`{"role":"user","content":"\"quoted\" \\ \b\f\n\r\t end"}`,
    ];
    const update = h.context.db.prepare('UPDATE thread_messages SET message_json = ? WHERE thread_id = ? AND seq = ?');
    rows.forEach((json, i) => update.run(json, state.id, i));
    const headers = { 'x-api-key': h.key };
    const text = await (await fetch(`${server.url}/threads/${state.id}/state`, { headers })).text();
    const [newest] = (await (await fetch(`${server.url}/threads/${state.id}/history?limit=1`, { headers })).json()) as unknown[];
    expect(text).toBe(JSON.stringify(newest));
    const messages = (JSON.parse(text) as { values: { messages: Array<{ content: unknown; type: string; name?: unknown; status?: string }> } }).values.messages;
    // The three corrupt rows (a raw tab in a string, a cut row, an array) are no messages; the rest are read as JSON.parse reads them.
    expect(messages).toHaveLength(state.messages.length - 3);
    expect(messages[0]).toMatchObject({ type: 'tool', content: 'aA é / \u001f \u2028' });
    expect(messages[1]).toMatchObject({ type: 'human', content: 'second' });
    expect(messages[5]).toMatchObject({ type: 'tool', status: 'error' });
    expect(messages[7]).toMatchObject({ type: 'tool', name: 7 });
    expect(messages[8]).toMatchObject({ type: 'system' });
    expect(messages[9]).toMatchObject({ type: 'human', content: '😀 \ud800 \udc00' });
  });

  it('answers getState of a long thread byte for byte while it reads it, batch after batch (issue 66)', async () => {
    const state = newThreadState('0190a1b2-0000-7000-8000-0000000000ed');
    // About 1.5 MB of messages: several batches of bytes, each sent as it is made.
    for (let i = 0; i < 120; i++) state.messages.push(...turn(i), { role: 'tool', toolCallId: `long-${i}`, toolName: 'read_file', content: `${'line "x"\t\n'.repeat(1000)}${i}` });
    state.todos = [{ content: 'long', status: 'pending' }];
    store.save(state, { folder: '/work/project', title: 'Long' });
    const headers = { 'x-api-key': h.key };
    const text = await (await fetch(`${server.url}/threads/${state.id}/state`, { headers })).text();
    const [newest] = (await (await fetch(`${server.url}/threads/${state.id}/history?limit=1`, { headers })).json()) as unknown[];
    expect(text).toBe(JSON.stringify(newest));
    expect(text.length).toBeGreaterThan(1_000_000);
  });

  it('answers getState of a thread none of whose rows reads as a message as the reference\'s state with no messages: no goal, no metadata (issue 66)', async () => {
    const state = newThreadState('0190a1b2-0000-7000-8000-0000000000ec');
    state.messages.push({ role: 'user', content: 'one' }, { role: 'assistant', content: 'two' });
    state.todos = [{ content: 'kept', status: 'pending' }];
    state.goal = startGoal({ objective: 'a goal', criteria: ['done'], verify: [] });
    store.save(state, { folder: '/work/project', title: 'Unreadable' });
    const update = h.context.db.prepare('UPDATE thread_messages SET message_json = ? WHERE thread_id = ? AND seq = ?');
    [String.raw`{"role":"user","content":"cut`, String.raw`["role","assistant"]`].forEach((json, i) => update.run(json, state.id, i));
    const text = await (await fetch(`${server.url}/threads/${state.id}/state`, { headers: { 'x-api-key': h.key } })).text();
    expect(text).toBe(JSON.stringify({ values: { messages: [], todos: [{ content: 'kept', status: 'pending' }], files: {} }, next: [], tasks: [], created_at: null, checkpoint: null, parent_checkpoint: null }));
  });

  it('shows a pending approval as an interrupt of the thread and a task of its state', async () => {
    const state = newThreadState('0190a1b2-0000-7000-8000-0000000000bb');
    state.messages.push(...turn(1).slice(0, 2));
    store.save(state, { folder: '/work/project' });
    const interrupt = { id: 'int-1', value: { action_requests: [{ name: 'ls', args: { path: '/' } }], review_configs: [{ action_name: 'ls', allowed_decisions: ['approve', 'reject'] }] } };
    activity.statuses.set(state.id, 'interrupted');
    activity.pending.set(state.id, [interrupt]);

    const thread = await client.threads.get(state.id);
    expect(thread.status).toBe('interrupted');
    const [taskId] = Object.keys(thread.interrupts);
    expect(thread.interrupts[taskId!]).toEqual([interrupt]);
    const current = await client.threads.getState(state.id);
    expect(current.next).toEqual([INTERRUPT_NODE]);
    expect(current.tasks).toEqual([{ id: taskId, name: INTERRUPT_NODE, path: ['__pregel_pull', INTERRUPT_NODE], error: null, interrupts: [interrupt], checkpoint: null, state: null, result: null }]);
    expect((await client.threads.search({ status: 'interrupted' })).map((t) => t.thread_id)).toEqual([state.id]);
    expect(await client.threads.count({ status: 'interrupted' })).toBe(1);
    activity.statuses.delete(state.id);
    activity.pending.delete(state.id);
  });

  it('searches by ids, metadata and status, sorts and pages as the reference', async () => {
    const a = await client.threads.create({ metadata: { kind: 'search', n: 1 } });
    const b = await client.threads.create({ metadata: { kind: 'search', n: 2 } });
    const c = await client.threads.create({ metadata: { kind: 'search', n: 3 } });
    const newest = await client.threads.search({ metadata: { kind: 'search' } });
    expect(newest.map((t) => t.thread_id)).toEqual([c.thread_id, b.thread_id, a.thread_id]);
    const oldest = await client.threads.search({ metadata: { kind: 'search' }, sortBy: 'created_at', sortOrder: 'asc', limit: 2, offset: 1 });
    expect(oldest.map((t) => t.thread_id)).toEqual([b.thread_id, c.thread_id]);
    expect((await client.threads.search({ ids: [a.thread_id, c.thread_id], sortBy: 'thread_id', sortOrder: 'asc' })).map((t) => t.thread_id)).toEqual(
      [a.thread_id, c.thread_id].sort(),
    );
    const selected = await client.threads.search({ ids: [a.thread_id], select: ['thread_id', 'metadata'] });
    expect(selected).toEqual([{ thread_id: a.thread_id, metadata: { kind: 'search', n: 1 } }]);
    const response = await fetch(`${server.url}/threads/search`, { method: 'POST', headers: { 'x-api-key': h.key, 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { kind: 'search' }, limit: 3 }) });
    expect(response.headers.get('x-pagination-total')).toBe('4');
    expect(response.headers.get('x-pagination-next')).toBe('3');
    expect(await client.threads.count({ metadata: { kind: 'search' } })).toBe(3);
  });

  it('copies a thread with its messages under a new id', async () => {
    const state = newThreadState('0190a1b2-0000-7000-8000-0000000000cc');
    state.messages.push(...turn(1));
    store.save(state, { folder: '/work/project', title: 'To copy' });
    const copy = await client.threads.copy(state.id);
    expect(copy.thread_id).not.toBe(state.id);
    expect(copy.metadata).toMatchObject({ deepdesk_folder: '/work/project', deepdesk_title: 'To copy', thread_id: copy.thread_id });
    expect((copy.values as { messages: unknown[] }).messages).toHaveLength(4);
    expect(store.load(copy.thread_id).messages).toEqual(state.messages);
  });

  it('deletes a window thread with its checkpoints', async () => {
    const state = newThreadState('0190a1b2-0000-7000-8000-0000000000dd');
    state.messages.push(...turn(1));
    store.save(state, { folder: '/work/project' });
    const checkpoints = CheckpointStore.open(dataDir);
    const change = { path: 'a.txt', before: null, after: null };
    checkpoints.commit({ folder: '/work/project', blobs: new Map(), manifest: new Map(), checkpoints: [{ folder: '/work/project', threadId: state.id, messageIndex: 0, messageLine: 'q', kind: 'agent', changes: [change] }] });
    expect(checkpoints.checkpointsOfThread(state.id)).toHaveLength(1);
    await client.threads.delete(state.id);
    expect(store.exists(state.id)).toBe(false);
    expect(checkpoints.checkpointsOfThread(state.id)).toEqual([]);
    checkpoints.close();
    expect((await failure(client.threads.getState(state.id))).status).toBe(404);
  });

  it("reads a 10,000-message thread's state and history with a few statements, not one a message", async () => {
    const state = newThreadState('0190a1b2-0000-7000-8000-0000000000ee');
    for (let i = 0; i < 2500; i++) state.messages.push(...turn(i));
    store.save(state, { folder: '/work/big' });
    const before = runs();
    const current = await client.threads.getState(state.id);
    expect((current.values as { messages: unknown[] }).messages).toHaveLength(10_000);
    const forState = runs() - before;
    expect(forState).toBeLessThan(10);
    const history = await client.threads.getHistory(state.id, { limit: 3 });
    expect(history.map((s) => (s.values as { messages: unknown[] }).messages.length)).toEqual([10_000, 9_996, 9_992]);
    expect(runs() - before - forState).toBeLessThan(10);
  });

  it('refuses a request without the protocol key (403)', async () => {
    const noKey = new Client({ apiUrl: h.url, apiKey: null as unknown as string, defaultHeaders: {} });
    expect((await failure(noKey.threads.search())).status).toBe(403);
    const wrongKey = new Client({ apiUrl: h.url, apiKey: 'wrong' });
    expect((await failure(wrongKey.threads.create())).status).toBe(403);
    // The assembled routes serve the family.
    expect((await new Client({ apiUrl: h.url, apiKey: h.key }).threads.create()).status).toBe('idle');
  });
});
