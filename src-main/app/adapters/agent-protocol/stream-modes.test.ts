// What a run's stream and wait answer (SPEC §19), through the real SDK Client and raw HTTP:
// the `messages` and `tools` modes, the messages-tuple metadata and tool messages, the modes
// refused, checkpoint forks refused, `todos` in values, and `wait`'s keep-alive newlines.

import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { checkpointId } from './thread-state';
import { collectParts, human, protocolHarnessPerTest } from './testing/protocol-harness';

const h = protocolHarnessPerTest();

const TODOS = [{ content: 'look around', status: 'in_progress' }];

/** A run that plans (write_todos), lists the folder (ls), then answers. */
function planAndList(): void {
  h.scripted.push(
    { toolCalls: [{ name: 'write_todos', args: { todos: TODOS }, id: 'todo-1' }] },
    { toolCalls: [{ name: 'ls', args: { path: '/' }, id: 'ls-1' }] },
    { text: 'All done', pace: { chunkChars: 3, chunksPerSecond: 200 } },
  );
}

async function post(path: string, body: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(h.url + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': h.key }, body: JSON.stringify(body) });
  return { status: response.status, text: await response.text() };
}

describe('run stream modes', () => {
  it('streams `messages` as the reference does: metadata once per message, partials growing, each message complete once', async () => {
    planAndList();
    const threadId = randomUUID();
    const parts = await collectParts(h.client.runs.stream(threadId, 'deepdesk', { input: human('hi'), streamMode: ['messages'], ifNotExists: 'create' }));
    const events = new Set(parts.map((p) => p.event));
    expect(events).toEqual(new Set(['metadata', 'messages/metadata', 'messages/partial', 'messages/complete']));
    const complete = parts.filter((p) => p.event === 'messages/complete').flatMap((p) => p.data as Array<{ id: string; type: string; content: unknown }>);
    expect(complete.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'ai', 'tool', 'ai']);
    expect(new Set(complete.map((m) => m.id)).size).toBe(complete.length);
    expect(complete.at(-1)!.content).toBe('All done');
    const lastId = complete.at(-1)!.id;
    const metadata = parts.filter((p) => p.event === 'messages/metadata' && lastId in (p.data as object));
    expect(metadata).toHaveLength(1);
    expect((metadata[0]!.data as Record<string, { metadata: Record<string, unknown> }>)[lastId]!.metadata).toMatchObject({ langgraph_node: 'model_request', thread_id: threadId });
    const partials = parts.filter((p) => p.event === 'messages/partial').map((p) => (p.data as Array<{ id: string; content: string }>)[0]!).filter((m) => m.id === lastId);
    expect(partials.length).toBeGreaterThan(1);
    expect(partials.at(-1)!.content).toBe('All done');
    expect(partials.map((m) => m.content.length)).toEqual([...partials.map((m) => m.content.length)].sort((a, b) => a - b));
  });

  it('messages-tuple: the reference metadata on each chunk, and tool messages as tuples of the tools node', async () => {
    planAndList();
    const parts = await collectParts(h.client.runs.stream(randomUUID(), 'deepdesk', { input: human('hi'), streamMode: ['messages-tuple'], ifNotExists: 'create' }));
    const tuples = parts.filter((p) => p.event === 'messages').map((p) => p.data as [{ type: string; tool_call_id?: string; content: unknown }, Record<string, unknown>]);
    for (const [, metadata] of tuples) {
      expect(metadata).toMatchObject({ tags: [], langgraph_triggers: [expect.any(String)], langgraph_path: ['__pregel_pull', metadata.langgraph_node], checkpoint_ns: expect.stringMatching(new RegExp(`^${String(metadata.langgraph_node)}:`)) });
      expect(metadata.checkpoint_ns).toBe(metadata.langgraph_checkpoint_ns);
    }
    const tools = tuples.filter(([message]) => message.type === 'tool');
    expect(tools.map(([message, metadata]) => [message.tool_call_id, metadata.langgraph_node])).toEqual([
      ['todo-1', 'tools'],
      ['ls-1', 'tools'],
    ]);
  });

  it('`tools`: each call starts and ends, under its call id', async () => {
    planAndList();
    const parts = await collectParts(h.client.runs.stream(randomUUID(), 'deepdesk', { input: human('hi'), streamMode: ['tools'], ifNotExists: 'create' }));
    const tools = parts.filter((p) => p.event === 'tools').map((p) => p.data as { event: string; toolCallId: string; name: string });
    expect(tools.filter((t) => t.event !== 'on_tool_event').map((t) => [t.event, t.toolCallId, t.name])).toEqual([
      ['on_tool_start', 'todo-1', 'write_todos'],
      ['on_tool_end', 'todo-1', 'write_todos'],
      ['on_tool_start', 'ls-1', 'ls'],
      ['on_tool_end', 'ls-1', 'ls'],
    ]);
  });

  it('refuses the modes a Deepdesk run cannot produce (422 naming stream_mode) and starts no run', async () => {
    const threadId = (await h.client.threads.create()).thread_id;
    for (const mode of ['tasks', 'checkpoints', 'debug']) {
      const refused = await post(`/threads/${threadId}/runs/stream`, { assistant_id: 'deepdesk', input: human('hi'), stream_mode: ['values', mode] });
      expect(refused.status).toBe(422);
      expect(refused.text).toContain('stream_mode');
      expect(refused.text).toContain(mode);
    }
    expect(await h.client.runs.list(threadId)).toEqual([]);
  });

  it('values carry the thread\'s todos: in the run\'s stream, its wait, the thread and its state', async () => {
    planAndList();
    const threadId = randomUUID();
    const parts = await collectParts(h.client.runs.stream(threadId, 'deepdesk', { input: human('hi'), streamMode: ['values'], ifNotExists: 'create' }));
    const values = parts.filter((p) => p.event === 'values').map((p) => p.data as { todos: unknown });
    expect(values[0]!.todos).toEqual([]);
    expect(values.at(-1)!.todos).toEqual(TODOS);
    expect((await h.client.threads.get(threadId)).values).toMatchObject({ todos: TODOS });
    expect((await h.client.threads.getState(threadId)).values).toMatchObject({ todos: TODOS });
    // A later run starts from the thread's todos.
    h.scripted.push({ text: 'again' });
    const waited = (await h.client.runs.wait(threadId, 'deepdesk', { input: human('more') })) as { todos: unknown };
    expect(waited.todos).toEqual(TODOS);
  });

  it('refuses a run from a checkpoint that is not the thread\'s newest (agent-chat-ui\'s regenerate and edit): 422 naming checkpoint, nothing appended', async () => {
    h.scripted.push({ text: 'first answer' });
    const threadId = randomUUID();
    await h.client.runs.wait(threadId, 'deepdesk', { input: human('hi'), ifNotExists: 'create' });
    const state = await h.client.threads.getState(threadId);
    const older = checkpointId(threadId, 1);
    for (const body of [
      { assistant_id: 'deepdesk', input: null, checkpoint: { checkpoint_id: older, checkpoint_ns: '' } },
      { assistant_id: 'deepdesk', input: human('edited'), checkpoint_id: older },
    ]) {
      const refused = await post(`/threads/${threadId}/runs/stream`, body);
      expect(refused.status).toBe(422);
      expect(refused.text).toContain('checkpoint');
      expect(refused.text).toContain('do not fork');
    }
    expect((await h.client.threads.getState(threadId)).values).toEqual(state.values);
    // The newest checkpoint is the thread as it is: a run from it goes on.
    h.scripted.push({ text: 'second answer' });
    const waited = (await h.client.runs.wait(threadId, 'deepdesk', { input: human('next'), checkpointId: state.checkpoint.checkpoint_id! })) as { messages: Array<{ content: unknown }> };
    expect(waited.messages.at(-1)!.content).toBe('second answer');
  });

  it('wait sends its headers at once and newlines while the run goes on, then the JSON', async () => {
    // The model answers only once two keep-alive newlines have come (a state, not a delay): the
    // headers and the newlines surely came before the run's end, however slow the machine.
    let newlines = 0;
    let twoNewlines!: () => void;
    const seenTwo = new Promise<void>((resolve) => (twoNewlines = resolve));
    h.scripted.push(async () => {
      await seenTwo;
      return { text: 'slow answer' };
    });
    const threadId = randomUUID();
    const body = JSON.stringify({ assistant_id: 'deepdesk', input: human('hi'), if_not_exists: 'create' });
    const url = new URL(`${h.url}/threads/${threadId}/runs/wait`);
    const chunks: string[] = [];
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': h.key } }, (res) => {
        res.setEncoding('utf8');
        res.on('data', (text: string) => {
          chunks.push(text);
          if (!text.includes('{')) newlines += text.length;
          if (newlines >= 2) twoNewlines();
        });
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(200);
    const text = chunks.join('');
    const answer = JSON.parse(text) as { messages: Array<{ content: unknown }> };
    expect(answer.messages.at(-1)!.content).toBe('slow answer');
    expect(text.slice(0, text.indexOf('{'))).toMatch(/^\n{2,}$/);
    expect(chunks[0]!.startsWith('\n')).toBe(true);
  });
});
