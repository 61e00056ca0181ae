// What one Agent Protocol server holds at most (SPEC §19, the security review): SSE written no
// faster than a client reads, streams capped per server and per run, connections capped, slow
// requests timed out (not slow replies), and a loopback server answering only its own names.

import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { json, startProtocolServer, type ProtocolServer, type Route, type ServerLimits, type SseEvent } from './http';
import { FOLLOWERS_PER_RUN } from './run-stream';
import { startProtocolHarness, until, type ProtocolHarness } from './testing/protocol-harness';

const KEY = 'limits-key';
let server: ProtocolServer | undefined;
let harness: ProtocolHarness | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await server?.close();
  server = undefined;
  await harness?.close();
  harness = undefined;
});

async function serve(routes: Route[], options: { limits?: Partial<ServerLimits>; allowRemote?: boolean } = {}): Promise<ProtocolServer> {
  server = await startProtocolServer({ host: '127.0.0.1', port: 0, key: () => KEY, corsOrigins: [], routes, ...options });
  return server;
}

/** A raw connection that sends `text` and collects what comes back, until it closes. */
function raw(port: number, text: string, read = true): { socket: Socket; received: () => string; closed: Promise<void> } {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  let received = '';
  socket.on('error', () => undefined);
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  if (!read) socket.pause();
  socket.write(text);
  return { socket, received: () => received, closed: new Promise((resolve) => socket.once('close', () => resolve())) };
}

