// Issue 10 and issue 9 §6 through the contract, with the real services and SQLite:
// edited approvals survive a restart, nobody is asked about a call that cannot run,
// command-line flags are never saved, the context meter survives a restart, and sends
// during a run are queued (one run per thread, every message delivered once).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type RecordedRequest, type ScriptedServer, type ScriptStep } from '../../core/models/testing/scripted-server';
import { createApp, type App } from './folder-app';
import type { AppOptions } from './window-session';
import type { EventFrame, MethodName, Params, Result } from '../contract';
import { FileSecretStore } from '../settings/file-secret-store';

let folder: string;
let dataDir: string;
let server: ScriptedServer;
const apps: App[] = [];

beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'deepdesk-honest-'));
  dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-honest-data-'));
  server = await startScriptedServer();
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  await server.close();
  rmSync(folder, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

type Call = <M extends MethodName>(m: M, p: Params<M>) => Promise<Result<M>>;

async function open(overrides?: AppOptions['overrides']): Promise<{ app: App; call: Call; events: EventFrame[]; next: (pred: (e: EventFrame) => boolean) => Promise<EventFrame> }> {
  const app = await createApp({
    folder,
    dataDir,
    secrets: new FileSecretStore(dataDir),
    transport: 'web',
    overrides: overrides ?? { model: 'openai-compatible:scripted-model', baseUrl: server.url },
    env: { ...process.env, OPENAI_API_KEY: '' },
  });
  apps.push(app);
  const events: EventFrame[] = [];
  const waiters: Array<{ pred: (e: EventFrame) => boolean; resolve: (e: EventFrame) => void }> = [];
  app.onEvent((frame) => {
    events.push(frame);
    for (const w of [...waiters]) {
      if (w.pred(frame)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(frame);
      }
    }
  });
  const next = (pred: (e: EventFrame) => boolean) =>
    new Promise<EventFrame>((resolve, reject) => {
      const found = events.find(pred);
      if (found) return resolve(found);
      const timer = setTimeout(() => reject(new Error('event did not arrive')), 20_000);
      waiters.push({ pred, resolve: (e) => (clearTimeout(timer), resolve(e)) });
    });
  const call: Call = (method, params) => app.handle(method, params) as Promise<Result<typeof method>>;
  return { app, call, events, next };
}

async function close(app: App): Promise<void> {
  await app.close();
  apps.splice(apps.indexOf(app), 1);
}

const agentEvent = (frame: EventFrame) => (frame.event === 'thread.event' ? (frame.payload as { event: { type: string; [k: string]: unknown } }).event : undefined);
const isDone = (e: EventFrame) => agentEvent(e)?.type === 'done';

describe('edited approvals through the app', () => {
  it('the model, the card and a restarted app all see the call that ran', async () => {
    server.push({ toolCalls: [{ id: 'cmd', name: 'write_file', args: { file_path: '/out.txt', content: 'original\n' } }] }, { text: 'Done.' });
    const first = await open();
    const thread = await first.call('threads.create', {});
    await first.call('threads.send', { threadId: thread.id, text: 'write out.txt' });
    await first.next((e) => e.event === 'approvals.changed');
    const [pending] = (await first.call('threads.get', { threadId: thread.id })).approvals;
    await first.call('approvals.decide', { threadId: thread.id, toolCallId: pending!.toolCallId, decision: { type: 'edit', args: { file_path: '/out.txt', content: 'edited\n' } } });
    await first.next(isDone);
    expect(readFileSync(join(folder, 'out.txt'), 'utf8')).toBe('edited\n');

    const sent = server.requests[1]!;
    const wireCall = sent.messages.flatMap((m) => (m.tool_calls as Array<{ id: string; function: { arguments: string } }> | undefined) ?? []).find((c) => c.id === 'cmd')!;
    expect(JSON.parse(wireCall.function.arguments)).toEqual({ file_path: '/out.txt', content: 'edited\n' });
    expect(String(sent.messages.find((m) => m.tool_call_id === 'cmd')!.content)).toMatch(/^Note: the person edited this call before it ran: content was "original\\n", it ran with "edited\\n"\. The result below is of the edited call\.\nUpdated file \/out\.txt$/);

    const expected = { kind: 'tool', id: 'cmd', args: { file_path: '/out.txt', content: 'edited\n' }, edited: true, originalArgs: { file_path: '/out.txt', content: 'original\n' } };
    expect((await first.call('threads.get', { threadId: thread.id })).items.find((i) => i.kind === 'tool')).toMatchObject(expected);
    await close(first.app);

    const second = await open();
    expect((await second.call('threads.get', { threadId: thread.id })).items.find((i) => i.kind === 'tool')).toMatchObject(expected);
  });
});

describe('asking only for what can run, through the app', () => {
  it('a write to an existing unread file is refused without an approval', async () => {
    writeFileSync(join(folder, 'exists.txt'), 'keep me\n');
    server.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/exists.txt', content: 'clobbered' } }] }, { text: 'I will read it first.' });
    const { call, next, events } = await open();
    const thread = await call('threads.create', {});
    await call('threads.send', { threadId: thread.id, text: 'overwrite' });
    await next(isDone);
    expect(events.some((e) => e.event === 'approvals.changed')).toBe(false);
    expect(events.some((e) => agentEvent(e)?.type === 'approval')).toBe(false);
    const tool = (await call('threads.get', { threadId: thread.id })).items.find((i) => i.kind === 'tool');
    expect(tool).toMatchObject({ isError: true, output: expect.stringMatching(/^Error: \/exists\.txt exists but has not been read/) });
    expect(readFileSync(join(folder, 'exists.txt'), 'utf8')).toBe('keep me\n');
  });
});

describe('settings versus command-line flags', () => {
  it('says which fields a flag sets, and saving never writes a flag value to settings.json', async () => {
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ model: 'anthropic:claude-saved', baseUrl: '', contextWindow: 64_000, rules: [], subagents: [], theme: 'system' }));
    const flags = { model: 'openai-compatible:scripted-model', baseUrl: server.url, contextWindow: 9_000, apiKey: 'sk-flag' };
    const { call } = await open(flags);
    const shown = await call('settings.get', {});
    expect(shown).toMatchObject({ model: flags.model, baseUrl: flags.baseUrl, contextWindow: 9_000, overridden: { model: true, baseUrl: true, contextWindow: true, apiKey: true } });

    // The dialog sends back what it shows, with another field changed.
    const { apiKeys: _keys, overridden: _flags, ...draft } = shown;
    const saved = await call('settings.update', { ...draft, theme: 'dark' });
    expect(saved).toMatchObject({ model: flags.model, theme: 'dark', overridden: { model: true } });
    const onDisk = JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as Record<string, unknown>;
    expect(onDisk).toMatchObject({ model: 'anthropic:claude-saved', baseUrl: '', contextWindow: 64_000, theme: 'dark' });
    expect(JSON.stringify(onDisk)).not.toContain(server.url);
    expect(JSON.stringify(onDisk)).not.toContain('sk-flag');
  });

  it('without flags nothing is marked overridden and saving saves', async () => {
    const { call } = await open({});
    expect((await call('settings.get', {})).overridden).toBeUndefined();
    await call('settings.update', { model: 'ollama:qwen3', baseUrl: 'http://127.0.0.1:11434' });
    expect(JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8'))).toMatchObject({ model: 'ollama:qwen3', baseUrl: 'http://127.0.0.1:11434' });
  });
});

