import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect as connectTcp, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ContractError, type EventFrame, type MethodName } from '../../app/contract';
import type { WindowApi } from '../../app/base/window-api';
import { startWebHost, type WebHost } from './server';
import { MAX_FRAME_BYTES } from './socket-hub';

class FakeApi implements WindowApi {
  listeners = new Set<(frame: EventFrame) => void>();
  calls: { method: MethodName; params: unknown }[] = [];
  async handle(method: MethodName, params: unknown): Promise<unknown> {
    this.calls.push({ method, params });
    if (method === 'app.info') return { folder: '/tmp/x', folderName: 'x', version: '0.1.0', transport: 'web', canPickFolder: false };
    if (method === 'threads.get') throw new ContractError('no thread t1', 'not_found');
    if (method === 'threads.delete') throw new Error('disk on fire');
    if (method === 'files.search') return [(params as { query: string }).query];
    return { ok: true };
  }
  onEvent(listener: (frame: EventFrame) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  emit(frame: EventFrame): void {
    for (const listener of this.listeners) listener(frame);
  }
}

let root: string;
let staticDir: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'deepdesk-web-'));
  staticDir = join(root, 'renderer');
  mkdirSync(join(staticDir, 'assets'), { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Deepdesk</title>');
  writeFileSync(join(staticDir, 'assets', 'index-Ab12Cd34.js'), 'console.log(1);');
  writeFileSync(join(staticDir, 'assets', 'style.css'), 'body{}');
  writeFileSync(join(root, 'secret.txt'), 'top secret');
  symlinkSync(join(root, 'secret.txt'), join(staticDir, 'link.txt'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

let host: WebHost | undefined;
let api: FakeApi;
const sockets: WebSocket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  await host?.close();
  host = undefined;
});

async function start(): Promise<WebHost> {
  api = new FakeApi();
  host = await startWebHost({ api, staticDir });
  return host;
}

/** Logs in like a browser: follows the token link once and returns the cookie header. */
async function login(h: WebHost): Promise<string> {
  const res = await fetch(h.url, { redirect: 'manual' });
  const setCookie = res.headers.get('set-cookie') ?? '';
  return setCookie.split(';')[0] ?? '';
}

/** A raw request, for paths fetch would normalise and Host headers it would not send. */
function raw(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', fail);
    req.end();
  });
}

function connectRaw(port: number): Socket {
  const socket = connectTcp(port, '127.0.0.1');
  socket.on('error', () => undefined);
  return socket;
}

/** The subprotocols our page offers: its protocol and the token it keeps in sessionStorage. */
const tokenProtocols = (h: WebHost) => ['deepdesk', `deepdesk.token.${h.token}`];

function connect(h: WebHost, headers: Record<string, string>, protocols: string[] = tokenProtocols(h)): WebSocket {
  const socket = new WebSocket(`ws://127.0.0.1:${h.port}/ws`, protocols, { headers });
  sockets.push(socket);
  return socket;
}

function opened(socket: WebSocket): Promise<void> {
  return new Promise((done, fail) => {
    socket.once('open', () => done());
    socket.once('error', fail);
  });
}

function refusedStatus(socket: WebSocket): Promise<number> {
  return new Promise((done, fail) => {
    socket.once('unexpected-response', (_req, res) => done(res.statusCode ?? 0));
    socket.once('open', () => fail(new Error('the upgrade was accepted')));
    socket.once('error', () => undefined);
  });
}

