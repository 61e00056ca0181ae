// Issue 16: what the window says when the model cannot be used. Core's messages name the
// command line's variables and flags (`deepdesk run` keeps them); through the app's contract
// a missing key or base URL is said in the window's words, with the code `needs_settings`
// (the window then offers `Open settings`), and a key the provider refuses reaches the
// window as an error event with its HTTP status.

import { describe, expect, it, vi } from 'vitest';
import { startScriptedAnthropicServer } from '../../core/models/testing/scripted-anthropic-server';
import { useAppTestEnv } from '../window/app-harness.test-support';

const t = useAppTestEnv('deepdesk-model-problems');

const COMMAND_LINE = /--api-key|--base-url|ANTHROPIC_API_KEY|OPENAI_API_KEY/;

async function open(settings: Record<string, unknown>) {
  const { call, events } = await t.open({ settings });
  const thread = await call('threads.create', {});
  return { call, events, thread };
}

describe('a model that cannot be used, in the window', () => {
  it('ANTHROPIC_AUTH_TOKEN alone is a key for the window: it lists the models, sent as a bearer token', async () => {
    const anthropic = await startScriptedAnthropicServer();
    try {
      const { call } = await t.open({ settings: { model: 'anthropic:claude-scripted' }, env: { ANTHROPIC_AUTH_TOKEN: 'tok-window', ANTHROPIC_BASE_URL: anthropic.url } });
      await expect(call('settings.listModels', { provider: 'anthropic' })).resolves.toEqual({ models: ['claude-scripted'] });
      expect(anthropic.headers.at(-1)!.authorization).toBe('Bearer tok-window');
    } finally {
      await anthropic.close();
    }
  });

  it('no API key: the window is told to add one in Settings, never the command line', async () => {
    const { call, thread } = await open({ model: 'anthropic:claude-sonnet-4-5' });
    const sent = call('threads.send', { threadId: thread.id, text: 'hello' });
    await expect(sent).rejects.toMatchObject({ code: 'needs_settings', message: 'No API key for Anthropic: add one in Settings.' });
    await expect(call('settings.testConnection', { model: 'anthropic:claude-sonnet-4-5' })).resolves.toEqual({ ok: false, message: 'No API key for Anthropic: enter one above.' });
    await expect(call('settings.listModels', { provider: 'anthropic' })).rejects.toMatchObject({ code: 'needs_settings', message: 'Add an API key for Anthropic to list its models.' });
    await expect(call('settings.listModels', { provider: 'openai' })).rejects.toMatchObject({ code: 'needs_settings', message: 'Add an API key for OpenAI to list its models.' });
    // With the key stored, the same send reaches the provider (here a server that is not there).
    await call('settings.setApiKey', { provider: 'anthropic', key: 'sk-ant-typed' });
    await call('settings.update', { baseUrl: `${t.server.url.replace(/\/v1$/, '')}/nothing-here` });
    await expect(call('threads.send', { threadId: thread.id, text: 'hello' })).resolves.toEqual({ ok: true });
  });

  it('no base URL or no model: said in the window’s words, with the code that offers Settings', async () => {
    const compatible = await open({ model: 'openai-compatible:qwen3' });
    const error = (await compatible.call('threads.send', { threadId: compatible.thread.id, text: 'hi' }).catch((err: unknown) => err)) as { code: string; message: string };
    expect(error).toMatchObject({ code: 'needs_settings', message: expect.stringMatching(/^The OpenAI-compatible provider needs the server’s base URL: enter it in Settings/) });
    expect(error.message).not.toMatch(COMMAND_LINE);
    await expect(compatible.call('settings.listModels', { provider: 'openai-compatible' })).rejects.toMatchObject({ code: 'needs_settings', message: 'Enter the server’s base URL to list its models.' });

    const none = await open({});
    await expect(none.call('threads.send', { threadId: none.thread.id, text: 'hi' })).rejects.toMatchObject({ code: 'needs_settings', message: expect.stringMatching(/^No model is configured yet/) });
    await expect(none.call('threads.retry', { threadId: none.thread.id })).rejects.toMatchObject({ code: 'needs_settings' });
  });

  it('a key the provider refuses (401) ends the run with an error event that carries the status, says so plainly and offers Settings', async () => {
    t.server.push({ error: { status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } } });
    const { call, events, thread } = await open({ model: 'openai-compatible:scripted-model', baseUrl: t.server.url });
    await call('threads.send', { threadId: thread.id, text: 'hi' });
    const failed = () =>
      events
        .filter((e) => e.event === 'thread.event')
        .map((e) => (e.payload as { event: { type: string; message?: string; status?: number; detail?: string; settings?: boolean } }).event)
        .find((e) => e.type === 'error');
    await expect.poll(failed, { timeout: 60_000 }).toMatchObject({
      status: 401,
      message: 'The model server refused the API key (401): it is missing, wrong or expired. Check the API key in Settings.',
      settings: true,
      // The provider's own words stay available.
      detail: expect.stringContaining('Incorrect API key provided'),
    });
    expect(failed()!.message).not.toMatch(COMMAND_LINE);
  });
});

