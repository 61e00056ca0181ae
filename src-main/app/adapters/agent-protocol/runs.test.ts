// The Agent Protocol's runs (SPEC §19) through the real LangGraph SDK Client, in-process
// over a real HostRuns whose model is the scripted server.

import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveAssistant } from './assistants-routes';
import { collectParts, human, protocolHarnessPerTest, until } from './testing/protocol-harness';

const h = protocolHarnessPerTest();

describe('runs over the Agent Protocol', () => {
  it('streams a run: metadata, values, updates and messages-tuple token chunks, in order', async () => {
    h.scripted.push({ text: 'Hello there', pace: { chunkChars: 3, chunksPerSecond: 200 } });
    const threadId = randomUUID();
    let created: { run_id: string; thread_id?: string } | undefined;
    const parts = await collectParts(
      h.client.runs.stream(threadId, 'deepdesk', { input: human('hi'), streamMode: ['values', 'updates', 'messages-tuple'], ifNotExists: 'create', onRunCreated: (m) => (created = m) }),
    );
    const events = parts.map((p) => p.event);
    expect(events[0]).toBe('metadata');
    const runId = (parts[0]!.data as { run_id: string }).run_id;
    expect(created?.run_id).toBe(runId);
    expect(created?.thread_id).toBe(threadId);
    // The input state first, the token chunks, then the model's update and the state after it.
    expect(events[1]).toBe('values');
    expect((parts[1]!.data as { messages: Array<{ type: string; content: string }> }).messages.map((m) => [m.type, m.content])).toEqual([['human', 'hi']]);
    const tokens = parts.filter((p) => p.event === 'messages') as Array<{ data: [{ content: string; id: string; type: string }, { langgraph_node: string }] }>;
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.map((t) => t.data[0].content).join('')).toBe('Hello there');
    expect(new Set(tokens.map((t) => t.data[0].id)).size).toBe(1);
    expect(tokens[0]!.data[1].langgraph_node).toBe('model_request');
    const update = parts.findIndex((p) => p.event === 'updates');
    expect(update).toBeGreaterThan(parts.findIndex((p) => p.event === 'messages'));
    expect(parts[update]!.data).toMatchObject({ model_request: { messages: [{ type: 'ai', content: 'Hello there', id: tokens[0]!.data[0].id }] } });
    const last = parts.filter((p) => p.event === 'values').at(-1)!.data as { messages: Array<{ type: string; content: string }> };
    expect(last.messages.map((m) => [m.type, m.content])).toEqual([
      ['human', 'hi'],
      ['ai', 'Hello there'],
    ]);
    // Every part has an SSE id, in order.
    expect(parts.map((p) => p.id)).toEqual(parts.map((_, i) => String(i)));
    const run = await h.client.runs.get(threadId, runId);
    expect(run).toMatchObject({ run_id: runId, thread_id: threadId, assistant_id: resolveAssistant(h.context, 'deepdesk').assistant.assistant_id, status: 'success', multitask_strategy: 'reject' });
    expect((await h.client.runs.list(threadId)).map((r) => r.run_id)).toEqual([runId]);
  });

  it('waits for a run, joins it, and rejoins its stream after a Last-Event-ID', async () => {
    h.scripted.push({ text: 'first answer' }, { text: 'second answer' });
    const threadId = randomUUID();
    const waited = (await h.client.runs.wait(threadId, 'deepdesk', { input: human('one'), ifNotExists: 'create' })) as { messages: Array<{ content: string }> };
    expect(waited.messages.map((m) => m.content)).toEqual(['one', 'first answer']);

    const run = await h.client.runs.create(threadId, 'deepdesk', { input: human('two'), streamMode: ['values', 'updates'] });
    expect(run.status).toMatch(/pending|running/);
    const joined = (await h.client.runs.join(threadId, run.run_id)) as { messages: Array<{ content: string }> };
    expect(joined.messages.map((m) => m.content)).toEqual(['one', 'first answer', 'two', 'second answer']);

    const all = await collectParts(h.client.runs.joinStream(threadId, run.run_id));
    expect(all[0]!.event).toBe('metadata');
    const rest = await collectParts(h.client.runs.joinStream(threadId, run.run_id, { lastEventId: all[1]!.id! }));
    expect(rest.map((p) => p.id)).toEqual(all.slice(2).map((p) => p.id));
    expect((await h.client.runs.list(threadId)).map((r) => r.status)).toEqual(['success', 'success']);
  });

  it('cancels a run whose command sleeps: the command ends (its marker never appears), the run is interrupted and the thread idle', async () => {
    const marker = join(h.folder, 'marker.txt');
    h.scripted.push({ toolCalls: [{ name: 'execute', args: { command: 'sleep 2; echo late > marker.txt' } }] }, { text: 'never' });
    const threadId = randomUUID();
    const seen: string[] = [];
    h.context.runs.onActivity((a) => {
      if (a.kind === 'event') seen.push(a.event.type);
    });
    const run = await h.client.runs.create(threadId, 'deepdesk', { input: human('sleep'), ifNotExists: 'create', config: { configurable: { mode: 'auto' } }, streamMode: ['values', 'custom'] });
    await until(async () => seen, (types) => types.includes('tool_call'), 'the execute call');
    // The command starts once its call has been made (auto mode: nothing asks).
    await new Promise((r) => setTimeout(r, 500));
    expect(seen).not.toContain('tool_result');
    await h.client.runs.cancel(threadId, run.run_id, true);
    expect((await h.client.runs.get(threadId, run.run_id)).status).toBe('interrupted');
    expect(h.context.runs.has(threadId)).toBe(false);
    await new Promise((r) => setTimeout(r, 3000));
    expect(existsSync(marker)).toBe(false);
  });

  it('rejects a second run on a busy thread (422), enqueues one, and interrupts the going one for the interrupt strategy', async () => {
    const threadId = randomUUID();
    h.scripted.push({ hang: true, text: 'thinking' });
    const first = await h.client.runs.create(threadId, 'deepdesk', { input: human('one'), ifNotExists: 'create' });
    await until(async () => h.scripted.requests.length, (n) => n >= 1, 'the first model call');
    await expect(h.client.runs.create(threadId, 'deepdesk', { input: human('two') })).rejects.toMatchObject({ status: 422 });
    h.scripted.push({ text: 'queued answer' });
    const queued = await h.client.runs.create(threadId, 'deepdesk', { input: human('queued'), multitaskStrategy: 'enqueue' });
    expect(queued.status).toBe('pending');
    // The queued run starts once the going one ends.
    await h.client.runs.cancel(threadId, first.run_id, true);
    expect((await h.client.runs.get(threadId, first.run_id)).status).toBe('interrupted');
    const afterQueue = (await h.client.runs.join(threadId, queued.run_id)) as { messages: Array<{ content: string }> };
    expect(afterQueue.messages.at(-1)!.content).toBe('queued answer');
    // The interrupt strategy (Deep Agents' update_async_task) stops the going run, then runs.
    h.scripted.push({ hang: true, text: 'thinking again' });
    const second = await h.client.runs.create(threadId, 'deepdesk', { input: human('two') });
    await until(async () => h.scripted.requests.length, (n) => n >= 3, 'the second model call');
    h.scripted.push({ text: 'latest answer' });
    const latest = await h.client.runs.create(threadId, 'deepdesk', { input: human('latest'), multitaskStrategy: 'interrupt' });
    const joined = (await h.client.runs.join(threadId, latest.run_id)) as { messages: Array<{ content: string }> };
    expect(joined.messages.at(-1)!.content).toBe('latest answer');
    expect((await h.client.runs.get(threadId, second.run_id)).status).toBe('interrupted');
    expect((await h.client.runs.get(threadId, latest.run_id)).status).toBe('success');
  });

  it('an approval is an interrupt: the run and the thread read interrupted with the action request; approve lands the write, reject changes nothing', async () => {
    const threadId = randomUUID();
    h.scripted.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/approved.txt', content: 'yes\n' } }] }, { text: 'written' });
    const parts = await collectParts(h.client.runs.stream(threadId, 'deepdesk', { input: human('write it'), ifNotExists: 'create', streamMode: ['values', 'updates'] }));
    const interrupt = parts.find((p) => p.event === 'updates' && '__interrupt__' in (p.data as object))!.data as { __interrupt__: Array<{ id: string; value: { actionRequests: unknown[]; reviewConfigs: unknown[] } }> };
    expect(interrupt.__interrupt__[0]!.value.actionRequests).toEqual([{ name: 'write_file', args: { file_path: '/approved.txt', content: 'yes\n' }, description: expect.any(String) }]);
    expect(interrupt.__interrupt__[0]!.value.reviewConfigs).toMatchObject([{ actionName: 'write_file', allowedDecisions: ['approve', 'edit', 'reject'] }]);
    expect(parts.at(-1)).toMatchObject({ event: 'values', data: { __interrupt__: interrupt.__interrupt__ } });
    const runId = (parts[0]!.data as { run_id: string }).run_id;
    expect((await h.client.runs.get(threadId, runId)).status).toBe('interrupted');
    expect(existsSync(join(h.folder, 'approved.txt'))).toBe(false);

    const resumed = (await h.client.runs.wait(threadId, 'deepdesk', { command: { resume: { decisions: [{ type: 'approve' }] } } })) as { messages: Array<{ type: string; content: string }> };
    expect(resumed.messages.at(-1)!.content).toBe('written');
    expect(readFileSync(join(h.folder, 'approved.txt'), 'utf8')).toBe('yes\n');

    h.scripted.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/refused.txt', content: 'no\n' } }] }, { text: 'not written' });
    await h.client.runs.wait(threadId, 'deepdesk', { input: human('write another') });
    const rejected = (await h.client.runs.wait(threadId, 'deepdesk', { command: { resume: { decisions: [{ type: 'reject', message: 'not that' }] } } })) as { messages: Array<{ content: string }> };
    expect(rejected.messages.at(-1)!.content).toBe('not written');
    expect(existsSync(join(h.folder, 'refused.txt'))).toBe(false);

    // An edit runs the call with the person's arguments.
    h.scripted.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/edited.txt', content: 'model\n' } }] }, { text: 'edited' });
    await h.client.runs.wait(threadId, 'deepdesk', { input: human('write a third') });
    await h.client.runs.wait(threadId, 'deepdesk', { command: { resume: { decisions: [{ type: 'edit', editedAction: { name: 'write_file', args: { file_path: '/edited.txt', content: 'person\n' } } }] } } });
    expect(readFileSync(join(h.folder, 'edited.txt'), 'utf8')).toBe('person\n');
  });

  it('refuses a folder never opened (403), answers 404 for unknown threads and runs, 400 naming a malformed field, and keeps serving', async () => {
    const threadId = randomUUID();
    await expect(h.client.runs.create(threadId, 'deepdesk', { input: human('x'), ifNotExists: 'create', config: { configurable: { folder: '/nowhere/else' } } })).rejects.toMatchObject({ status: 403 });
    await expect(h.client.runs.create(randomUUID(), 'deepdesk', { input: human('x') })).rejects.toMatchObject({ status: 404 });
    await expect(h.client.runs.list(randomUUID())).rejects.toMatchObject({ status: 404 });
    const bad = async (body: unknown) => {
      const res = await fetch(`${h.url}/threads/${threadId}/runs`, { method: 'POST', headers: { 'x-api-key': h.key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, detail: ((await res.json()) as { detail: string }).detail };
    };
    expect(await bad({ assistant_id: 'deepdesk', stream_mode: 'tokens', if_not_exists: 'create' })).toMatchObject({ status: 400, detail: expect.stringContaining('stream_mode') });
    expect(await bad({ assistant_id: 'deepdesk', multitask_strategy: 'later', if_not_exists: 'create' })).toMatchObject({ status: 400, detail: expect.stringContaining('multitask_strategy') });
    h.scripted.push({ text: 'still here' });
    const waited = (await h.client.runs.wait(threadId, 'deepdesk', { input: human('ok?'), ifNotExists: 'create' })) as { messages: Array<{ content: string }> };
    expect(waited.messages.at(-1)!.content).toBe('still here');
    await expect(h.client.runs.get(threadId, randomUUID())).rejects.toMatchObject({ status: 404 });
    // Where the reference answers a run on an unknown thread 422 and a join of an unknown run with
    // the thread's values, SPEC §19 says 404.
    await expect(h.client.runs.join(threadId, randomUUID())).rejects.toMatchObject({ status: 404 });
  });
});
