// Issue 16: what the window says when the model cannot be used. Core's messages name the
// command line's variables and flags (`deepdesk run` keeps them); through the app's contract
// a missing key or base URL is said in the window's words, with the code `needs_settings`
// (the window then offers `Open settings`), and a key the provider refuses reaches the
// window as an error event with its HTTP status.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../core/models/testing/scripted-server';
import { createApp, type App } from './app';
import type { EventFrame, MethodName, Params, Result } from './contract';
import { FileSecretStore } from './settings/file-secret-store';

let folder: string;
let dataDir: string;
let server: ScriptedServer;
const apps: App[] = [];

beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'deepdesk-model-problems-'));
  dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-model-problems-data-'));
  server = await startScriptedServer();
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  await server.close();
  rmSync(folder, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

const COMMAND_LINE = /--api-key|--base-url|ANTHROPIC_API_KEY|OPENAI_API_KEY/;

async function open(settings: Record<string, unknown>) {
  writeFileSync(join(dataDir, 'settings.json'), JSON.stringify(settings));
  const app = await createApp({ folder, dataDir, secrets: new FileSecretStore(dataDir), transport: 'web', env: { PATH: process.env.PATH } });
  apps.push(app);
  const events: EventFrame[] = [];
  app.onEvent((frame) => events.push(frame));
  const call = <M extends MethodName>(method: M, params: Params<M>) => app.handle(method, params) as Promise<Result<M>>;
  const thread = await call('threads.create', {});
  return { call, events, thread };
}

describe('a model that cannot be used, in the window', () => {
  it('no API key: the window is told to add one in Settings, never the command line', async () => {
    const { call, thread } = await open({ model: 'anthropic:claude-sonnet-4-5' });
    const sent = call('threads.send', { threadId: thread.id, text: 'hello' });
    await expect(sent).rejects.toMatchObject({ code: 'needs_settings', message: 'No API key for Anthropic: add one in Settings.' });
    await expect(call('settings.testConnection', { model: 'anthropic:claude-sonnet-4-5' })).resolves.toEqual({ ok: false, message: 'No API key for Anthropic: enter one above.' });
    await expect(call('settings.listModels', { provider: 'anthropic' })).rejects.toMatchObject({ code: 'needs_settings', message: 'Add an API key for Anthropic to list its models.' });
    await expect(call('settings.listModels', { provider: 'openai' })).rejects.toMatchObject({ code: 'needs_settings', message: 'Add an API key for OpenAI to list its models.' });
    // With the key stored, the same send reaches the provider (here a server that is not there).
    await call('settings.setApiKey', { provider: 'anthropic', key: 'sk-ant-typed' });
    await call('settings.update', { baseUrl: `${server.url.replace(/\/v1$/, '')}/nothing-here` });
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

  it('a key the provider refuses (401) ends the run with an error event that carries the status', async () => {
    server.push({ error: { status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } } });
    const { call, events, thread } = await open({ model: 'openai-compatible:scripted-model', baseUrl: server.url });
    await call('threads.send', { threadId: thread.id, text: 'hi' });
    const failed = () =>
      events
        .filter((e) => e.event === 'thread.event')
        .map((e) => (e.payload as { event: { type: string; message?: string; status?: number } }).event)
        .find((e) => e.type === 'error');
    await expect.poll(failed, { timeout: 10_000 }).toMatchObject({ status: 401, message: expect.stringContaining('Incorrect API key provided') });
    expect(failed()!.message).not.toMatch(COMMAND_LINE);
  });
});
