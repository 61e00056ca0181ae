// The Agent Protocol's threads are the window's (SPEC §19), as a person meets it: the window
// is `deepdesk serve`'s, and `deepdesk host --listen` on the same data folder has the host
// already running listen (`protocol.listen`). A run started with the LangGraph SDK's Client
// shows in the thread list and the Agents view; its approval shows in the window, is approved
// there, and over the protocol the thread's interrupt is gone and the file is written. A
// thread made in the window is read over the protocol (its messages) and continued there, and
// the window shows the continuation.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, type Message, type Thread } from '@langchain/langgraph-sdk';
import type { Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { lastUserText, type ScriptStep } from '../src-main/core/models/testing/scripted-server';
import { approval, conversation, openApp, repo, sendMessage, useE2ESession, type ServeHandle } from './harness';

const e2e = useE2ESession();
const listeners: ChildProcess[] = [];
afterEach(async () => {
  for (const child of listeners.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
});

const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000 });
const deepdesk = (serve: ServeHandle, args: string[]): string =>
  execFileSync(process.execPath, [join(repo, 'bin/deepdesk.mjs'), ...args, '--data-dir', serve.dataDir], { encoding: 'utf8', env: { ...process.env, OPENAI_API_KEY: '' } });

/** `deepdesk host --listen` on serve's data folder, as a person starts it beside the window: a Client of what it prints. */
async function listenBeside(serve: ServeHandle): Promise<Client & { url: string }> {
  const child = spawn(process.execPath, [join(repo, 'bin/deepdesk.mjs'), 'host', '--listen', '127.0.0.1:0', '--folder', serve.folder, '--data-dir', serve.dataDir], {
    cwd: repo,
    env: { ...process.env, OPENAI_API_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  listeners.push(child);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Agent Protocol: (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`deepdesk host --listen exited with ${code}: ${stderr}`)));
  });
  return Object.assign(new Client({ apiUrl: url, apiKey: deepdesk(serve, ['host', '--print-key']).trim() }), { url });
}

const textOf = (message: Message): string => (typeof message.content === 'string' ? message.content : message.content.map((part) => ('text' in part ? part.text : '')).join(''));
const messagesOf = (values: unknown): Message[] => (values as { messages: Message[] }).messages;
const threadItem = (page: Page, title: string): Locator => page.getByRole('region', { name: 'Threads' }).locator('.thread-item').filter({ hasText: title });
const agentRow = (page: Page, title: string): Locator => page.getByRole('region', { name: 'Agents', exact: true }).getByRole('listitem').filter({ hasText: title });

