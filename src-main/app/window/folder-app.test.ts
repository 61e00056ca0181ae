// The app behind the window, through its contract: threads, approvals that survive a
// restart, "always allow", memories and settings — with the real services and SQLite.

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../../core/models/testing/scripted-server';
import { detectSandbox } from '../../core/sandbox';
import { createApp, type App } from './folder-app';
import type { EventFrame, MethodName, Params, Result } from '../contract';
import { FileSecretStore } from '../settings/file-secret-store';

let folder: string;
let dataDir: string;
let server: ScriptedServer;
const apps: App[] = [];

beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'deepdesk-app-'));
  dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-app-data-'));
  server = await startScriptedServer();
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  await server.close();
  rmSync(folder, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

async function open(withModel = true): Promise<{ app: App; call: <M extends MethodName>(m: M, p: Params<M>) => Promise<Result<M>>; events: EventFrame[]; next: (pred: (e: EventFrame) => boolean) => Promise<EventFrame> }> {
  const app = await createApp({
    folder,
    dataDir,
    secrets: new FileSecretStore(dataDir),
    transport: 'web',
    ...(withModel ? { overrides: { model: 'openai-compatible:scripted-model', baseUrl: server.url } } : {}),
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
  const call = <M extends MethodName>(method: M, params: Params<M>) => app.handle(method, params) as Promise<Result<M>>;
  return { app, call, events, next };
}

const doneEvent = (threadId: string) => (e: EventFrame) =>
  e.event === 'thread.event' && (e.payload as { threadId: string; event: { type: string } }).threadId === threadId && (e.payload as { event: { type: string } }).event.type === 'done';

describe('the app', () => {
  it('keeps a pending approval across a restart and finishes the run after it', async () => {
    server.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/kept.txt', content: 'after restart\n' } }] }, { text: 'Written after the restart.' });
    const first = await open();
    const thread = await first.call('threads.create', {});
    await first.call('threads.send', { threadId: thread.id, text: 'write kept.txt' });
    await first.next((e) => e.event === 'approvals.changed');
    const pending = (await first.call('threads.get', { threadId: thread.id })).approvals;
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ toolName: 'write_file', preview: { path: '/kept.txt', before: '', after: 'after restart\n' } });
    expect(pending[0]!.suggestedRule?.decision).toBe('allow');
    await first.app.close();
    apps.splice(apps.indexOf(first.app), 1);
    expect(existsSync(join(folder, 'kept.txt'))).toBe(false);

    const second = await open();
    const view = await second.call('threads.get', { threadId: thread.id });
    expect(view.approvals.map((a) => a.toolCallId)).toEqual([pending[0]!.toolCallId]);
    expect(view.thread.running).toBe(true);
    await second.call('approvals.decide', { threadId: thread.id, toolCallId: pending[0]!.toolCallId, decision: { type: 'approve' } });
    await second.next(doneEvent(thread.id));
    expect(readFileSync(join(folder, 'kept.txt'), 'utf8')).toBe('after restart\n');
    const items = (await second.call('threads.get', { threadId: thread.id })).items;
    expect(items.at(-1)).toMatchObject({ kind: 'assistant', text: 'Written after the restart.' });
    expect(items.find((i) => i.kind === 'tool')).toMatchObject({ name: 'write_file', output: 'Updated file /kept.txt' });
  });

  it('an approval of a command says where it runs: on this machine, inside the sandbox when there is one, and outside when it asks to be', async () => {
    server.push(
      { toolCalls: [{ name: 'execute', args: { command: 'echo inside' } }, { name: 'execute', args: { command: 'echo outside', sandbox: false, reason: 'needs the network' } }, { name: 'write_file', args: { file_path: '/w.txt', content: 'w\n' } }] },
      { text: 'done' },
    );
    const { call, next } = await open();
    const thread = await call('threads.create', {});
    await call('threads.send', { threadId: thread.id, text: 'run' });
    await next((e) => e.event === 'approvals.changed');
    await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).approvals.length, { timeout: 60_000 }).toBe(3);
    const pending = (await call('threads.get', { threadId: thread.id })).approvals;
    const by = (command: string) => pending.find((a) => a.args.command === command);
    const sandboxed = (await detectSandbox()).available;
    expect(by('echo inside')?.runsOn).toEqual({ sandboxed });
    expect(by('echo outside')?.runsOn).toEqual({ sandboxed: false });
    expect(pending.find((a) => a.toolName === 'write_file')?.runsOn).toBeUndefined();
    for (const a of pending) await call('approvals.decide', { threadId: thread.id, toolCallId: a.toolCallId, decision: { type: 'reject' } });
    await next(doneEvent(thread.id));
  });

  it('"always allow" adds a visible rule and the next matching call runs without asking', async () => {
    server.push(
      { toolCalls: [{ name: 'write_file', args: { file_path: '/a.txt', content: '1\n' } }] },
      { text: 'one' },
      { toolCalls: [{ name: 'read_file', args: { file_path: '/a.txt' } }, { name: 'write_file', args: { file_path: '/a.txt', content: '2\n' } }] },
      { text: 'two' },
    );
    const { call, next, events } = await open();
    const thread = await call('threads.create', {});
    await call('threads.send', { threadId: thread.id, text: 'first' });
    await next((e) => e.event === 'approvals.changed');
    const [pending] = (await call('threads.get', { threadId: thread.id })).approvals;
    await call('approvals.decide', { threadId: thread.id, toolCallId: pending!.toolCallId, decision: { type: 'approve', alwaysAllow: pending!.suggestedRule! } });
    await next(doneEvent(thread.id));
    expect((await call('settings.get', {})).rules).toEqual([pending!.suggestedRule]);

    const before = events.filter((e) => e.event === 'approvals.changed').length;
    await call('threads.send', { threadId: thread.id, text: 'second' });
    await expect.poll(() => readFileSync(join(folder, 'a.txt'), 'utf8'), { timeout: 60_000 }).toBe('2\n');
    expect(events.filter((e) => e.event === 'approvals.changed').length).toBe(before);
  });

  it('retries a failed run from its history, without a second copy of the message', async () => {
    server.push({ error: { status: 400, body: { error: { message: 'bad request today' } } } });
    const { call, next } = await open();
    const thread = await call('threads.create', {});
    await call('threads.send', { threadId: thread.id, text: 'please answer' });
    await next(doneEvent(thread.id));
    await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).thread.running).toBe(false);
    server.push({ text: 'Answered on retry.' });
    await call('threads.retry', { threadId: thread.id });
    await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).items.at(-1)?.kind, { timeout: 60_000 }).toBe('assistant');
    const view = await call('threads.get', { threadId: thread.id });
    expect(view.items.filter((i) => i.kind === 'user')).toHaveLength(1);
    expect(view.items.at(-1)).toMatchObject({ kind: 'assistant', text: 'Answered on retry.' });
    expect(server.requests.at(-1)!.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['please answer']);
  });

  it('Stop withdraws a pending approval', async () => {
    server.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/never.txt', content: 'x' } }] });
    const { call, next } = await open();
    const thread = await call('threads.create', {});
    await call('threads.send', { threadId: thread.id, text: 'write' });
    await next((e) => e.event === 'approvals.changed');
    await call('threads.stop', { threadId: thread.id });
    const view = await call('threads.get', { threadId: thread.id });
    expect(view.approvals).toEqual([]);
    expect(view.thread.running).toBe(false);
    expect(existsSync(join(folder, 'never.txt'))).toBe(false);
  });

  it('gives a window that opens a running thread the text streamed so far and the seq it reflects', async () => {
    server.push({ hang: true, text: 'Partial answer' });
    const { call, next } = await open();
    const thread = await call('threads.create', {});
    await call('threads.send', { threadId: thread.id, text: 'talk' });
    const textEvent = await next((e) => e.event === 'thread.event' && (e.payload as { event: { type: string } }).event.type === 'text');
    const view = await call('threads.get', { threadId: thread.id });
    expect(view.streamingText).toBe('Partial answer');
    expect(view.eventSeq).toBeGreaterThanOrEqual((textEvent.payload as { seq: number }).seq);
    await call('threads.stop', { threadId: thread.id });
    const after = await call('threads.get', { threadId: thread.id });
    expect(after.streamingText).toBe('');
    // The stop is kept in the thread, after what was said before it.
    expect(after.items.slice(-2)).toMatchObject([
      { kind: 'assistant', text: 'Partial answer' },
      { kind: 'notice', text: 'Stopped.' },
    ]);
  });

  it('joins a fast stream\'s text deltas for the window, and any snapshot taken mid-stream plus the events numbered after it is the whole text exactly', async () => {
    const words = Array.from({ length: 1_600 }, (_, i) => `w${i} `).join('');
    // Held halfway until a window has surely seen it mid-stream: however slow the machine, a snapshot is taken while it streams.
    const { promise: held, resolve: release } = Promise.withResolvers<void>();
    server.push({ text: words, pace: { chunkChars: 4, chunksPerSecond: 2_000, holdAt: { chars: words.length / 2, until: held } } });
    const { call, next, events } = await open();
    const thread = await call('threads.create', {});
    type TextFrame = { seq: number; event: { type: string; text?: string } };
    const texts = (): TextFrame[] => events.filter((e) => e.event === 'thread.event').map((e) => e.payload as TextFrame).filter((p) => p.event.type === 'text');
    await call('threads.send', { threadId: thread.id, text: 'talk' });
    await next((e) => e.event === 'thread.event' && (e.payload as TextFrame).event.type === 'text');
    // Windows opening while it streams: each shows its snapshot, then the events numbered after it.
    const snapshots: Array<{ streamingText: string; eventSeq: number }> = [];
    let done = false;
    void next(doneEvent(thread.id)).then(() => (done = true));
    while (!done) {
      const view = await call('threads.get', { threadId: thread.id });
      if (view.streamingText !== '') snapshots.push({ streamingText: view.streamingText, eventSeq: view.eventSeq });
      if (view.streamingText.length >= words.length / 2) release();
      await new Promise((resolve) => setTimeout(resolve, 7));
    }
    expect(snapshots.filter((snapshot) => snapshot.streamingText.length < words.length).length).toBeGreaterThan(0);
    for (const snapshot of snapshots) {
      const after = texts().filter((t) => t.seq > snapshot.eventSeq).map((t) => t.event.text).join('');
      expect(snapshot.streamingText + after).toBe(words);
    }
    expect(texts().map((t) => t.event.text).join('')).toBe(words);
    // Far fewer messages than deltas (words.length / 4 of them), and the numbers still count one by one.
    expect(texts().length).toBeLessThan(words.length / 4 / 3);
    const seqs = events.filter((e) => e.event === 'thread.event').map((e) => (e.payload as TextFrame).seq);
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
  });

  it('refuses to send without a model, with a message that leads to settings', async () => {
    const { call } = await open(false);
    const thread = await call('threads.create', {});
    await expect(call('threads.send', { threadId: thread.id, text: 'hi' })).rejects.toThrow(/Settings/);
    expect((await call('settings.get', {})).model).toBe('');
  });

  it('manages memories and settings, keeping API keys out of the window', async () => {
    const { call } = await open();
    await call('memories.write', { path: '/memories/notes.md', text: 'alpha beta\n' });
    expect(await call('memories.list', { query: 'beta' })).toEqual({ entries: [expect.objectContaining({ path: '/memories/notes.md', snippet: 'alpha beta' })], next: null });
    expect(await call('memories.list', { query: 'zeta' })).toEqual({ entries: [], next: null });
    expect(await call('memories.read', { path: '/memories/notes.md' })).toEqual({ path: '/memories/notes.md', text: 'alpha beta\n' });
    await call('memories.delete', { path: '/memories/notes.md' });
    expect(await call('memories.list', {})).toEqual({ entries: [], next: null });

    const settings = await call('settings.setApiKey', { provider: 'anthropic', key: 'sk-secret' });
    expect(settings.apiKeys.anthropic).toBe(true);
    expect(JSON.stringify(settings)).not.toContain('sk-secret');
    const updated = await call('settings.update', { theme: 'dark', contextWindow: 50_000 });
    expect(updated).toMatchObject({ theme: 'dark', contextWindow: 50_000 });
    expect((await call('settings.update', { contextWindow: null })).contextWindow).toBeUndefined();
  });
});
