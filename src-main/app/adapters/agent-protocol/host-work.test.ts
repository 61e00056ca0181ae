// Protocol runs beside the host's other work (SPEC §19): a host run the protocol did not start
// (`deepdesk run --detach`'s) resumed over the protocol, a thread busy with a host run or a
// window's work under each multitask strategy, rollback refused, one set of queues for every
// listener, and a run's inline image reaching the model.

import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HostConnection } from '../../base/host-service';
import { startProtocolServer, type ProtocolServer } from './http';
import { protocolRoutes } from './routes';
import { collectParts, human, PROTOCOL_TEST_KEY, protocolHarnessPerTest, until } from './testing/protocol-harness';

const h = protocolHarnessPerTest();

type Values = { messages: Array<{ type: string; content: unknown }> };

/** A client of the host's socket that started a run and went (`deepdesk run --detach`). */
function detachedClient(): HostConnection {
  return { id: `cli:${randomUUID()}`, client: 'run', closed: false, send: () => undefined, ask: () => Promise.reject(new Error('no')), onClose: () => undefined };
}

/** Starts a host run on `threadId` as `deepdesk run --detach` does, not over the protocol. */
async function hostRun(threadId: string, prompt: string, mode: 'ask' | 'edit' = 'ask'): Promise<void> {
  await h.context.runs.start(detachedClient(), {
    request: { folder: h.folder, prompt, threadId, mode, mounts: [], mcpConfig: [], trust: false, cwd: h.folder, env: h.context.env },
    approve: 'ask',
    interactive: false,
    detach: true,
  });
}

const waitingApproval = (threadId: string) => until(async () => h.context.runs.going(threadId)?.questions.length ?? 0, (n) => n > 0, 'the approval');

describe('a host run the protocol did not start', () => {
  it('resumed over the protocol: streams the tool result and the answer, and join and wait give the final state', async () => {
    const threadId = randomUUID();
    h.scripted.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/detached.txt', content: 'yes\n' } }] }, { text: 'written by the detached run' });
    await hostRun(threadId, 'write it');
    await waitingApproval(threadId);
    expect((await h.client.threads.get(threadId)).status).toBe('interrupted');

    const parts = await collectParts(h.client.runs.stream(threadId, 'deepdesk', { command: { resume: { decisions: [{ type: 'approve' }] } }, streamMode: ['values', 'updates'] }));
    const runId = (parts[0]!.data as { run_id: string }).run_id;
    const updates = parts.filter((p) => p.event === 'updates').map((p) => p.data as Record<string, { messages: Array<{ type: string; content: unknown }> }>);
    expect(updates.some((u) => u.tools?.messages[0]?.type === 'tool')).toBe(true);
    expect(updates.some((u) => u.model_request?.messages[0]?.content === 'written by the detached run' || Object.values(u)[0]?.messages[0]?.content === 'written by the detached run')).toBe(true);
    const last = parts.filter((p) => p.event === 'values').at(-1)!.data as Values;
    expect(last.messages.at(-1)!.content).toBe('written by the detached run');
    expect(readFileSync(join(h.folder, 'detached.txt'), 'utf8')).toBe('yes\n');
    expect((await h.client.runs.get(threadId, runId)).status).toBe('success');
    expect(((await h.client.runs.join(threadId, runId)) as Values).messages.at(-1)!.content).toBe('written by the detached run');

    // The same through wait.
    h.scripted.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/second.txt', content: 'two\n' } }] }, { text: 'second written' });
    await hostRun(threadId, 'write another');
    await waitingApproval(threadId);
    // A resume without an interrupt id answers only what this server showed: the client reads the thread first.
    await expect(h.client.runs.wait(threadId, 'deepdesk', { command: { resume: { decisions: [{ type: 'approve' }] } } })).rejects.toMatchObject({ status: 409 });
    expect(existsSync(join(h.folder, 'second.txt'))).toBe(false);
    expect((await h.client.threads.getState(threadId)).next).toHaveLength(1);
    const waited = (await h.client.runs.wait(threadId, 'deepdesk', { command: { resume: { decisions: [{ type: 'approve' }] } } })) as Values;
    expect(waited.messages.at(-1)!.content).toBe('second written');
    expect(waited.messages.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'ai', 'human', 'ai', 'tool', 'ai']);
  });
});