/** GET `path` with the given Host header: the status. */
function getWithHost(port: number, path: string, host: string, method = 'GET'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers: { host, 'x-api-key': KEY } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A route that streams until the client goes away. */
const holding: Route = {
  method: 'GET',
  pattern: '/hold',
  streams: true,
  handle: async (request) => ({
    kind: 'sse',
    events: (async function* (): AsyncIterable<SseEvent> {
      yield { event: 'metadata', data: {} };
      await new Promise((resolve) => request.disconnected.addEventListener('abort', resolve, { once: true }));
    })(),
  }),
};

describe('Agent Protocol server limits', () => {
  it('writes SSE no faster than the client reads: a follower that stops reading holds a few parts, not all of them', async () => {
    const PARTS = 64;
    const big = 'x'.repeat(1024 * 1024);
    let produced = 0;
    const { port } = await serve([
      {
        method: 'GET',
        pattern: '/big',
        streams: true,
        handle: async () => ({
          kind: 'sse',
          events: (async function* (): AsyncIterable<SseEvent> {
            for (let i = 0; i < PARTS; i++) {
              produced += 1;
              yield { event: 'values', json: JSON.stringify(big) };
            }
          })(),
        }),
      },
    ]);
    const follower = raw(port, `GET /big HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-api-key: ${KEY}\r\n\r\n`, false);
    // The writer stops once the socket is full: `produced` settles well below every part.
    let seen = -1;
    await until(
      async () => {
        const now = produced;
        await new Promise((r) => setTimeout(r, 300));
        return now === produced && now === seen ? now : ((seen = now), -1);
      },
      (n) => n > 0,
      'the writer to wait for the reader',
    );
    expect(produced).toBeLessThan(PARTS / 2);
    // Reading again, the follower gets every part.
    follower.socket.resume();
    await until(() => (follower.received().match(/event: values/g) ?? []).length, (n) => n === PARTS, 'every part');
  });

  it('serves at most `streams` SSE replies at once (503 naming the limit); a closed one frees its place', async () => {
    const { port } = await serve([holding], { limits: { streams: 2 } });
    const held = [0, 1].map(() => raw(port, `GET /hold HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-api-key: ${KEY}\r\n\r\n`));
    await until(() => held.every((h) => h.received().includes('event: metadata')), Boolean, 'two streams');
    const third = await fetch(`http://127.0.0.1:${port}/hold`, { headers: { 'x-api-key': KEY } });
    expect(third.status).toBe(503);
    expect(((await third.json()) as { detail: string }).detail).toContain('at most 2 streams');
    held[0]!.socket.destroy();
    await held[0]!.closed;
    const again = raw(port, `GET /hold HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-api-key: ${KEY}\r\n\r\n`);
    await until(() => again.received(), (r) => r.includes('event: metadata'), 'a stream in the freed place');
  });

  it(`a run serves ${FOLLOWERS_PER_RUN} stream followers at once: the next is 429`, async () => {
    harness = await startProtocolHarness({ script: [{ hang: true, text: 'thinking' }] });
    const h = harness;
    const threadId = (await h.client.threads.create()).thread_id;
    const run = await h.client.runs.create(threadId, 'deepdesk', { input: { messages: [{ role: 'user', content: 'hi' }] } });
    const port = Number(new URL(h.url).port);
    const path = `/threads/${threadId}/runs/${run.run_id}/stream`;
    const followers = Array.from({ length: FOLLOWERS_PER_RUN }, () => raw(port, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-api-key: ${h.key}\r\n\r\n`));
    await until(() => followers.every((f) => f.received().includes('event: metadata')), Boolean, 'every follower');
    const refused = await fetch(h.url + path, { headers: { 'x-api-key': h.key } });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { detail: string }).detail).toContain(`${FOLLOWERS_PER_RUN} stream followers`);
    await h.client.runs.cancel(threadId, run.run_id, true);
  });

  it('holds at most `connections` connections: the next is closed unanswered', async () => {
    const { port } = await serve([{ method: 'GET', pattern: '/ok', open: true, handle: async () => json({ ok: true }) }], { limits: { connections: 2 } });
    const request = `GET /ok HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`;
    const kept = [raw(port, request), raw(port, request)];
    await until(() => kept.every((k) => k.received().includes('200 OK')), Boolean, 'two kept-alive connections');
    const over = raw(port, request);
    await over.closed;
    expect(over.received()).toBe('');
  });

  it('closes a request whose headers never end, and one whose body never ends; a reply may take longer than both', async () => {
    const waited: Route = { method: 'GET', pattern: '/wait', handle: async () => ({ kind: 'wait', answer: new Promise((resolve) => setTimeout(() => resolve({ done: true }), 1_500)) }) };
    const { port } = await serve([holding, waited, { method: 'POST', pattern: '/echo', handle: async (r) => json(r.body) }], { limits: { headersTimeoutMs: 300, requestTimeoutMs: 600 } });
    const headers = raw(port, `GET /wait HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
    const body = raw(port, `POST /echo HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a":`);
    await Promise.all([headers.closed, body.closed]);
    expect(headers.received()).not.toContain('200 OK');
    expect(body.received()).not.toContain('200 OK');
    // wait and SSE replies outlast the request timeout.
    const reply = await fetch(`http://127.0.0.1:${port}/wait`, { headers: { 'x-api-key': KEY } });
    expect(await reply.json()).toEqual({ done: true });
    const stream = raw(port, `GET /hold HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-api-key: ${KEY}\r\n\r\n`);
    await until(() => stream.received(), (r) => r.includes('event: metadata'), 'the stream');
    await new Promise((r) => setTimeout(r, 1_500));
    expect(stream.socket.destroyed).toBe(false);
  });

  it('on loopback answers only its own Host names (403 before routing, open routes and preflights too); with allowRemote, any', async () => {
    const ok: Route = { method: 'GET', pattern: '/ok', open: true, handle: async () => json({ ok: true }) };
    const { port } = await serve([ok]);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`]) expect(await getWithHost(port, '/ok', host)).toBe(200);
    for (const host of [`evil.example:${port}`, 'localhost', `127.0.0.1:${port + 1}`, `localhost.evil.example:${port}`]) {
      expect(await getWithHost(port, '/ok', host)).toBe(403);
      expect(await getWithHost(port, '/ok', host, 'OPTIONS')).toBe(403);
      expect(await getWithHost(port, '/nowhere', host)).toBe(403);
    }
    await server!.close();
    const remote = await serve([ok], { allowRemote: true });
    expect(await getWithHost(remote.port, '/ok', 'deepdesk.lan:8123')).toBe(200);
  });
});
