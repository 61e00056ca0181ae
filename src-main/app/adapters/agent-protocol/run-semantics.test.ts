// What a protocol run means (SPEC §19), through the real LangGraph SDK Client over a real
// HostRuns: which agent and mode it runs with, an interrupt answered elsewhere, stateless runs,
// a client that goes away, deleting runs and threads, and the `events` and `custom` modes.

import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../../core/models/testing/scripted-server';
import { trustReport } from '../../../core/trust/report';
import { TrustStore } from '../../../core/trust/store';
import { ThreadStore } from '../../threads/thread-store';
import { collectParts, human, protocolHarnessPerTest, until } from './testing/protocol-harness';

const h = protocolHarnessPerTest();

type Values = { messages: Array<{ type: string; content: string }> };

function settings(extra: Record<string, unknown>): void {
  const path = join(h.dataDir, 'settings.json');
  writeFileSync(path, JSON.stringify({ ...(JSON.parse(readFileSync(path, 'utf8')) as object), ...extra }));
}

function systemOf(request: RecordedRequest): string {
  const system = request.messages.find((m) => m.role === 'system');
  return typeof system?.content === 'string' ? system.content : JSON.stringify(system?.content ?? '');
}

const toolsOf = (request: RecordedRequest) => (request.tools ?? []).map((t) => t.function.name).sort();

describe('which agent and mode a protocol run has', () => {
  it("runs a Settings subagent's assistant as that subagent: its prompt, its tools, its model; an unknown assistant is a 404", async () => {
    settings({
      subagents: [{ name: 'reviewer', description: 'Reviews code.', systemPrompt: 'You are the careful reviewer.', tools: ['read_file', 'ls'], model: 'openai-compatible:reviewer-model' }],
    });
    h.scripted.push({ text: 'reviewed' }, { text: 'main agent' });
    const threadId = randomUUID();
    const waited = (await h.client.runs.wait(threadId, 'reviewer', { input: human('review it'), ifNotExists: 'create' })) as Values;
    expect(waited.messages.at(-1)!.content).toBe('reviewed');
    const asked = h.scripted.requests[0]!;
    expect(asked.model).toBe('reviewer-model');
    expect(systemOf(asked)).toContain('You are the careful reviewer.');
    expect(systemOf(asked)).not.toContain('## You are a subagent');
    expect(toolsOf(asked)).toEqual(['ls', 'read_file']);
    const run = (await h.client.runs.list(threadId))[0]!;
    expect(run.assistant_id).toBe((await h.client.assistants.search({ graphId: 'reviewer' }))[0]!.assistant_id);

    // The same thread with `deepdesk`: Deepdesk's own agent, its model and its tools (task among them).
    await h.client.runs.wait(threadId, 'deepdesk', { input: human('and you?') });
    const main = h.scripted.requests[1]!;
    expect(main.model).toBe('scripted-model');
    expect(systemOf(main)).not.toContain('You are the careful reviewer.');
    expect(toolsOf(main)).toEqual(expect.arrayContaining(['task', 'write_file', 'read_file']));

    await expect(h.client.runs.wait(threadId, 'nobody', { input: human('x') })).rejects.toMatchObject({ status: 404 });
    expect(h.scripted.requests).toHaveLength(2);
  });

  it("lists the default folder's `.claude/agents` agents once the folder is trusted, and a run on one runs it", async () => {
    mkdirSync(join(h.folder, '.claude', 'agents'), { recursive: true });
    writeFileSync(join(h.folder, '.claude', 'agents', 'tidy.md'), '---\nname: tidy\ndescription: Tidies the folder.\ntools: Read\n---\nYou are the tidy agent.\n');
    const graphIds = async () => (await h.client.assistants.search()).map((a) => a.graph_id);
    // Not trusted: the folder's agent is not one (as its session would not load it).
    expect(await graphIds()).toEqual(['deepdesk']);
    await expect(h.client.runs.wait(null, 'tidy', { input: human('tidy up') })).rejects.toMatchObject({ status: 404 });

    const trust = new TrustStore(h.dataDir);
    trust.trust(h.folder, (await trustReport(h.folder, trust, {})).untrusted);
    trust.close();
    expect(await graphIds()).toEqual(['deepdesk', 'tidy']);
    const tidy = await h.client.assistants.get((await h.client.assistants.search({ graphId: 'tidy' }))[0]!.assistant_id);
    expect(tidy.description).toBe('Tidies the folder.');

    h.scripted.push({ text: 'tidied' });
    const threadId = randomUUID();
    const waited = (await h.client.runs.wait(threadId, tidy.assistant_id, { input: human('tidy up'), ifNotExists: 'create' })) as Values;
    expect(waited.messages.at(-1)!.content).toBe('tidied');
    expect(systemOf(h.scripted.requests[0]!)).toContain('You are the tidy agent.');
    expect(toolsOf(h.scripted.requests[0]!)).toEqual(['read_file']);
    expect((await h.client.runs.list(threadId))[0]!.assistant_id).toBe(tidy.assistant_id);
  });

  it("with no mode named, runs in the folder's saved mode (as the window does); a mode named wins", async () => {
    writeFileSync(join(h.dataDir, 'folder-modes.json'), JSON.stringify({ [h.folder]: { mode: 'plan' } }));
    h.scripted.push({ text: 'planning' }, { text: 'editing' });
    const threadId = randomUUID();
    await h.client.runs.wait(threadId, 'deepdesk', { input: human('plan it'), ifNotExists: 'create' });
    expect(systemOf(h.scripted.requests[0]!)).toContain('## Plan mode');
    await h.client.runs.wait(threadId, 'deepdesk', { input: human('do it'), config: { configurable: { mode: 'edit' } } });
    expect(systemOf(h.scripted.requests[1]!)).not.toContain('## Plan mode');
  });
});