describe('a thread busy with work that is not the protocol run', () => {
  it("reject answers 422 and stops nothing; a request that fails validation stops nothing; interrupt stops the host run; the thread is busy meanwhile", async () => {
    const threadId = randomUUID();
    h.scripted.push({ hang: true, text: 'working' });
    await hostRun(threadId, 'work on it', 'edit');
    await until(async () => h.scripted.requests.length, (n) => n >= 1, 'the host run asking the model');
    expect((await h.client.threads.get(threadId)).status).toBe('busy');

    await expect(h.client.runs.create(threadId, 'deepdesk', { input: human('mine now') })).rejects.toMatchObject({ status: 422 });
    await expect(h.client.runs.create(threadId, 'deepdesk', { input: { messages: [{ type: 'robot', content: 'x' }] }, multitaskStrategy: 'interrupt' })).rejects.toMatchObject({ status: 422 });
    await expect(h.client.runs.create(threadId, 'deepdesk', { input: human('x'), config: { configurable: { folder: '/never/opened' } }, multitaskStrategy: 'interrupt' })).rejects.toMatchObject({ status: 403 });
    expect(h.context.runs.has(threadId)).toBe(true);
    expect(h.context.runs.going(threadId)).toBeDefined();

    h.scripted.push({ text: 'interrupted and answered' });
    const run = await h.client.runs.create(threadId, 'deepdesk', { input: human('stop that'), multitaskStrategy: 'interrupt' });
    expect(((await h.client.runs.join(threadId, run.run_id)) as Values).messages.at(-1)!.content).toBe('interrupted and answered');
    expect(h.context.runs.recordedEnd(threadId)?.state).toBe('done');
  });

  it('enqueue behind a working host run starts once it ended; its answer follows the host run', async () => {
    const threadId = randomUUID();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    h.scripted.push(async () => (await held, { text: 'host answer' }), { text: 'queued answer' });
    await hostRun(threadId, 'take your time', 'edit');
    await until(async () => h.scripted.requests.length, (n) => n >= 1, 'the host run asking the model');
    const queued = await h.client.runs.create(threadId, 'deepdesk', { input: human('after you'), multitaskStrategy: 'enqueue' });
    expect(queued.status).toBe('pending');
    expect(h.scripted.requests).toHaveLength(1);
    expect(h.context.runs.has(threadId)).toBe(true);
    release();
    const joined = (await h.client.runs.join(threadId, queued.run_id)) as Values;
    expect(joined.messages.map((m) => m.content)).toEqual(['take your time', 'host answer', 'after you', 'queued answer']);
    expect(h.context.runs.recordedEnd(threadId)?.state).toBe('done');
  });

  it("work in a window or an editor: reject and interrupt answer 422 saying so; enqueue waits for it", async () => {
    const threadId = randomUUID();
    h.scripted.push({ text: 'first' }, { text: 'after the window' });
    await h.client.runs.wait(threadId, 'deepdesk', { input: human('first'), ifNotExists: 'create' });
    let windowWorks = true;
    h.context.runs.workElsewhereFrom(async (id) => id === threadId && windowWorks);
    await expect(h.client.runs.create(threadId, 'deepdesk', { input: human('two') })).rejects.toMatchObject({ status: 422 });
    await expect(h.client.runs.create(threadId, 'deepdesk', { input: human('two'), multitaskStrategy: 'interrupt' })).rejects.toThrow(/window or an editor/);
    const queued = await h.client.runs.create(threadId, 'deepdesk', { input: human('when you are done'), multitaskStrategy: 'enqueue' });
    expect((await h.client.runs.get(threadId, queued.run_id)).status).toBe('pending');
    expect(h.scripted.requests).toHaveLength(1);
    windowWorks = false;
    expect(((await h.client.runs.join(threadId, queued.run_id)) as Values).messages.at(-1)!.content).toBe('after the window');
  });
});

describe('rollback', () => {
  it('is refused with 422 naming the field: a thread cannot roll its messages back (as a strategy and as a cancel action)', async () => {
    const threadId = randomUUID();
    h.scripted.push({ text: 'kept' });
    const run = await h.client.runs.wait(threadId, 'deepdesk', { input: human('one'), ifNotExists: 'create' });
    expect(run).toBeDefined();
    await expect(h.client.runs.create(threadId, 'deepdesk', { input: human('two'), multitaskStrategy: 'rollback' })).rejects.toThrow(/multitask_strategy: rollback/);
    const [last] = await h.client.runs.list(threadId);
    const cancel = await fetch(`${h.url}/threads/${threadId}/runs/${last!.run_id}/cancel?action=rollback`, { method: 'POST', headers: { 'x-api-key': h.key } });
    expect(cancel.status).toBe(422);
    expect(((await cancel.json()) as { detail: string }).detail).toMatch(/^action: rollback/);
    // Nothing was deleted.
    expect((await h.client.runs.get(threadId, last!.run_id)).status).toBe('success');
    expect((await h.client.threads.getState<Values>(threadId)).values.messages.map((m) => m.content)).toEqual(['one', 'kept']);
  });
});

