// The agent host's socket for real (SPEC §16): a real Unix socket in a real data folder, raw
// clients speaking the frames by hand, one host per data folder, and the host ending when
// idle, told to, or when its socket goes.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureHostDir, hostPaths } from './paths';
import { HostAlreadyRunningError } from './server';
import { connectionLines, useHostServerTest, within } from './server.test-support';

const h = useHostServerTest();
/** What the host does is waited for (a state); the bound is only against a hang, however loaded the machine. */
const HANG_MS = 30_000;

describe('only a client with the token is answered', () => {
  it('a request before any hello gets no answer: the connection is refused and closed', async () => {
    const { lines } = await h.start();
    const raw = await h.open(hostPaths(h.dataDir).socket);
    raw.send({ id: 1, method: 'echo', params: 'hi' });
    expect(await raw.next()).toEqual({ type: 'refused', message: 'expected a hello frame first' });
    await within(raw.closed, HANG_MS, 'the close');
    expect(raw.frames).toEqual([]);
    expect(connectionLines(lines).join('\n')).toMatch(/refused: expected a hello frame first/);
  });

  it('a wrong or missing token is refused and what follows is not answered', async () => {
    const { token } = await h.start();
    const wrong = await h.open(hostPaths(h.dataDir).socket);
    wrong.send({ type: 'hello', token: token.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')), client: 'test', version: '1' });
    wrong.send({ id: 1, method: 'echo', params: 'hi' });
    expect(await wrong.next()).toEqual({ type: 'refused', message: 'wrong token' });
    await within(wrong.closed, HANG_MS, 'the close');
    expect(wrong.frames).toEqual([]);

    const missing = await h.open(hostPaths(h.dataDir).socket);
    missing.send({ type: 'hello', client: 'test', version: '1' });
    expect(await missing.next()).toMatchObject({ type: 'refused' });
    await within(missing.closed, HANG_MS, 'the close');

    const short = await h.open(hostPaths(h.dataDir).socket);
    short.send({ type: 'hello', token: token.slice(0, 10), client: 'test', version: '1' });
    expect(await short.next()).toEqual({ type: 'refused', message: 'wrong token' });
  });

  it('a connection that says nothing is refused after the hello deadline', async () => {
    await h.start({ helloTimeoutMs: 100 });
    const raw = await h.open(hostPaths(h.dataDir).socket);
    expect(await raw.next()).toEqual({ type: 'refused', message: 'no hello within 0.1 s' });
    await within(raw.closed, HANG_MS, 'the close');
  });

  it('with the token: welcome, answers, errors with their codes, events, and the built-in ping', async () => {
    const { token, service } = await h.start();
    const raw = await h.open(hostPaths(h.dataDir).socket);
    raw.send({ type: 'hello', token, client: 'test', version: '1' });
    expect(await raw.next()).toEqual({ type: 'welcome', pid: process.pid, version: '9.9.9' });
    expect(await raw.request(1, 'echo', { a: [1, 2] })).toEqual({ id: 1, result: { a: [1, 2] } });
    expect(await raw.request(2, 'nothing')).toEqual({ id: 2, result: null });
    expect(await raw.request(3, 'missing')).toEqual({ id: 3, error: { message: 'no such thread', code: 'not_found' } });
    expect(await raw.request(4, 'boom')).toEqual({ id: 4, error: { message: 'it broke', code: 'failed' } });
    expect(await raw.request(5, 'emit', { n: 1 })).toEqual({ id: 5, result: null });
    expect(await raw.next((f) => (f as { event?: unknown }).event !== undefined)).toEqual({ event: 'tick', payload: { n: 1 } });
    const ping = (await raw.request(6, 'host.ping')) as { result: Record<string, unknown> };
    expect(ping.result).toMatchObject({ pid: process.pid, version: '9.9.9', connections: 1 });
    expect(ping.result.uptimeMs).toBeTypeOf('number');
    expect(service.connections.map((c) => c.client)).toEqual(['test']);
  });

  it('malformed JSON, a frame that is not a request and an oversize line do not crash it', async () => {
    const { token } = await h.start();
    const raw = await h.authenticated(hostPaths(h.dataDir).socket, token);
    raw.socket.write('{not json\n');
    expect(await raw.next()).toEqual({ id: -1, error: { message: 'malformed JSON', code: 'bad_request' } });
    raw.send({ id: 'seven', method: 'echo' });
    expect(await raw.next()).toMatchObject({ id: -1, error: { code: 'bad_request' } });
    raw.send({ id: 8, params: 1 });
    expect(await raw.next()).toMatchObject({ id: 8, error: { code: 'bad_request' } });
    expect(await raw.request(9, 'echo', 'still here')).toEqual({ id: 9, result: 'still here' });

    // 33 MiB without a newline: the connection is dropped, saying why, and the host goes on.
    const big = Buffer.alloc(33 * 1024 * 1024, 0x61);
    raw.socket.write(big);
    expect(await raw.next((f) => (f as { id?: unknown }).id === -1)).toEqual({ id: -1, error: { message: 'connection dropped: a frame over 32 MiB', code: 'bad_request' } });
    await within(raw.closed, HANG_MS, 'the drop');
    const again = await h.authenticated(hostPaths(h.dataDir).socket, token);
    expect(await again.request(1, 'echo', 'ok')).toEqual({ id: 1, result: 'ok' });
  });

  it('a client that falls over 16 MiB behind on events is dropped', async () => {
    const { token, service } = await h.start();
    const raw = await h.authenticated(hostPaths(h.dataDir).socket, token);
    raw.socket.pause();
    raw.send({ id: 1, method: 'flood' });
    await expect.poll(() => service.connections[0]?.closed, { timeout: HANG_MS }).toBe(true);
    raw.socket.resume();
    await within(raw.closed, HANG_MS, 'the drop');
  });
});

describe('one host per data folder', () => {
  it("a second host on the same folder fails with HostAlreadyRunningError and leaves the first's token", async () => {
    const { token } = await h.start();
    await expect(h.start()).rejects.toBeInstanceOf(HostAlreadyRunningError);
    expect(readFileSync(hostPaths(h.dataDir).token, 'utf8')).toBe(token);
    const raw = await h.authenticated(hostPaths(h.dataDir).socket, token);
    expect(await raw.request(1, 'echo', 1)).toEqual({ id: 1, result: 1 });
  });

  it("binds over a dead host's socket", async () => {
    const paths = ensureHostDir(h.dataDir);
    const child = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(process.argv[1], () => console.log('up'))`, paths.socket], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => child.stdout.once('data', resolve));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(statSync(paths.socket).isSocket()).toBe(true);
    const { token } = await h.start();
    const raw = await h.authenticated(paths.socket, token);
    expect(await raw.request(1, 'echo', 'new')).toEqual({ id: 1, result: 'new' });
  });

  it('stops when its socket file is removed', async () => {
    const { server, service } = await h.start({ watchMs: 50 });
    rmSync(server.paths.socket);
    await within(server.closed, HANG_MS, 'the stop');
    expect(service.closes).toBe(1);
  });

  it("stops when its socket file is replaced, and leaves the replacement alone", async () => {
    const { server } = await h.start({ watchMs: 50 });
    renameSync(server.paths.socket, join(h.root, 'moved.sock'));
    writeFileSync(server.paths.socket, 'another host');
    await within(server.closed, HANG_MS, 'the stop');
    expect(readFileSync(server.paths.socket, 'utf8')).toBe('another host');
  });
});

describe('idleness and shutdown', () => {
  it('with no client and nothing going it stops after idleMs, closing the service and removing its socket', async () => {
    const began = Date.now();
    const { server, service } = await h.start({ idleMs: 200 });
    await within(server.closed, HANG_MS, 'the idle stop');
    expect(Date.now() - began).toBeGreaterThanOrEqual(200);
    expect(service.closes).toBe(1);
    expect(existsSync(server.paths.socket)).toBe(false);
  });

  it('an attached client keeps it; the count starts when the client leaves', async () => {
    const { server, token } = await h.start({ idleMs: 150 });
    const raw = await h.authenticated(server.paths.socket, token);
    let stopped = false;
    void server.closed.then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect(stopped).toBe(false);
    raw.socket.end();
    const left = Date.now();
    await within(server.closed, HANG_MS, 'the idle stop');
    expect(Date.now() - left).toBeGreaterThanOrEqual(140);
  });

  it('a busy service keeps it alive with no client; once idle it stops', async () => {
    const { server, service } = await h.start({ idleMs: 100 });
    service.isBusy = true;
    let stopped = false;
    void server.closed.then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(stopped).toBe(false);
    service.isBusy = false;
    await within(server.closed, HANG_MS, 'the idle stop');
  });

  it('host.shutdown is refused while busy, accepted with force or when not busy', async () => {
    const { server, service, token } = await h.start();
    const raw = await h.authenticated(server.paths.socket, token);
    service.isBusy = true;
    expect(await raw.request(1, 'host.shutdown')).toMatchObject({ id: 1, error: { code: 'failed' } });
    expect(existsSync(server.paths.socket)).toBe(true);
    service.isBusy = false;
    expect(await raw.request(2, 'host.shutdown')).toEqual({ id: 2, result: { ok: true } });
    await within(server.closed, HANG_MS, 'the shutdown');
    await within(raw.closed, HANG_MS, "the client's close");
    expect(service.closes).toBe(1);
    expect(existsSync(server.paths.socket)).toBe(false);
  });

  it('host.shutdown with force stops a busy host', async () => {
    const { server, service, token } = await h.start();
    const raw = await h.authenticated(server.paths.socket, token);
    service.isBusy = true;
    expect(await raw.request(1, 'host.shutdown', { force: true })).toEqual({ id: 1, result: { ok: true } });
    await within(server.closed, HANG_MS, 'the shutdown');
  });
});