describe('the context meter after a restart', () => {
  it('threads.get returns the last known usage of the thread from the moment it opens', async () => {
    server.push({ text: 'A fairly long answer.', usage: { promptTokens: 12_345, completionTokens: 10 } });
    const first = await open();
    const thread = await first.call('threads.create', {});
    await first.call('threads.send', { threadId: thread.id, text: 'hello' });
    await first.next(isDone);
    expect((await first.call('threads.get', { threadId: thread.id })).contextTokens).toBe(12_345);
    await close(first.app);

    const second = await open();
    const view = await second.call('threads.get', { threadId: thread.id });
    expect(view.contextTokens).toBe(12_345);
    expect(view.contextWindow).toBeGreaterThan(0);
  });
});

describe('one run per thread', () => {
  /** A model that reads the folder once for each new user message, then answers. */
  const agentStep: ScriptStep = (req: RecordedRequest) => {
    const last = req.messages.at(-1)!;
    if (last.role === 'user') return { delayMs: 5, then: { toolCalls: [{ name: 'ls', args: { path: '/' } }] } };
    return { text: `answered after ${req.messages.filter((m) => m.role === 'user').length} messages` };
  };

  it('20 concurrent sends: one run at a time, each message delivered exactly once, the history always valid', async () => {
    server.push(...Array.from({ length: 200 }, () => agentStep));
    const { call, events } = await open();
    const thread = await call('threads.create', {});
    const texts = Array.from({ length: 20 }, (_, i) => `message number ${i}`);
    const results = await Promise.all(texts.map((text) => call('threads.send', { threadId: thread.id, text })));
    expect(results.filter((r) => r.queuedId === undefined)).toHaveLength(1);
    expect(new Set(results.map((r) => r.queuedId)).size).toBe(20);

    await expect.poll(async () => {
      const view = await call('threads.get', { threadId: thread.id });
      return !view.thread.running && view.queued.length === 0;
    }, { timeout: 30_000 }).toBe(true);

    // Requests came one after another, each extending the one before: one run at a time.
    for (let i = 1; i < server.requests.length; i++) {
      const before = JSON.stringify(server.requests[i - 1]!.messages.slice(1));
      const after = JSON.stringify(server.requests[i]!.messages.slice(1, server.requests[i - 1]!.messages.length));
      expect(after, `request ${i}`).toBe(before);
    }
    for (const request of server.requests) assertValidHistory(request);
    const userTexts = server.requests.at(-1)!.messages.filter((m) => m.role === 'user').map((m) => String(m.content));
    expect([...userTexts].sort()).toEqual([...texts].sort());
    // The window was told of each delivery.
    const delivered = events.flatMap((e) => (agentEvent(e)?.type === 'user_message' ? [agentEvent(e)!.text] : []));
    expect(delivered).toHaveLength(19);
  });

  it('a queued message can be cancelled, and survives a restart while it waits', async () => {
    server.push({ hang: true, text: 'thinking' });
    const first = await open();
    const thread = await first.call('threads.create', {});
    await first.call('threads.send', { threadId: thread.id, text: 'start' });
    // Queued while a step goes on: the run has made its model call (a message sent before the run begins is its first input).
    await expect.poll(() => server.requests.length).toBeGreaterThan(0);
    const { queuedId: keep } = await first.call('threads.send', { threadId: thread.id, text: 'keep me' });
    const { queuedId: drop } = await first.call('threads.send', { threadId: thread.id, text: 'drop me' });
    await first.call('threads.cancelQueued', { threadId: thread.id, queuedId: drop! });
    await expect(first.call('threads.cancelQueued', { threadId: thread.id, queuedId: drop! })).rejects.toThrow(/no longer queued/);
    expect((await first.call('threads.get', { threadId: thread.id })).queued.map((q) => [q.id, q.text])).toEqual([[keep, 'keep me']]);
    await close(first.app);

    const second = await open();
    expect((await second.call('threads.get', { threadId: thread.id })).queued.map((q) => q.text)).toEqual(['keep me']);
  });

  it('Send now interrupts the current step and delivers the message at once', async () => {
    server.push({ hang: true, text: 'a very long answer' }, { text: 'answer to the urgent one' });
    const { call, next } = await open();
    const thread = await call('threads.create', {});
    await call('threads.send', { threadId: thread.id, text: 'start' });
    await next((e) => agentEvent(e)?.type === 'text');
    const { queuedId } = await call('threads.send', { threadId: thread.id, text: 'urgent' });
    await call('threads.sendQueuedNow', { threadId: thread.id, queuedId: queuedId! });
    await next((e) => agentEvent(e)?.type === 'done' && agentEvent(e)?.reason === 'completed');
    const last = server.requests.at(-1)!;
    assertValidHistory(last);
    expect(last.messages.at(-1)).toMatchObject({ role: 'user', content: 'urgent' });
    const view = await call('threads.get', { threadId: thread.id });
    expect(view.queued).toEqual([]);
    // The interrupted step is kept as stopped (the model reads so too) before the message sent now.
    expect(view.items.map((i) => (i.kind === 'user' || i.kind === 'assistant' || i.kind === 'notice' ? `${i.kind}:${i.text}` : i.kind))).toEqual([
      'user:start',
      'assistant:a very long answer',
      'notice:Stopped.',
      'user:urgent',
      'assistant:answer to the urgent one',
    ]);
  });
});

/** Every tool call is answered right after its turn, and no user message sits inside a call/result group. */
function assertValidHistory(request: RecordedRequest): void {
  const messages = request.messages;
  for (let i = 0; i < messages.length; i++) {
    const calls = (messages[i]!.tool_calls as Array<{ id: string }> | undefined) ?? [];
    if (calls.length === 0) continue;
    const results = new Set<string>();
    let j = i + 1;
    while (j < messages.length && messages[j]!.role === 'tool') results.add(messages[j++]!.tool_call_id!);
    for (const c of calls) expect(results.has(c.id), `call ${c.id} answered right after its turn`).toBe(true);
  }
  for (const m of messages) if (m.role === 'tool') expect(messages.some((a) => ((a.tool_calls as Array<{ id: string }> | undefined) ?? []).some((c) => c.id === m.tool_call_id))).toBe(true);
}
