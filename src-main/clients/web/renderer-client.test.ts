// The renderer's WebSocket transport, run in Node against the real web host.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { ContractError, type EventFrame, type MethodName } from '../../app/contract';
import type { WindowApi } from '../../app/base/window-api';
import { createWebSocketTransport, MAX_FRAME_BYTES, TransportError, type ClientTransport, type ConnectionStatus, type WebSocketConstructor } from '../../../src-renderer/src/transport';
import { startWebHost, type WebHost } from './server';
import { takeServeToken } from '../../../src-renderer/src/transport/serve-token';

const INFO = { folder: '/tmp/x', folderName: 'x', version: '0.1.0', transport: 'web', canPickFolder: false } as const;

class FakeApi implements WindowApi {
  listeners = new Set<(frame: EventFrame) => void>();
  /** Calls that wait until the test releases them. */
  held: { method: MethodName; release: (value: unknown) => void }[] = [];
  handle(method: MethodName, params: unknown): Promise<unknown> {
    if (method === 'app.info') return Promise.resolve(INFO);
    if (method === 'threads.get') return Promise.reject(new ContractError(`no thread ${(params as { threadId: string }).threadId}`, 'not_found'));
    if (method === 'threads.list') return Promise.resolve([{ id: 't1' }]); // outside the contract
    if (method === 'threads.send' || method === 'threads.rename') return new Promise((release) => this.held.push({ method, release }));
    return Promise.resolve({ ok: true });
  }
  onEvent(listener: (frame: EventFrame) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  emit(frame: EventFrame): void {
    for (const listener of this.listeners) listener(frame);
  }
}

let staticDir: string;
beforeAll(() => {
  staticDir = mkdtempSync(join(tmpdir(), 'deepdesk-client-'));
  mkdirSync(staticDir, { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html>');
});
afterAll(() => rmSync(staticDir, { recursive: true, force: true }));

let host: WebHost | undefined;
let transport: ClientTransport | undefined;
afterEach(async () => {
  transport?.close();
  transport = undefined;
  await host?.close();
  host = undefined;
  vi.restoreAllMocks();
});

/** What a browser tab holds: the origin and the cookie it got from the token link. */
const browser: { origin: string; cookie: string; token: string | null } = { origin: '', cookie: '', token: null };

async function serve(api: WindowApi, port = 0): Promise<WebHost> {
  host = await startWebHost({ api, staticDir, port });
  const res = await fetch(host.url, { redirect: 'manual' });
  browser.origin = host.origin;
  browser.cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  // What the page does with the redirect: the fragment's token goes into its tab's sessionStorage.
  const stored = new Map<string, string>();
  const location = new URL(res.headers.get('location') ?? '/', host.origin);
  browser.token = takeServeToken({
    location,
    sessionStorage: { getItem: (k) => stored.get(k) ?? null, setItem: (k, v) => void stored.set(k, v) },
    history: { state: null, replaceState: () => undefined },
  });
  return host;
}

/** A `ws` WebSocket that sends the headers a browser would (Node's global WebSocket cannot). */
class BrowserLikeWebSocket extends WebSocket {
  constructor(url: string, protocols?: string[]) {
    super(url, protocols ?? [], { headers: { Origin: browser.origin, Cookie: browser.cookie } });
  }
}

function client(h: WebHost, options: { callTimeoutMs?: number; giveUpAfter?: number; WebSocketImpl?: WebSocketConstructor } = {}): ClientTransport {
  transport = createWebSocketTransport({
    url: `ws://127.0.0.1:${h.port}/ws`,
    WebSocketImpl: BrowserLikeWebSocket satisfies WebSocketConstructor,
    token: () => browser.token,
    reconnectDelay: () => 20,
    ...options,
  });
  return transport;
}

/** Waits for a state; the bound is only against a hang (a loaded machine may take its time). */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 45_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('renderer WebSocket transport', () => {
  it('queues calls until connected and returns validated results', async () => {
    const t = client(await serve(new FakeApi()));
    expect(t.kind).toBe('web');
    expect(await t.call('app.info', {})).toEqual(INFO);
    expect(t.status).toBe('open');
  });

  it('rejects with the error code from the main process', async () => {
    const t = client(await serve(new FakeApi()));
    const notFound = await t.call('threads.get', { threadId: 'zz' }).catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(TransportError);
    expect(notFound).toMatchObject({ message: 'no thread zz', code: 'not_found' });
    const bad = await t.call('threads.rename', { threadId: 't1', title: '' }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ code: 'bad_request' });
    expect((bad as Error).message).toContain('invalid params for threads.rename');
  });

  it('refuses results outside the contract', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const t = client(await serve(new FakeApi()));
    await expect(t.call('threads.list', {})).rejects.toMatchObject({ code: 'failed' });
    expect(warn).toHaveBeenCalled();
  });

  it('delivers valid events and drops invalid ones with a warning', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const api = new FakeApi();
    const t = client(await serve(api));
    const seen: unknown[] = [];
    const off = t.on('terminal.data', (payload) => seen.push(payload));
    await t.call('app.info', {});
    api.emit({ event: 'terminal.data', payload: { threadId: 't1', terminalId: 'shell', data: 42, end: 2 } });
    api.emit({ event: 'nonsense' as 'threads.changed', payload: {} });
    api.emit({ event: 'terminal.data', payload: { threadId: 't1', terminalId: 'shell', data: 'ok', end: 2 } });
    await until(() => seen.length === 1, 'the valid event');
    expect(seen).toEqual([{ threadId: 't1', terminalId: 'shell', data: 'ok', end: 2 }]);
    expect(warn).toHaveBeenCalledTimes(2);
    off();
    api.emit({ event: 'terminal.data', payload: { threadId: 't1', terminalId: 'shell', data: 'after', end: 7 } });
    await t.call('app.info', {}); // frames arrive in order: the event came before this answer
    expect(seen).toHaveLength(1);
  });

  it('refuses frames the server would drop the connection for, and stays connected', async () => {
    const t = client(await serve(new FakeApi()));
    await t.call('app.info', {});
    // Two bytes a character: just over the frame limit.
    await expect(t.call('memories.write', { path: '/x.md', text: 'é'.repeat(MAX_FRAME_BYTES / 2 + 1_000) })).rejects.toMatchObject({ code: 'bad_request' });
    expect(await t.call('memories.write', { path: '/x.md', text: 'é'.repeat(1000) })).toEqual({ ok: true });
    expect(t.status).toBe('open');
  });

  it('times out short calls only', async () => {
    const api = new FakeApi();
    const t = client(await serve(api), { callTimeoutMs: 100 });
    let longSettled = false;
    const long = t.call('threads.send', { threadId: 't1', text: 'hi' }).finally(() => (longSettled = true));
    long.catch(() => undefined);
    const short = await t.call('threads.rename', { threadId: 't1', title: 'x' }).catch((e: unknown) => e);
    expect(short).toMatchObject({ code: 'timeout' });
    expect(longSettled).toBe(false);
    await until(() => api.held.length === 2, 'both calls to reach the app');
    api.held.find((h) => h.method === 'threads.send')?.release({ ok: true });
    expect(await long).toEqual({ ok: true });
  });

  it('fails pending calls on disconnect, reconnects, and keeps its listeners', async () => {
    const first = new FakeApi();
    const h = await serve(first);
    const port = h.port;
    const t = client(h);
    const statuses: ConnectionStatus[] = [];
    t.onStatus((s) => statuses.push(s));
    const seen: string[] = [];
    t.on('terminal.data', (payload) => seen.push(payload.data));
    await t.call('app.info', {});

    const pending = t.call('threads.send', { threadId: 't1', text: 'hi' }).catch((e: unknown) => e);
    await until(() => first.held.length === 1, 'the call to reach the app');
    await h.close();

    // The same port comes back (a restarted server, with a new token and cookie). The call sent
    // to the old one goes again as a replay: the new server cannot know whether it was done, so
    // it says so and does not do it.
    const second = new FakeApi();
    await serve(second, port);
    const lost = await pending;
    expect(lost).toBeInstanceOf(TransportError);
    expect((lost as Error).message).toContain('lost before threads.send was answered');
    expect(second.held).toEqual([]);
    await until(() => t.status === 'open', 'the reconnect');
    expect(statuses).toContain('closed');
    expect(statuses.at(-1)).toBe('open');
    expect(await t.call('app.info', {})).toEqual(INFO);
    second.emit({ event: 'terminal.data', payload: { threadId: 't1', terminalId: 'shell', data: 'again', end: 5 } });
    await until(() => seen.length === 1, 'the event after reconnect');
    expect(seen).toEqual(['again']);
  });

  it('a call whose connection drops before its answer is sent again and done once: the first answer comes back', async () => {
    const api = new FakeApi();
    const h = await serve(api);
    const sockets: BrowserLikeWebSocket[] = [];
    class Tracked extends BrowserLikeWebSocket {
      constructor(url: string, protocols?: string[]) {
        super(url, protocols);
        sockets.push(this);
      }
    }
    const tr = client(h, { WebSocketImpl: Tracked });
    await tr.call('app.info', {});

    const sent = tr.call('threads.send', { threadId: 't1', text: 'hi' });
    await until(() => api.held.length === 1, 'the call to reach the app');
    // The connection breaks (not the server): the call is still running there.
    sockets.at(-1)!.terminate();
    await until(() => sockets.length === 2 && tr.status === 'open', 'the reconnect');
    // Answered while the window was away: the replay gets this answer, the app ran it once.
    api.held[0]!.release({ ok: true });
    expect(await sent).toEqual({ ok: true });
    expect(api.held).toHaveLength(1);

    // Answered before the connection broke, the answer lost with it: the replay gets the same answer.
    const rename = tr.call('threads.rename', { threadId: 't1', title: 'x' });
    await until(() => api.held.length === 2, 'the second call to reach the app');
    sockets.at(-1)!.terminate();
    api.held[1]!.release({ ok: true });
    expect(await rename).toEqual({ ok: true });
    expect(api.held).toHaveLength(2);
  });

  it('two tabs’ calls of the same id and parameters are each done once, across one tab’s lost connection and replay', async () => {
    const api = new FakeApi();
    const h = await serve(api);
    const sockets: BrowserLikeWebSocket[] = [];
    class Tracked extends BrowserLikeWebSocket {
      constructor(url: string, protocols?: string[]) {
        super(url, protocols);
        sockets.push(this);
      }
    }
    const tabA = client(h, { WebSocketImpl: Tracked });
    const tabB = client(h);
    try {
      await Promise.all([tabA.call('app.info', {}), tabB.call('app.info', {})]);
      // The same call id in each tab (their second), on the same thread and text.
      const sentA = tabA.call('threads.send', { threadId: 't1', text: 'hi' });
      await until(() => api.held.length === 1, 'tab A’s call to reach the app');
      const sentB = tabB.call('threads.send', { threadId: 't1', text: 'hi' });
      await until(() => api.held.length === 2, 'tab B’s call to reach the app');
      // Tab A's connection breaks; its call is replayed on the next one while both still run.
      sockets.at(-1)!.terminate();
      await until(() => sockets.length === 2 && tabA.status === 'open', 'tab A’s reconnect');
      api.held[1]!.release({ ok: true });
      expect(await sentB).toEqual({ ok: true });
      api.held[0]!.release({ ok: true });
      expect(await sentA).toEqual({ ok: true });
      // Each tab's call ran: neither key answered the other tab's call.
      expect(api.held).toHaveLength(2);
    } finally {
      tabA.close();
    }
  });

  it('stops reconnecting after a bounded number of failures (gone), and reconnect() tries again', async () => {
    const h = await serve(new FakeApi());
    const port = h.port;
    const t = client(h, { giveUpAfter: 3 });
    await t.call('app.info', {});
    await h.close();
    await until(() => t.status === 'gone', 'giving up');
    await expect(t.call('app.info', {})).rejects.toMatchObject({ code: 'disconnected' });
    // It stays gone: no attempt is made by itself any more.
    await new Promise((r) => setTimeout(r, 200));
    expect(t.status).toBe('gone');

    await serve(new FakeApi(), port);
    t.reconnect!();
    await until(() => t.status === 'open', 'the reconnect asked for');
    expect(await t.call('app.info', {})).toEqual(INFO);
  });

  it('close() fails pending calls and stops reconnecting', async () => {
    const api = new FakeApi();
    const t = client(await serve(api));
    await t.call('app.info', {});
    const pending = t.call('threads.send', { threadId: 't1', text: 'hi' });
    t.close();
    await expect(pending).rejects.toMatchObject({ code: 'disconnected' });
    await expect(t.call('app.info', {})).rejects.toMatchObject({ code: 'disconnected' });
    expect(t.status).toBe('closed');
  });
});