describe('the queues of a thread', () => {
  it('are made only by a run: reads and failed requests leave none behind', async () => {
    const threadId = randomUUID();
    h.scripted.push({ text: 'done' });
    await h.client.runs.wait(threadId, 'deepdesk', { input: human('one'), ifNotExists: 'create' });
    const queues = (h.protocolRuns as unknown as { book: { queues: Map<string, unknown> } }).book.queues;
    expect(queues.size).toBe(0);
    for (let i = 0; i < 3; i++) {
      await h.client.threads.get(threadId);
      await h.client.threads.search();
      await expect(h.client.runs.create(threadId, 'deepdesk', { command: { resume: { decisions: [] } } })).rejects.toMatchObject({ status: 409 });
      await expect(h.client.runs.create(randomUUID(), 'deepdesk', { input: human('x') })).rejects.toMatchObject({ status: 404 });
    }
    expect(queues.size).toBe(0);
  });
});

describe('two listeners', () => {
  let other: ProtocolServer;
  let client: Client;
  beforeEach(async () => {
    other = await startProtocolServer({ host: '127.0.0.1', port: 0, key: () => PROTOCOL_TEST_KEY, corsOrigins: [], routes: protocolRoutes(h.context, h.protocolRuns) });
    client = new Client({ apiUrl: other.url, apiKey: PROTOCOL_TEST_KEY });
  });
  afterEach(async () => {
    await other.close();
  });

  it("share the host's runs: one queue, and a listener started later leaves the other's runs going", async () => {
    const threadId = randomUUID();
    h.scripted.push({ hang: true, text: 'thinking' });
    const first = await h.client.runs.create(threadId, 'deepdesk', { input: human('one'), ifNotExists: 'create' });
    await until(async () => h.scripted.requests.length, (n) => n >= 1, 'the first model call');
    // A third listener, made while the run goes.
    const third = await startProtocolServer({ host: '127.0.0.1', port: 0, key: () => PROTOCOL_TEST_KEY, corsOrigins: [], routes: protocolRoutes(h.context, h.protocolRuns) });
    await third.close();
    expect((await client.runs.get(threadId, first.run_id)).status).toBe('running');
    h.scripted.push({ text: 'queued through the other listener' });
    const queued = await client.runs.create(threadId, 'deepdesk', { input: human('two'), multitaskStrategy: 'enqueue' });
    expect(queued.status).toBe('pending');
    expect((await h.client.runs.get(threadId, queued.run_id)).status).toBe('pending');
    await h.client.runs.cancel(threadId, first.run_id, true);
    expect(((await h.client.runs.join(threadId, queued.run_id)) as Values).messages.at(-1)!.content).toBe('queued through the other listener');
    expect((await client.runs.get(threadId, first.run_id)).status).toBe('interrupted');
  });
});

describe('media in a run input', () => {
  it("an inline image reaches the model as an image part, as the window's attachment does", async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201e2a1e8a10000000049454e44ae426082', 'hex').toString('base64');
    h.scripted.push({ text: 'a tiny image' });
    const threadId = randomUUID();
    const waited = (await h.client.runs.wait(threadId, 'deepdesk', {
      input: { messages: [{ type: 'human', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }] }] },
      ifNotExists: 'create',
    })) as Values;
    expect(waited.messages.at(-1)!.content).toBe('a tiny image');
    const user = h.scripted.requests[0]!.messages.filter((m) => m.role === 'user').at(-1)!;
    const parts = user.content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
    expect(parts.some((p) => p.type === 'text' && p.text?.includes('what is this?'))).toBe(true);
    expect(parts.find((p) => p.type === 'image_url')?.image_url?.url).toBe(`data:image/png;base64,${png}`);
    expect(existsSync(join(h.folder, 'attachment-2.png'))).toBe(false);
  });
});