describe('the Agent Protocol beside the window', () => {
  it('a protocol run shows in the window, its approval is answered there, and a window thread is read and continued over the protocol', async () => {
    // Every request: the protocol's task writes a file (which asks first), the others answer.
    const step: ScriptStep = (request) => {
      const last = request.messages[request.messages.length - 1];
      if (last?.role === 'tool') return { text: 'Protocol wrote it.' };
      const asked = lastUserText(request);
      if (asked.includes('Protocol task')) return { toolCalls: [{ name: 'write_file', args: { file_path: '/from-protocol.txt', content: 'protocol\n' } }] };
      if (asked.includes('Window task')) return { text: 'Window answered.' };
      return { text: 'Continued over the protocol.' };
    };
    const serve = await e2e.serve({ script: [step, step, step, step] });
    // The host's runs (the protocol's) use the data folder's model, as a person configures it.
    writeFileSync(join(serve.dataDir, 'settings.json'), JSON.stringify({ model: 'openai-compatible:scripted-model', baseUrl: serve.model.url }));
    const page = await openApp(e2e.browser, serve.url);
    const client = await listenBeside(serve);
    const log = conversation(page);

    // A run over the protocol pauses on its approval: the thread is interrupted.
    const thread = await client.threads.create();
    const seen: Array<{ event: string; id?: string }> = [];
    for await (const part of client.runs.stream(thread.thread_id, 'deepdesk', { input: { messages: [{ role: 'user', content: 'Protocol task' }] }, streamMode: ['values'] })) seen.push(part as { event: string; id?: string });
    const waiting = await client.threads.get(thread.thread_id);
    expect(waiting.status).toBe('interrupted');
    expect(Object.values(waiting.interrupts).flat()).toHaveLength(1);
    // The run waits for the person: it is not done. The script follows it from here, wherever it is answered.
    const [run] = await client.runs.list(thread.thread_id);
    expect(run!.status).toBe('interrupted');
    const followed = (async () => {
      const parts: Array<{ event: string; data: unknown }> = [];
      // From the last part its stream gave: the rest, once the person answers (a while later, in the window).
      for await (const part of client.runs.joinStream(thread.thread_id, run!.run_id, { streamMode: ['values'], lastEventId: seen.at(-1)!.id! })) parts.push(part as { event: string; data: unknown });
      return parts;
    })();

    // The window lists it, and the Agents view says it needs the person.
    await threadItem(page, 'Protocol task').waitFor({ timeout: 60_000 });
    await poll(() => agentRow(page, 'Protocol task').locator('.agent-state').innerText()).toBe('Needs you');

    // It says it came from the protocol, and whose it is: in the list, the header, and as its message's author (not "You").
    await poll(() => threadItem(page, 'Protocol task').innerText()).toContain('From Agent Protocol · node');

    // Opened, its approval shows; approved in the window, the run goes on there.
    await threadItem(page, 'Protocol task').locator('.thread-select').click();
    await poll(() => page.locator('.conversation-head').innerText()).toContain('From Agent Protocol · node');
    await poll(() => log.locator('.msg-user .msg-role').first().innerText()).toBe('node (Agent Protocol)');
    await approval(page).waitFor({ timeout: 60_000 });
    await approval(page).getByRole('button', { name: 'Approve', exact: true }).click();
    await log.getByText('Protocol wrote it.').waitFor({ timeout: 60_000 });
    expect(await log.getByText('Protocol task', { exact: true }).count()).toBe(1);

    // The script's join follows the rest to the answer, and the run it started ends success.
    const values = (await followed).filter((p) => p.event === 'values').map((p) => p.data as { messages?: Message[] });
    expect(values.at(-1)!.messages!.map(textOf).at(-1)).toBe('Protocol wrote it.');
    await poll(async () => (await client.runs.get(thread.thread_id, run!.run_id)).status).toBe('success');

    // Over the protocol the interrupt is gone and the file is written.
    await poll(async () => (await client.threads.get(thread.thread_id)).status).toBe('idle');
    const answered = await client.threads.get(thread.thread_id);
    expect(answered.interrupts).toEqual({});
    const state = await client.threads.getState(thread.thread_id);
    expect(state.next).toEqual([]);
    expect(messagesOf(state.values).map(textOf)).toContain('Protocol wrote it.');
    expect(readFileSync(join(serve.folder, 'from-protocol.txt'), 'utf8')).toBe('protocol\n');

    // A thread made in the window...
    await page.getByRole('region', { name: 'Threads' }).getByRole('button', { name: 'New thread' }).press('Enter');
    await log.getByText(/Ask the agent to read/).waitFor({ timeout: 60_000 });
    await sendMessage(page, 'Window task');
    await log.getByText('Window answered.').waitFor({ timeout: 60_000 });

    // ...is found and read over the protocol: its messages, in order.
    const isWindowTask = (t: Thread): boolean => t.values !== null && messagesOf(t.values).some((m) => textOf(m) === 'Window task');
    await poll(async () => (await client.threads.search({ limit: 100 })).some(isWindowTask)).toBe(true);
    const windowThread = (await client.threads.search({ limit: 100 })).find(isWindowTask)!;
    const read = await client.threads.getState(windowThread.thread_id);
    expect(messagesOf(read.values).map((m) => [m.type, textOf(m)])).toEqual([
      ['human', 'Window task'],
      ['ai', 'Window answered.'],
    ]);

    // ...and continued there: a run on it answers, and the window, still on it, shows the answer.
    await client.runs.wait(windowThread.thread_id, 'deepdesk', { input: { messages: [{ role: 'user', content: 'And then?' }] } });
    const continued = await client.threads.getState(windowThread.thread_id);
    expect(messagesOf(continued.values).map(textOf)).toEqual(['Window task', 'Window answered.', 'And then?', 'Continued over the protocol.']);
    // The person's message of that run shows before its answer, as the run goes (not only after a reload).
    // Read until the conversation settles: the run's end reloads it from what was saved.
    const inOrder = async (): Promise<boolean> => {
      const shown = await log.innerText();
      const [answered, asked, continued] = ['Window answered.', 'And then?', 'Continued over the protocol.'].map((text) => shown.indexOf(text));
      return answered! >= 0 && asked! > answered! && continued! > asked!;
    };
    await poll(inOrder).toBe(true);
    expect(await log.getByText('And then?', { exact: true }).count()).toBe(1);
    await page.context().close();
  });

  it('Settings › Agent Protocol says where it listens and shows the key; Rotate key refuses the old key at once', async () => {
    const serve = await e2e.serve({ script: [] });
    const page = await openApp(e2e.browser, serve.url);
    const openSettings = async (): Promise<Locator> => {
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Settings' });
      await dialog.waitFor({ timeout: 60_000 });
      return dialog;
    };
    let settings = await openSettings();
    await poll(() => settings.getByRole('status', { name: 'Agent Protocol status' }).innerText()).toBe('Not listening now');
    await page.keyboard.press('Escape');

    const client = await listenBeside(serve);
    const url = client.url;
    settings = await openSettings();
    await poll(() => settings.getByRole('status', { name: 'Agent Protocol status' }).innerText()).toBe(`Listening on ${url}`);
    const key = settings.getByLabel('Protocol key');
    const printed = deepdesk(serve, ['host', '--print-key']).trim();
    expect(await key.inputValue()).toBe(printed);
    await expect(settings.getByRole('button', { name: 'Copy key' }).isVisible()).resolves.toBe(true);
    expect((await client.threads.search()).length).toBeGreaterThanOrEqual(0);

    await settings.getByRole('button', { name: 'Rotate key' }).click();
    await poll(() => key.inputValue()).not.toBe(printed);
    const fresh = await key.inputValue();
    expect(deepdesk(serve, ['host', '--print-key']).trim()).toBe(fresh);
    // By effect: the old key is refused from the next request, the new one is taken.
    await expect(client.threads.search()).rejects.toMatchObject({ status: 403 });
    expect(Array.isArray(await new Client({ apiUrl: url, apiKey: fresh }).threads.search())).toBe(true);
    await page.context().close();
  });
});