describe('a provider out of quota, in the window (SPEC §26)', () => {
  it('the run ends `quota` with the line naming the provider and what it said, asked once; Test connection says it plainly, at once', async () => {
    const quota = { error: { status: 429, body: { error: { message: 'You exceeded your current quota, please check your plan and billing details.', type: 'insufficient_quota', code: 'insufficient_quota' } } } };
    t.server.push(quota);
    const { call, events, thread } = await open({ model: 'openai-compatible:scripted-model', baseUrl: t.server.url });
    await call('threads.send', { threadId: thread.id, text: 'hi' });
    const told = () =>
      events
        .filter((e) => e.event === 'thread.event')
        .map((e) => (e.payload as { event: { type: string; message?: string; reason?: string; problem?: { kind: string } } }).event)
        .filter((e) => e.type === 'error' || e.type === 'done');
    await expect.poll(told, { timeout: 60_000 }).toMatchObject([
      { type: 'error', message: `quota: openai-compatible (${t.server.url}) is out of quota or credit — it said "HTTP 429: You exceeded your current quota, please check your plan and billing details."; no new model call goes to it until you send a message`, problem: { kind: 'quota' } },
      { type: 'done', reason: 'quota' },
    ]);
    expect(t.server.requests).toHaveLength(1);

    t.server.push(quota);
    const tested = await call('settings.testConnection', { model: 'openai-compatible:scripted-model', baseUrl: t.server.url, apiKey: 'sk-test' });
    expect(tested).toMatchObject({ ok: false, message: expect.stringMatching(/^The model provider says the account is out of quota, credit or its usage limit\./), detail: expect.stringContaining('You exceeded your current quota') });
    expect(t.server.requests).toHaveLength(2);
  });
});

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('a model server that cannot be reached, in the window (issue 42)', () => {
  it('Test connection against a closed port answers at once (no retries), in plain words with what to check', async () => {
    const port = await closedPort();
    const { call } = await open({});
    // The clock stands still: a retry's back-off would never end, so an answer means none was waited for.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const result = await call('settings.testConnection', { model: 'openai-compatible:qwen3', baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'sk-test' }).finally(() => vi.useRealTimers());
    expect(result).toMatchObject({ ok: false, message: `Can't reach the model server at 127.0.0.1:${port}. Is it running? Check the address above.` });
    expect(result.detail).toContain('ECONNREFUSED');
  });

  it('Test connection answers a refused key (401) at once, and still retries what may pass (503)', async () => {
    const { call } = await open({});
    t.server.push({ error: { status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } } });
    const refused = await call('settings.testConnection', { model: 'openai-compatible:scripted-model', baseUrl: t.server.url, apiKey: 'sk-wrong' });
    expect(refused).toMatchObject({ ok: false, message: expect.stringMatching(/refused the API key .* Check the API key above\.$/) });
    t.server.push({ error: { status: 503, headers: { 'retry-after': '0' } } }, { text: 'OK' });
    await expect(call('settings.testConnection', { model: 'openai-compatible:scripted-model', baseUrl: t.server.url, apiKey: 'sk-test' })).resolves.toMatchObject({ ok: true });
  });

  it('a run against a server that is down ends with the plain words, the way to Settings, and the technical detail', async () => {
    const port = await closedPort();
    const { call, events, thread } = await open({ model: 'openai-compatible:qwen3', baseUrl: `http://127.0.0.1:${port}/v1` });
    await call('threads.send', { threadId: thread.id, text: 'hi' });
    const failed = () =>
      events
        .filter((e) => e.event === 'thread.event')
        .map((e) => (e.payload as { event: { type: string; message?: string; detail?: string; settings?: boolean } }).event)
        .find((e) => e.type === 'error');
    await expect.poll(failed, { timeout: 60_000 }).toMatchObject({
      message: `Can't reach the model server at 127.0.0.1:${port}. Is it running? Check the address in Settings.`,
      settings: true,
      detail: expect.stringContaining(`ECONNREFUSED 127.0.0.1:${port}`),
    });
  });
});
