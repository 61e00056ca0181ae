// A run waiting for the person is not done (SPEC §19, issue 62): it reads `interrupted` — run
// and thread — wherever a client reads it, and once the approval is answered anywhere (here as
// the window answers: the host's decide) the same run goes on to its end, so that whoever holds
// its id follows it: a Deep Agents parent polling its task (the real deepagents tools), a script
// joining its stream (the real SDK client), by thread or by the run id alone.

import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChatOpenAI } from '@langchain/openai';
import { createDeepAgent } from 'deepagents';
import { describe, expect, it } from 'vitest';
import { startScriptedServer, type RecordedRequest } from '../../../core/models/testing/scripted-server';
import { ThreadStore } from '../../threads/thread-store';
import { collectParts, human, protocolHarnessPerTest, until } from './testing/protocol-harness';

const h = protocolHarnessPerTest();

type Values = { messages: Array<{ type: string; content: unknown }> };

/** As the window answers: the host run's pending approval, decided. */
function approveAsTheWindow(threadId: string): void {
  const question = h.context.runs.going(threadId)!.questions[0]!;
  h.context.runs.answer(threadId, question.key, { type: 'approve' });
}

describe('a run waiting for the person', () => {
  it('reads interrupted (get, list, wait, join, thread, state, search) and, answered in the window, goes on to success with the final answer', async () => {
    const threadId = randomUUID();
    // The model says something before its call: words of a run that is not over, not its answer.
    h.scripted.push({ text: 'Let me write it.', toolCalls: [{ name: 'write_file', args: { file_path: '/waited.txt', content: 'yes\n' } }] }, { text: 'The final answer.' });
    const parts = await collectParts(h.client.runs.stream(threadId, 'deepdesk', { input: human('write it'), ifNotExists: 'create', config: { configurable: { mode: 'ask' } }, streamMode: ['values'] }));
    const runId = (parts[0]!.data as { run_id: string }).run_id;
    expect((parts.at(-1)!.data as { __interrupt__?: unknown[] }).__interrupt__).toHaveLength(1);

    expect((await h.client.runs.get(threadId, runId)).status).toBe('interrupted');
    expect((await h.client.runs.list(threadId)).map((r) => r.status)).toEqual(['interrupted']);
    expect(await h.client.runs.join(threadId, runId)).toMatchObject({ __interrupt__: [{ id: expect.any(String) }] });
    const thread = await h.client.threads.get(threadId);
    expect(thread.status).toBe('interrupted');
    expect(Object.values(thread.interrupts ?? {}).flat()).toHaveLength(1);
    expect((await h.client.threads.getState(threadId)).next).toHaveLength(1);
    expect((await h.client.threads.search({ status: 'interrupted' })).map((t) => t.thread_id)).toContain(threadId);
    expect(existsSync(join(h.folder, 'waited.txt'))).toBe(false);

    // A script follows the rest from where its stream stopped, by thread and by the run id alone.
    // A join without Last-Event-ID answers what the run did so far, to its interrupt.
    const sofar = await collectParts(h.client.runs.joinStream(threadId, runId, { streamMode: ['values'] }));
    expect((sofar.at(-1)!.data as { __interrupt__?: unknown[] }).__interrupt__).toHaveLength(1);
    // A rejoin from the last part seen waits for the rest: the person answers a while later.
    const lastEventId = parts.at(-1)!.id;
    const byThread = collectParts(h.client.runs.joinStream(threadId, runId, { lastEventId, streamMode: ['values'] }));
    await new Promise((r) => setTimeout(r, 500));
    approveAsTheWindow(threadId);
    const rest = await byThread;
    const finalValues = rest.filter((p) => p.event === 'values').at(-1)!.data as Values;
    expect(finalValues.messages.at(-1)!.content).toBe('The final answer.');
    expect(readFileSync(join(h.folder, 'waited.txt'), 'utf8')).toBe('yes\n');
    await until(() => h.client.runs.get(threadId, runId), (r) => r.status === 'success', 'the waiting run to end');
    const joined = (await h.client.runs.join(threadId, runId)) as Values;
    expect(joined.messages.at(-1)).toMatchObject({ type: 'ai', content: 'The final answer.' });
    const byId = await collectParts(h.client.runs.joinStream(null, runId, { streamMode: ['values'] }));
    expect((byId.filter((p) => p.event === 'values').at(-1)!.data as Values).messages.at(-1)).toEqual(joined.messages.at(-1));
    expect((await h.client.threads.get(threadId)).status).toBe('idle');
  });

  it('a resume from another client: the waiting run goes on too, both end success', async () => {
    const threadId = randomUUID();
    h.scripted.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/resumed.txt', content: 'ok\n' } }] }, { text: 'resumed and done' });
    const first = (await h.client.runs.wait(threadId, 'deepdesk', { input: human('write it'), ifNotExists: 'create', config: { configurable: { mode: 'ask' } } })) as { __interrupt__: Array<{ id: string }> };
    const [waitingRun] = await h.client.runs.list(threadId);
    expect(waitingRun!.status).toBe('interrupted');
    const approvals: unknown[] = [];
    h.context.runs.onActivity((a) => void (a.kind === 'event' && a.event.type === 'approval' && approvals.push(a.event)));
    const resumed = (await h.client.runs.wait(threadId, 'deepdesk', { command: { resume: { [first.__interrupt__[0]!.id]: { decisions: [{ type: 'approve' }] } } } })) as Values;
    // The window is told who answered: this client, over the protocol (Node's fetch says `node`).
    expect(approvals).toContainEqual(expect.objectContaining({ status: 'approved', answeredIn: 'protocol', answeredBy: 'node' }));
    expect(resumed.messages.at(-1)!.content).toBe('resumed and done');
    await until(() => h.client.runs.get(threadId, waitingRun!.run_id), (r) => r.status === 'success', 'the waiting run to end');
    expect(((await h.client.runs.join(threadId, waitingRun!.run_id)) as Values).messages.at(-1)!.content).toBe('resumed and done');
  });

  it('cancelled while it waits: the wait ends (the approval is gone), nothing runs, the run stays interrupted', async () => {
    const threadId = randomUUID();
    h.scripted.push({ toolCalls: [{ name: 'execute', args: { command: 'echo no > cancelled-marker.txt' } }] }, { text: 'never' });
    await h.client.runs.wait(threadId, 'deepdesk', { input: human('run it'), ifNotExists: 'create', config: { configurable: { mode: 'ask' } } });
    const [run] = await h.client.runs.list(threadId);
    await h.client.runs.cancel(threadId, run!.run_id, true);
    await until(async () => h.context.runs.has(threadId), (going) => !going, 'the host run to stop');
    expect(existsSync(join(h.folder, 'cancelled-marker.txt'))).toBe(false);
    expect((await h.client.runs.get(threadId, run!.run_id)).status).toBe('interrupted');
    expect((await h.client.threads.get(threadId)).status).toBe('idle');
    // The thread says who stopped it (the window shows the note).
    const notes = new ThreadStore(h.context.db).load(threadId).messages.filter((m) => JSON.stringify(m).includes('Stopped by'));
    expect(JSON.stringify(notes)).toContain('Stopped by node over the Agent Protocol.');
  });
});