/** Collects frames; `next(pred)` waits for the first matching one. */
function inbox(socket: WebSocket): { next(pred?: (frame: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> } {
  const frames: Record<string, unknown>[] = [];
  const waiters: { pred: (frame: Record<string, unknown>) => boolean; done: (frame: Record<string, unknown>) => void }[] = [];
  socket.on('message', (data) => {
    const frame = JSON.parse(String(data)) as Record<string, unknown>;
    const waiter = waiters.find((w) => w.pred(frame));
    if (waiter) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.done(frame);
    } else frames.push(frame);
  });
  return {
    next: (pred = () => true) =>
      new Promise((done) => {
        const index = frames.findIndex(pred);
        if (index >= 0) return done(frames.splice(index, 1)[0]!);
        waiters.push({ pred, done });
      }),
  };
}

describe('web host: token', () => {
  it('prints a loopback URL with a long random token', async () => {
    const h = await start();
    expect(h.url).toBe(`http://127.0.0.1:${h.port}/?token=${h.token}`);
    expect(h.origin).toBe(`http://127.0.0.1:${h.port}`);
    expect(h.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('refuses requests without the token', async () => {
    const h = await start();
    const res = await fetch(`${h.origin}/`, { redirect: 'manual' });
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('deepdesk serve');
    expect((await fetch(`${h.origin}/?token=wrong`, { redirect: 'manual' })).status).toBe(401);
    expect((await fetch(`${h.origin}/`, { headers: { Cookie: 'deepdesk_token=wrong' } })).status).toBe(401);
  });

  it('hands the page the token in the fragment, sets an HttpOnly SameSite=Strict session cookie (not the token), then serves with the cookie', async () => {
    const h = await start();
    const res = await fetch(h.url, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`/#token=${h.token}`);
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(new RegExp(`^deepdesk_session_${h.port}=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=/$`));
    expect(setCookie).not.toContain(h.token);

    const page = await fetch(`${h.origin}/`, { headers: { Cookie: `other=1; ${setCookie.split(';')[0]}` } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<title>Deepdesk</title>');
  });

  it('keeps the other query parameters when it strips the token', async () => {
    const h = await start();
    const res = await fetch(`${h.origin}/index.html?a=1&token=${h.token}&b=2`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`/index.html?a=1&b=2#token=${h.token}`);
  });
});

describe('web host: headers and static files', () => {
  it('refuses foreign Host headers (DNS rebinding) and accepts localhost', async () => {
    const h = await start();
    const cookie = await login(h);
    expect((await raw(h.port, '/', { Host: `evil.example:${h.port}`, Cookie: cookie })).status).toBe(403);
    expect((await raw(h.port, '/', { Host: '127.0.0.1:1', Cookie: cookie })).status).toBe(403);
    expect((await raw(h.port, '/', { Host: `localhost:${h.port}`, Cookie: cookie })).status).toBe(200);
    expect((await raw(h.port, '/', { Host: `127.0.0.1:${h.port}`, Cookie: cookie })).status).toBe(200);
  });

  it('sends the security headers on every response', async () => {
    const h = await start();
    for (const res of [await fetch(`${h.origin}/`), await fetch(h.url, { redirect: 'manual' })]) {
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toBe(
        "default-src 'self'; script-src 'self'; worker-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; media-src 'self' blob:; " +
          `connect-src 'self' ws://127.0.0.1:${h.port} ws://localhost:${h.port}; font-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'`,
      );
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self';");
      expect(csp).toContain(`connect-src 'self' ws://127.0.0.1:${h.port} ws://localhost:${h.port}`);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    }
  });

  it('serves assets with content types, ETags and caching', async () => {
    const h = await start();
    const cookie = await login(h);
    const js = await fetch(`${h.origin}/assets/index-Ab12Cd34.js`, { headers: { Cookie: cookie } });
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toContain('immutable');
    const etag = js.headers.get('etag') ?? '';
    expect(etag).not.toBe('');
    const again = await fetch(`${h.origin}/assets/index-Ab12Cd34.js`, { headers: { Cookie: cookie, 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    const css = await fetch(`${h.origin}/assets/style.css`, { headers: { Cookie: cookie } });
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('cache-control')).toBe('no-cache');
    expect((await fetch(`${h.origin}/missing.js`, { headers: { Cookie: cookie } })).status).toBe(404);
    expect((await fetch(`${h.origin}/assets`, { headers: { Cookie: cookie } })).status).toBe(404);
    expect((await fetch(`${h.origin}/`, { method: 'POST', headers: { Cookie: cookie } })).status).toBe(405);
  });

  it('never serves files outside the static folder', async () => {
    const h = await start();
    const cookie = await login(h);
    const headers = { Host: `127.0.0.1:${h.port}`, Cookie: cookie };
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/..%5csecret.txt', '/link.txt', '/%00index.html', '/%E0%A4%A']) {
      const res = await raw(h.port, path, headers);
      expect(res.status, path).toBe(404);
      expect(res.body).not.toContain('top secret');
    }
  });
});

describe('web host: WebSocket', () => {
  it('refuses upgrades without a same-origin Origin or without the token', async () => {
    const h = await start();
    const cookie = await login(h);
    expect(await refusedStatus(connect(h, { Cookie: cookie }))).toBe(403);
    expect(await refusedStatus(connect(h, { Cookie: cookie, Origin: 'http://evil.example' }))).toBe(403);
    expect(await refusedStatus(connect(h, { Cookie: cookie, Origin: `http://127.0.0.1:${h.port + 1}` }))).toBe(403);
    expect(await refusedStatus(connect(h, { Origin: h.origin, Cookie: cookie }, []))).toBe(401);
    expect(await refusedStatus(connect(h, { Origin: h.origin, Cookie: cookie }, ['deepdesk']))).toBe(401);
    expect(await refusedStatus(connect(h, { Origin: h.origin, Cookie: cookie }, ['deepdesk', 'deepdesk.token.nope']))).toBe(401);
    const wrongPath = new WebSocket(`ws://127.0.0.1:${h.port}/other`, tokenProtocols(h), { headers: { Origin: h.origin, Cookie: cookie } });
    sockets.push(wrongPath);
    expect(await refusedStatus(wrongPath)).toBe(404);
    await opened(connect(h, { Origin: h.origin, Cookie: cookie }));
    await opened(connect(h, { Origin: `http://localhost:${h.port}`, Cookie: cookie }));
  });

  it('answers requests and turns failures into error frames', async () => {
    const h = await start();
    const socket = connect(h, { Origin: h.origin, Cookie: await login(h) });
    const frames = inbox(socket);
    await opened(socket);

    socket.send(JSON.stringify({ id: 1, method: 'app.info', params: {} }));
    expect(await frames.next((f) => f.id === 1)).toEqual({ id: 1, result: { folder: '/tmp/x', folderName: 'x', version: '0.1.0', transport: 'web', canPickFolder: false } });

    socket.send(JSON.stringify({ id: 2, method: 'no.such', params: {} }));
    expect(await frames.next((f) => f.id === 2)).toEqual({ id: 2, error: { message: "unknown method 'no.such'", code: 'bad_request' } });

    socket.send(JSON.stringify({ id: 3, method: 'threads.rename', params: { threadId: 't1' } }));
    const bad = await frames.next((f) => f.id === 3);
    expect(bad.error).toMatchObject({ code: 'bad_request' });
    expect((bad.error as { message: string }).message).toContain('invalid params for threads.rename');

    socket.send(JSON.stringify({ id: 4, method: 'threads.get', params: { threadId: 't1' } }));
    expect(await frames.next((f) => f.id === 4)).toEqual({ id: 4, error: { message: 'no thread t1', code: 'not_found' } });

    socket.send(JSON.stringify({ id: 5, method: 'threads.delete', params: { threadId: 't1' } }));
    expect(await frames.next((f) => f.id === 5)).toEqual({ id: 5, error: { message: 'disk on fire', code: 'failed' } });

    socket.send('{not json');
    expect(await frames.next()).toEqual({ id: -1, error: { message: 'malformed JSON', code: 'bad_request' } });
    socket.send(JSON.stringify({ method: 'app.info' }));
    expect(await frames.next()).toEqual({ id: -1, error: { message: 'malformed request frame', code: 'bad_request' } });
    socket.send(Buffer.from('{}'), { binary: true });
    expect(await frames.next()).toMatchObject({ id: -1, error: { code: 'bad_request' } });

    // Still open after all that.
    socket.send(JSON.stringify({ id: 6, method: 'files.search', params: { query: 'héllo' } }));
    expect(await frames.next((f) => f.id === 6)).toEqual({ id: 6, result: ['héllo'] });
    expect(api.calls.map((c) => c.method)).toEqual(['app.info', 'threads.get', 'threads.delete', 'files.search']);
  });

  it('closes the connection on frames over MAX_FRAME_BYTES (32 MB)', async () => {
    const h = await start();
    const socket = connect(h, { Origin: h.origin, Cookie: await login(h) });
    await opened(socket);
    const closed = new Promise<number>((done) => socket.once('close', (code) => done(code)));
    socket.on('error', () => undefined);
    socket.send(JSON.stringify({ id: 1, method: 'memories.write', params: { path: '/x', text: 'a'.repeat(MAX_FRAME_BYTES + 10) } }));
    expect(await closed).toBe(1009);
    expect(api.calls).toEqual([]);
  });

  it('broadcasts events to every open socket', async () => {
    const h = await start();
    const cookie = await login(h);
    const a = connect(h, { Origin: h.origin, Cookie: cookie });
    const b = connect(h, { Origin: h.origin, Cookie: cookie });
    const inA = inbox(a);
    const inB = inbox(b);
    await Promise.all([opened(a), opened(b)]);
    api.emit({ event: 'terminal.data', payload: { threadId: 't1', terminalId: 'shell', data: 'hello', end: 5 } });
    const expected = { event: 'terminal.data', payload: { threadId: 't1', terminalId: 'shell', data: 'hello', end: 5 } };
    expect(await inA.next()).toEqual(expected);
    expect(await inB.next()).toEqual(expected);
  });

  it('drops a socket that stops reading instead of buffering without limit', async () => {
    const h = await start();
    const cookie = await login(h);
    // A raw client that completes the handshake and then never reads.
    const client = connectRaw(h.port);
    client.write(
      `GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${h.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n` +
        `Origin: ${h.origin}\r\nCookie: ${cookie}\r\nSec-WebSocket-Protocol: ${tokenProtocols(h).join(', ')}\r\n\r\n`,
    );
    const head = await new Promise<string>((done) => client.once('data', (chunk: Buffer) => done(chunk.toString('latin1'))));
    expect(head).toMatch(/^HTTP\/1.1 101/);
    client.pause();

    const payload = { threadId: 't1', terminalId: 'shell', data: 'x'.repeat(1024 * 1024), end: 1024 * 1024 };
    const events = 64;
    for (let i = 0; i < events; i++) api.emit({ event: 'terminal.data', payload });

    let received = 0;
    const ended = new Promise<void>((done) => client.once('close', () => done()));
    client.on('data', (chunk: Buffer) => (received += chunk.length));
    client.resume();
    await ended;
    expect(received).toBeLessThan(events * 1024 * 1024);
  });

  it('close() closes the sockets and the server and unsubscribes', async () => {
    const h = await start();
    const socket = connect(h, { Origin: h.origin, Cookie: await login(h) });
    await opened(socket);
    const closed = new Promise<number>((done) => socket.once('close', (code) => done(code)));
    expect(api.listeners.size).toBe(1);
    await h.close();
    expect(await closed).toBe(1001);
    expect(api.listeners.size).toBe(0);
    await expect(fetch(`${h.origin}/`)).rejects.toThrow();
    await h.close();
    host = undefined;
  });
});

describe('web host: the credential reaches no other origin (issue 9 §3)', () => {
  /** Another local server (a project's dev server): records the cookies the browser sends it. */
  async function otherLocalServer(): Promise<{ port: number; cookies: string[]; close(): Promise<void> }> {
    const cookies: string[] = [];
    const server = createServer((req, res) => {
      if (req.headers.cookie) cookies.push(req.headers.cookie);
      res.end('dev server');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    return { port: (server.address() as AddressInfo).port, cookies, close: () => new Promise((done) => server.close(() => done())) };
  }

  it('a server on another port that receives the cookie cannot open the WebSocket or get the token', async () => {
    const h = await start();
    const sessionCookie = await login(h);
    const other = await otherLocalServer();
    try {
      // Cookies ignore ports: the browser sends Deepdesk's cookie to the other server too.
      await fetch(`http://127.0.0.1:${other.port}/`, { headers: { Cookie: sessionCookie } });
      const stolen = other.cookies.join('; ');
      expect(stolen).toContain(sessionCookie);
      expect(stolen).not.toContain(h.token);
      const stolenValue = sessionCookie.slice(sessionCookie.indexOf('=') + 1);
      // It replays it from a non-browser client with every header forged.
      for (const origin of [h.origin, `http://localhost:${h.port}`]) {
        expect(await refusedStatus(connect(h, { Origin: origin, Cookie: stolen }, []))).toBe(401);
        expect(await refusedStatus(connect(h, { Origin: origin, Cookie: stolen }, ['deepdesk']))).toBe(401);
        expect(await refusedStatus(connect(h, { Origin: origin, Cookie: stolen }, ['deepdesk', `deepdesk.token.${stolenValue}`]))).toBe(401);
      }
      // Over plain HTTP the cookie gives the page's static files and nothing that carries the token.
      const page = await fetch(`${h.origin}/`, { headers: { Cookie: stolen, Origin: h.origin, 'Sec-Fetch-Site': 'same-origin' }, redirect: 'manual' });
      expect(await page.text()).not.toContain(h.token);
      for (const path of ['/ws', '/api', '/token', '/session']) {
        const res = await fetch(`${h.origin}${path}`, { headers: { Cookie: stolen, Origin: h.origin, 'Sec-Fetch-Site': 'same-origin' }, redirect: 'manual' });
        expect(res.status, path).not.toBe(200);
        expect(await res.text()).not.toContain(h.token);
        expect(res.headers.get('location') ?? '').not.toContain(h.token);
      }
      expect(api.calls).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('two serve instances in one browser keep their own cookie and token', async () => {
    const first = await start();
    const firstApi = api;
    const second = await startWebHost({ api: new FakeApi(), staticDir });
    try {
      const jar = [await login(first), await login(second)];
      expect(new Set(jar.map((c) => c.split('=')[0])).size).toBe(2);
      // The browser sends both cookies to both ports; each page still loads (a reload works).
      const cookie = jar.join('; ');
      expect((await fetch(`${first.origin}/`, { headers: { Cookie: cookie } })).status).toBe(200);
      expect((await fetch(`${second.origin}/`, { headers: { Cookie: cookie } })).status).toBe(200);
      await opened(connect(first, { Origin: first.origin, Cookie: cookie }));
      const cross = new WebSocket(`ws://127.0.0.1:${second.port}/ws`, tokenProtocols(first), { headers: { Origin: second.origin, Cookie: cookie } });
      sockets.push(cross);
      expect(await refusedStatus(cross)).toBe(401);
      const own = new WebSocket(`ws://127.0.0.1:${second.port}/ws`, tokenProtocols(second), { headers: { Origin: second.origin, Cookie: cookie } });
      sockets.push(own);
      await opened(own);
      expect(own.protocol).toBe('deepdesk');
      expect(firstApi).toBe(api);
    } finally {
      await second.close();
    }
  });
});
