// Slash commands through the app's contract (SPEC §11), with real SQLite and the scripted
// model: what each built-in does, and that an unknown command never reaches the model.

import { describe, expect, it } from 'vitest';
import { useAppTestEnv } from '../window/app-harness.test-support';

const t = useAppTestEnv('deepdesk-slash-app');

describe('slash commands in the window', () => {
  it('an unknown command is refused in one line and the model is not called', async () => {
    const { call } = await t.open();
    const thread = await call('threads.create', {});
    await expect(call('threads.send', { threadId: thread.id, text: '/frobnicate now' })).rejects.toThrow('unknown command /frobnicate: type / to see the commands');
    // A path is a message, not a command.
    t.server.push({ text: 'a path' });
    await call('threads.send', { threadId: thread.id, text: '/etc/hosts looks odd' });
    await expect.poll(() => t.server.requests.length).toBe(1);
  });

  it('/mode and /model change the folder’s mode and the model; /clear starts a thread', async () => {
    const { call } = await t.open({ settings: { model: 'openai-compatible:first', baseUrl: 'http://127.0.0.1:9/v1' } });
    const thread = await call('threads.create', {});
    expect(await call('threads.send', { threadId: thread.id, text: '/mode plan' })).toMatchObject({ note: 'Mode: plan' });
    expect((await call('mode.get', {})).mode).toBe('plan');
    expect(await call('threads.send', { threadId: thread.id, text: '/model anthropic:claude-sonnet-4-5' })).toMatchObject({ note: 'Model: anthropic:claude-sonnet-4-5' });
    expect((await call('settings.get', {})).model).toBe('anthropic:claude-sonnet-4-5');
    await expect(call('threads.send', { threadId: thread.id, text: '/model nonsense' })).rejects.toThrow(/PROVIDER:MODEL/);
    const cleared = await call('threads.send', { threadId: thread.id, text: '/clear' });
    expect(cleared.threadId).toBeDefined();
    expect(cleared.threadId).not.toBe(thread.id);
    expect((await call('threads.list', {})).map((s) => s.id)).toContain(cleared.threadId);
  });

  it('/compact summarizes the thread now, without an answer after it', async () => {
    const { call } = await t.open();
    const thread = await call('threads.create', {});
    const long = 'x'.repeat(12_000);
    t.server.push({ text: `first answer ${long}` }, { text: `second answer ${long}` }, { text: 'the summary of it all' });
    await call('threads.send', { threadId: thread.id, text: `first question ${long}` });
    await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).thread.running).toBe(false);
    await call('threads.send', { threadId: thread.id, text: 'second question' });
    await expect.poll(() => t.server.requests.length).toBe(2);
    await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).thread.running).toBe(false);

    expect(await call('threads.send', { threadId: thread.id, text: '/compact' })).toMatchObject({ note: 'Compacting the conversation…' });
    await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).items.some((item) => item.kind === 'summary')).toBe(true);
    await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).thread.running).toBe(false);
    // One request more: the summarizer's; no answer was asked for.
    expect(t.server.requests).toHaveLength(3);
  });
});