describe("a Deep Agents parent's async task that needs an approval", () => {
  it('check_async_task says interrupted with no result while it waits; after the approval in the window, success with the final answer', async () => {
    // Deep Agents sends no config: the folder's saved mode asks.
    writeFileSync(join(h.dataDir, 'folder-modes.json'), JSON.stringify({ [h.folder]: { mode: 'ask' } }));
    h.scripted.push({ text: 'Writing it down.', toolCalls: [{ name: 'write_file', args: { file_path: '/tide.txt', content: 'six\n' } }] }, { text: 'The tide is high at six.' });
    const checks: string[] = [];
    const lastTool = (request: RecordedRequest) => String(request.messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '');
    let taskId = '';
    const parentModel = await startScriptedServer([
      { toolCalls: [{ name: 'start_async_task', args: { description: 'Write the tide down.', agentName: 'tides' } }] },
      async (request) => {
        taskId = /taskId: ([0-9a-f-]+)/.exec(lastTool(request))![1]!;
        await until(() => h.client.threads.get(taskId), (t) => t.status === 'interrupted', 'the task to wait for the person');
        return { toolCalls: [{ name: 'check_async_task', args: { taskId } }] };
      },
      async (request) => {
        checks.push(lastTool(request));
        approveAsTheWindow(taskId);
        const [run] = await h.client.runs.list(taskId);
        await until(() => h.client.runs.get(taskId, run!.run_id), (r) => r.status === 'success', 'the task to end');
        return { toolCalls: [{ name: 'check_async_task', args: { taskId } }] };
      },
      (request) => {
        checks.push(lastTool(request));
        return { text: 'Done.' };
      },
    ]);
    try {
      const parent = createDeepAgent({
        model: new ChatOpenAI({ model: 'gpt-test', apiKey: 'test-key', configuration: { baseURL: parentModel.url } }),
        subagents: [{ name: 'tides', description: 'Knows the tides.', graphId: 'deepdesk', url: h.url, headers: { 'x-api-key': h.key } }],
      });
      await parent.invoke({ messages: [{ role: 'user', content: 'Have the tide written down.' }] });
    } finally {
      await parentModel.close();
    }
    const [waiting, done] = checks.map((c) => JSON.parse(c) as { status: string; result?: string });
    expect(waiting).toEqual({ status: 'interrupted', threadId: taskId });
    expect(done).toMatchObject({ status: 'success', result: 'The tide is high at six.' });
    expect(readFileSync(join(h.folder, 'tide.txt'), 'utf8')).toBe('six\n');
    // The window says the task came from a Deep Agents parent over the protocol (not "You").
    expect(new ThreadStore(h.context.db).get(taskId)?.source).toEqual({ kind: 'protocol', client: 'a Deep Agents parent (node)' });
  });
});