describe('protocol runs and the rest of Deepdesk', () => {
  it('an interrupt answered elsewhere (as a window answers it) leaves the thread: busy while the run goes on, then idle', async () => {
    const threadId = randomUUID();
    // The run goes on until the test has seen it busy (not for a time the reads must fit in).
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    h.scripted.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/elsewhere.txt', content: 'yes\n' } }] }, async () => (await finished, { text: 'written' }));
    await h.client.runs.wait(threadId, 'deepdesk', { input: human('write it'), ifNotExists: 'create', config: { configurable: { mode: 'ask' } } });
    const waiting = await h.client.threads.get(threadId);
    expect(waiting.status).toBe('interrupted');
    expect(Object.values(waiting.interrupts ?? {}).flat()).toHaveLength(1);

    const question = h.context.runs.going(threadId)!.questions[0]!;
    h.context.runs.answer(threadId, question.key, { type: 'approve' });
    const busy = await h.client.threads.get(threadId);
    expect(busy.status).toBe('busy');
    expect(Object.values(busy.interrupts ?? {}).flat()).toEqual([]);
    finish();
    await until(() => h.client.threads.get(threadId), (t) => t.status === 'idle', 'the thread to be idle');
    expect(readFileSync(join(h.folder, 'elsewhere.txt'), 'utf8')).toBe('yes\n');
    const state = await h.client.threads.getState<Values>(threadId);
    expect(state.values.messages.at(-1)!.content).toBe('written');
  });

  it('a stateless run: its thread is deleted when it ends, or kept with on_completion keep', async () => {
    const threads = new ThreadStore(h.context.db);
    h.scripted.push({ text: 'streamed' }, { text: 'waited' }, { text: 'kept' });
    const parts = await collectParts(h.client.runs.stream(null, 'deepdesk', { input: human('stream it'), streamMode: ['values'] }));
    expect(parts[0]!.event).toBe('metadata');
    expect((parts.at(-1)!.data as Values).messages.at(-1)!.content).toBe('streamed');
    const waited = (await h.client.runs.wait(null, 'deepdesk', { input: human('wait for it') })) as Values;
    expect(waited.messages.map((m) => m.content)).toEqual(['wait for it', 'waited']);
    await until(() => threads.list().length, (n) => n === 0, 'the stateless threads to be deleted');

    // The SDK 1.15 types `onCompletion` as complete|continue; the reference takes delete|keep: sent as it is.
    const res = await fetch(`${h.url}/runs/wait`, {
      method: 'POST',
      headers: { 'x-api-key': h.key, 'content-type': 'application/json' },
      body: JSON.stringify({ assistant_id: 'deepdesk', input: human('keep it'), on_completion: 'keep' }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Values).messages.at(-1)!.content).toBe('kept');
    const [thread] = threads.list();
    expect(thread).toBeDefined();
    const read = await h.client.threads.getState<Values>(thread!.id);
    expect(read.values.messages.map((m) => m.content)).toEqual(['keep it', 'kept']);
    expect((await h.client.runs.list(thread!.id)).map((r) => r.status)).toEqual(['success']);
  });

  for (const onDisconnect of ['cancel', 'continue'] as const) {
    it(`a client that goes away mid-stream, on_disconnect ${onDisconnect}: ${onDisconnect === 'cancel' ? 'the run is interrupted and its command never finishes' : 'the run goes on and its command finishes'}`, async () => {
      const marker = join(h.folder, 'marker.txt');
      h.scripted.push({ toolCalls: [{ name: 'execute', args: { command: 'sleep 2; echo late > marker.txt' } }] }, { text: 'done' });
      const threadId = randomUUID();
      const calls: string[] = [];
      h.context.runs.onActivity((a) => {
        if (a.kind === 'event' && a.event.type === 'tool_call') calls.push(a.event.name);
      });
      const controller = new AbortController();
      const stream = h.client.runs.stream(threadId, 'deepdesk', {
        input: human('sleep'),
        ifNotExists: 'create',
        config: { configurable: { mode: 'auto' } },
        onDisconnect,
        signal: controller.signal,
      });
      let runId = '';
      const reading = (async () => {
        for await (const part of stream) if (part.event === 'metadata') runId = (part.data as { run_id: string }).run_id;
      })().catch(() => undefined);
      await until(() => calls, (c) => c.includes('execute'), 'the execute call');
      controller.abort();
      await reading;
      expect(runId).not.toBe('');
      if (onDisconnect === 'cancel') {
        await until(() => h.client.runs.get(threadId, runId), (r) => r.status === 'interrupted', 'the run to be interrupted');
        expect(h.context.runs.has(threadId)).toBe(false);
        expect((await h.client.threads.get(threadId)).status).toBe('idle');
        await new Promise((r) => setTimeout(r, 3_000));
        expect(existsSync(marker)).toBe(false);
      } else {
        await until(() => existsSync(marker), Boolean, 'the marker of the command that went on');
        await until(() => h.client.runs.get(threadId, runId), (r) => r.status === 'success', 'the run to succeed');
      }
    });
  }

  it('deletes a run: an ended one, and a going one (cancelled first, as the reference drops it); an unknown one is a 404', async () => {
    const threadId = randomUUID();
    h.scripted.push({ text: 'one' }, { hang: true, text: 'thinking' });
    await h.client.runs.wait(threadId, 'deepdesk', { input: human('one'), ifNotExists: 'create' });
    const [ended] = await h.client.runs.list(threadId);
    await h.client.runs.delete(threadId, ended!.run_id);
    await expect(h.client.runs.get(threadId, ended!.run_id)).rejects.toMatchObject({ status: 404 });

    const going = await h.client.runs.create(threadId, 'deepdesk', { input: human('two') });
    await until(() => h.scripted.requests.length, (n) => n === 2, 'the second model call');
    await h.client.runs.delete(threadId, going.run_id);
    await expect(h.client.runs.get(threadId, going.run_id)).rejects.toMatchObject({ status: 404 });
    expect(h.context.runs.has(threadId)).toBe(false);
    expect((await h.client.threads.get(threadId)).status).toBe('idle');
    await expect(h.client.runs.delete(threadId, randomUUID())).rejects.toMatchObject({ status: 404 });
  });

  it('deletes a thread with what it owns (its waiting run stopped, its approvals); refuses one working in a window or an editor (409)', async () => {
    const threadId = randomUUID();
    h.scripted.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/never.txt', content: 'no\n' } }] }, { text: 'never' });
    await h.client.runs.wait(threadId, 'deepdesk', { input: human('write it'), ifNotExists: 'create', config: { configurable: { mode: 'ask' } } });
    expect(h.context.runs.has(threadId)).toBe(true);
    // An approval saved for the thread, as a window's run leaves one when the app stops.
    h.context.db
      .prepare('INSERT INTO approvals (thread_id, tool_call_id, pending_json, created_at) VALUES (?, ?, ?, ?)')
      .run(threadId, 'call-1', JSON.stringify({ threadId, toolCallId: 'call-1' }), new Date().toISOString());
    const told: string[] = [];
    h.context.runs.onActivity((a) => {
      if (a.kind === 'deleted') told.push(a.threadId);
    });

    // While a window or an editor has it working, the person's work is not ended from outside.
    h.context.runs.workElsewhereFrom(async (id) => id === threadId);
    await expect(h.client.threads.delete(threadId)).rejects.toMatchObject({ status: 409 });
    expect(h.context.runs.has(threadId)).toBe(true);
    h.context.runs.workElsewhereFrom(async () => false);

    await h.client.threads.delete(threadId);
    expect(h.context.runs.has(threadId)).toBe(false);
    expect(new ThreadStore(h.context.db).exists(threadId)).toBe(false);
    expect(h.context.db.prepare('SELECT COUNT(*) AS n FROM approvals WHERE thread_id = ?').get(threadId)).toEqual({ n: 0 });
    expect(told).toEqual([threadId]);
    await expect(h.client.threads.get(threadId)).rejects.toMatchObject({ status: 404 });
    expect(existsSync(join(h.folder, 'never.txt'))).toBe(false);
  });

  it("streams the `events` and `custom` modes under the reference's event names", async () => {
    const threadId = randomUUID();
    h.scripted.push({ toolCalls: [{ name: 'execute', args: { command: 'echo out-of-the-shell; sleep 1' } }] }, { text: 'Hello there' });
    const parts = await collectParts(
      h.client.runs.stream(threadId, 'deepdesk', { input: human('run it'), ifNotExists: 'create', config: { configurable: { mode: 'auto' } }, streamMode: ['events', 'custom'] }),
    );
    expect(new Set(parts.map((p) => p.event))).toEqual(new Set(['metadata', 'events', 'custom']));
    const events = parts.filter((p) => p.event === 'events').map((p) => p.data as { event: string; name: string; run_id: string; data: unknown });
    expect(events.map((e) => e.event)).toEqual(expect.arrayContaining(['on_chat_model_start', 'on_chat_model_stream', 'on_tool_end']));
    const streamed = events.filter((e) => e.event === 'on_chat_model_stream').map((e) => (e.data as { chunk: { content: string } }).chunk.content);
    expect(streamed.join('')).toBe('Hello there');
    const custom = parts.filter((p) => p.event === 'custom').map((p) => p.data as { type: string; chunk?: string });
    expect(custom.filter((c) => c.type === 'tool_output').map((c) => c.chunk).join('')).toContain('out-of-the-shell');
  });
});
