// The agent host's socket for real (SPEC §16): a real Unix socket in a real data folder,
// raw clients speaking the frames by hand, another user's process and a sandboxed command
// trying to reach it, and the host ending when idle, told to, or when its socket goes.

import { spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalShellBackend } from '../../core/backends/filesystem/local-shell';
import { createSandbox, detectSandbox } from '../../core/sandbox';
import { TMP_SOCKET_DIRS } from '../../core/sandbox/policy';
import { folderSandboxPolicy } from '../../core/sandbox/protected-entry-files';
import { ensureHostDir, hostPaths } from './paths';
import { LineReader } from './protocol';
import { HostAlreadyRunningError, startHostServer, type HostServer, type HostServerOptions } from './server';
import { HostRequestError, type HostConnection, type HostService } from '../base/host-service';

const isRoot = process.getuid?.() === 0;
const sandboxAvailable = await detectSandbox();

let root: string;
let dataDir: string;
let servers: HostServer[];
let sockets: Socket[];

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'dd-host-')));
  // Open to others down to the host folder: only the host folder's own mode keeps them out.
  chmodSync(root, 0o755);
  dataDir = join(root, 'data');
  mkdirSync(dataDir, { mode: 0o755 });
  chmodSync(dataDir, 0o755);
  servers = [];
  sockets = [];
});

afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((s) => s.close()));
  rmSync(root, { recursive: true, force: true });
});

interface FakeService extends HostService {
  isBusy: boolean;
  closes: number;
  connections: HostConnection[];
}

function fakeService(): FakeService {
  const service: FakeService = {
    isBusy: false,
    closes: 0,
    connections: [],
    handle: async (connection, method, params) => {
      if (!service.connections.includes(connection)) service.connections.push(connection);
      if (method === 'echo') return params;
      if (method === 'nothing') return undefined;
      if (method === 'missing') throw new HostRequestError('no such thread', 'not_found');
      if (method === 'boom') throw new Error('it broke');
      if (method === 'emit') {
        connection.send('tick', params);
        return null;
      }
      if (method === 'flood') {
        const chunk = 'x'.repeat(1024 * 1024);
        for (let i = 0; i < 40 && !connection.closed; i++) connection.send('chunk', chunk);
        return null;
      }
      throw new HostRequestError(`unknown method ${method}`, 'bad_request');
    },
    busy: () => service.isBusy,
    close: async () => {
      service.closes++;
    },
  };
  return service;
}

async function start(options: Partial<HostServerOptions> = {}): Promise<{ server: HostServer; service: FakeService; lines: string[]; token: string }> {
  const service = fakeService();
  const lines: string[] = [];
  const server = await startHostServer({ dataDir, service, idleMs: 60_000, version: '9.9.9', log: (line) => lines.push(line), ...options });
  servers.push(server);
  return { server, service, lines, token: readFileSync(server.paths.token, 'utf8') };
}

/** A client speaking the frames by hand. */
class Raw {
  readonly frames: unknown[] = [];
  readonly closed: Promise<void>;
  private wake: (() => void) | undefined;

  private constructor(readonly socket: Socket) {
    const reader = new LineReader({ frame: (v) => this.push(v), malformed: () => this.push('MALFORMED'), oversize: () => this.push('OVERSIZE') });
    socket.on('data', (chunk: Buffer) => reader.push(chunk));
    socket.on('error', () => {});
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    void this.closed.then(() => this.wake?.());
  }

  static open(path: string): Promise<Raw> {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      sockets.push(socket);
      socket.once('error', reject);
      socket.once('connect', () => resolve(new Raw(socket)));
    });
  }

  static async authenticated(path: string, token: string): Promise<Raw> {
    const raw = await Raw.open(path);
    raw.send({ type: 'hello', token, client: 'test', version: '1' });
    expect(await raw.next()).toMatchObject({ type: 'welcome' });
    return raw;
  }

  send(value: unknown): void {
    this.socket.write(`${JSON.stringify(value)}\n`);
  }

  /** The next frame not yet taken that matches, waiting for it. */
  async next(match: (frame: unknown) => boolean = () => true, timeoutMs = 5000): Promise<unknown> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.frames.findIndex(match);
      if (index !== -1) return this.frames.splice(index, 1)[0];
      if (this.socket.closed) throw new Error(`closed with no such frame (had ${JSON.stringify(this.frames).slice(0, 200)})`);
      if (Date.now() > deadline) throw new Error('no such frame in time');
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, 50);
      });
    }
  }

  async request(id: number, method: string, params?: unknown): Promise<unknown> {
    this.send({ id, method, params });
    return this.next((f) => (f as { id?: unknown }).id === id);
  }

  private push(value: unknown): void {
    this.frames.push(value);
    this.wake?.();
  }
}

const connectionLines = (lines: string[]): string[] => lines.filter((line) => /^c\d+/.test(line));

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('the host folder, socket and token', () => {
  it('are 0700, 0600 and 0600, the token 32 random bytes in hex', async () => {
    const { server, token } = await start();
    expect(statSync(server.paths.dir).mode & 0o777).toBe(0o700);
    expect(statSync(server.paths.socket).mode & 0o777).toBe(0o600);
    expect(statSync(server.paths.socket).isSocket()).toBe(true);
    expect(statSync(server.paths.token).mode & 0o777).toBe(0o600);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
  });

  it('an existing host folder of ours open to the group is made private', () => {
    mkdirSync(join(dataDir, 'host'), { mode: 0o775 });
    chmodSync(join(dataDir, 'host'), 0o775);
    ensureHostDir(dataDir);
    expect(statSync(join(dataDir, 'host')).mode & 0o777).toBe(0o700);
  });

  it('a symlinked host folder is refused, and no socket is made through it', async () => {
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o700 });
    symlinkSync(elsewhere, join(dataDir, 'host'));
    expect(() => ensureHostDir(dataDir)).toThrow(/symbolic link/);
    await expect(start()).rejects.toThrow(/symbolic link/);
    expect(existsSync(join(elsewhere, 'host.sock'))).toBe(false);
  });

  it('a file where the host folder should be is refused', () => {
    writeFileSync(join(dataDir, 'host'), '');
    expect(() => ensureHostDir(dataDir)).toThrow(/not a folder/);
  });

  it.skipIf(!isRoot)("a group-writable host folder of another user is refused (not tightened: it is not ours to trust)", () => {
    mkdirSync(join(dataDir, 'host'), { mode: 0o770 });
    chmodSync(join(dataDir, 'host'), 0o770);
    chownSync(join(dataDir, 'host'), 65534, 65534);
    expect(() => ensureHostDir(dataDir)).toThrow(/another user \(uid 65534\)/);
    expect(statSync(join(dataDir, 'host')).mode & 0o777).toBe(0o770);
  });

  it('on Windows the socket is a named pipe of its own per data folder (no path length to keep under), beside the same token, lock and log', () => {
    const one = hostPaths('C:\\Users\\ada\\.deepdesk', { platform: 'win32' });
    expect(one.pipe).toBe(true);
    expect(one.socket).toMatch(/^\\\\\.\\pipe\\deepdesk-host-[0-9a-f]{32}$/);
    expect(hostPaths('C:\\Users\\ada\\.deepdesk', { platform: 'win32' }).socket).toBe(one.socket);
    expect(hostPaths('C:\\Users\\bob\\.deepdesk', { platform: 'win32' }).socket).not.toBe(one.socket);
    expect(hostPaths(join(root, 'd'.repeat(200)), { platform: 'win32' }).socket.length).toBeLessThan(60);
    const unix = hostPaths(dataDir, { platform: 'linux' });
    expect({ pipe: unix.pipe, socket: unix.socket }).toEqual({ pipe: false, socket: join(dataDir, 'host', 'host.sock') });
    expect([one.token, one.lock, one.log].map((p) => p.slice(-10))).toEqual([unix.token, unix.lock, unix.log].map((p) => p.slice(-10)));
  });

  it("a data folder whose path is too long for a socket keeps its socket in a short folder of the person's own, named for the folder", async () => {
    const deep = join(root, 'd'.repeat(200));
    const shortRoot = join(root, 't');
    mkdirSync(shortRoot);
    const paths = ensureHostDir(deep, { shortRoot });
    expect(paths.socketDir).toBe(join(shortRoot, `deepdesk-${process.getuid!()}`));
    expect(paths.socket.startsWith(paths.socketDir! + '/')).toBe(true);
    expect(Buffer.byteLength(paths.socket)).toBeLessThanOrEqual(100);
    expect(statSync(paths.socketDir!).mode & 0o777).toBe(0o700);
    expect(ensureHostDir(join(deep, '.', '..', 'd'.repeat(200)), { shortRoot }).socket).toBe(paths.socket);
    expect(ensureHostDir(join(root, 'e'.repeat(200)), { shortRoot }).socket).not.toBe(paths.socket);
  });

  // The predictable short folder taken first, three ways: another user's (root only: chown), a
  // link to a folder elsewhere, and one of ours open to others (what others put in it meanwhile would stay).
  const plantings: Array<[string, (planted: string) => void, boolean]> = [
    [
      'made by another user (uid 65534, mode 0777)',
      (planted) => {
        mkdirSync(planted, { mode: 0o777 });
        chmodSync(planted, 0o777);
        chownSync(planted, 65534, 65534);
      },
      !isRoot,
    ],
    [
      'a symbolic link to a folder elsewhere',
      (planted) => {
        mkdirSync(join(root, 'elsewhere'), { mode: 0o700 });
        symlinkSync(join(root, 'elsewhere'), planted);
      },
      false,
    ],
    [
      'open to others (mode 0777)',
      (planted) => {
        mkdirSync(planted, { mode: 0o777 });
        chmodSync(planted, 0o777);
      },
      false,
    ],
  ];
  for (const [how, plant, skip] of plantings) {
    it.skipIf(skip)(`a short socket folder ${how} is not used: the host binds in a folder no one else can take, recorded for its clients`, async () => {
      const deep = join(root, 'd'.repeat(200));
      const shortRoot = join(root, 't');
      mkdirSync(shortRoot);
      const planted = join(shortRoot, `deepdesk-${process.getuid!()}`);
      plant(planted);
      const paths = ensureHostDir(deep, { shortRoot });
      expect(paths.socketDir).not.toBe(planted);
      expect(paths.socketDir!.startsWith(`${planted}-`)).toBe(true);
      const st = statSync(paths.socketDir!);
      expect({ uid: st.uid, mode: st.mode & 0o777, dir: st.isDirectory() }).toEqual({ uid: process.getuid!(), mode: 0o700, dir: true });
      expect(readFileSync(paths.socketDirRecord, 'utf8').trim()).toBe(paths.socketDir);
      // A name the sandbox hides from commands, as it hides the predictable one.
      expect(TMP_SOCKET_DIRS.test(basename(paths.socketDir!))).toBe(true);
      // Every client of the data folder finds the same place, checked or not.
      expect(ensureHostDir(deep, { shortRoot }).socket).toBe(paths.socket);
      expect(hostPaths(deep, { shortRoot }).socket).toBe(paths.socket);

      const { server } = await start({ dataDir: deep, paths: { shortRoot } });
      expect(server.paths.socket).toBe(paths.socket);
      expect(statSync(server.paths.socket).isSocket()).toBe(true);
      const token = readFileSync(server.paths.token, 'utf8');
      const raw = await Raw.authenticated(server.paths.socket, token);
      expect(await raw.request(1, 'host.ping')).toMatchObject({ id: 1, result: { version: '9.9.9' } });
      // Nothing was made in the planted folder, nor where its link leads.
      expect(readdirSync(planted)).toEqual([]);
    });
  }

  it('a recorded folder gone (a cleaned /tmp) is made again; one someone else took meanwhile is replaced by a new one', () => {
    const deep = join(root, 'd'.repeat(200));
    const shortRoot = join(root, 't');
    mkdirSync(shortRoot);
    symlinkSync(root, join(shortRoot, `deepdesk-${process.getuid!()}`));
    const first = ensureHostDir(deep, { shortRoot });
    rmSync(first.socketDir!, { recursive: true });
    expect(ensureHostDir(deep, { shortRoot }).socket).toBe(first.socket);
    expect(statSync(first.socketDir!).mode & 0o777).toBe(0o700);
    rmSync(first.socketDir!, { recursive: true });
    symlinkSync(root, first.socketDir!);
    const second = ensureHostDir(deep, { shortRoot });
    expect(second.socketDir).not.toBe(first.socketDir);
    expect(readFileSync(second.socketDirRecord, 'utf8').trim()).toBe(second.socketDir);
    expect(statSync(second.socketDir!).mode & 0o777).toBe(0o700);
  });
});

describe('only a client with the token is answered', () => {
  it('a request before any hello gets no answer: the connection is refused and closed', async () => {
    const { lines } = await start();
    const raw = await Raw.open(hostPaths(dataDir).socket);
    raw.send({ id: 1, method: 'echo', params: 'hi' });
    expect(await raw.next()).toEqual({ type: 'refused', message: 'expected a hello frame first' });
    await within(raw.closed, 3000, 'the close');
    expect(raw.frames).toEqual([]);
    expect(connectionLines(lines).join('\n')).toMatch(/refused: expected a hello frame first/);
  });

  it('a wrong or missing token is refused and what follows is not answered', async () => {
    const { token } = await start();
    const wrong = await Raw.open(hostPaths(dataDir).socket);
    wrong.send({ type: 'hello', token: token.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')), client: 'test', version: '1' });
    wrong.send({ id: 1, method: 'echo', params: 'hi' });
    expect(await wrong.next()).toEqual({ type: 'refused', message: 'wrong token' });
    await within(wrong.closed, 3000, 'the close');
    expect(wrong.frames).toEqual([]);

    const missing = await Raw.open(hostPaths(dataDir).socket);
    missing.send({ type: 'hello', client: 'test', version: '1' });
    expect(await missing.next()).toMatchObject({ type: 'refused' });
    await within(missing.closed, 3000, 'the close');

    const short = await Raw.open(hostPaths(dataDir).socket);
    short.send({ type: 'hello', token: token.slice(0, 10), client: 'test', version: '1' });
    expect(await short.next()).toEqual({ type: 'refused', message: 'wrong token' });
  });

  it('a connection that says nothing is refused after the hello deadline', async () => {
    await start({ helloTimeoutMs: 100 });
    const raw = await Raw.open(hostPaths(dataDir).socket);
    expect(await raw.next()).toEqual({ type: 'refused', message: 'no hello within 0.1 s' });
    await within(raw.closed, 3000, 'the close');
  });

  it('with the token: welcome, answers, errors with their codes, events, and the built-in ping', async () => {
    const { token, service } = await start();
    const raw = await Raw.open(hostPaths(dataDir).socket);
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
    const { token } = await start();
    const raw = await Raw.authenticated(hostPaths(dataDir).socket, token);
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
    await within(raw.closed, 5000, 'the drop');
    const again = await Raw.authenticated(hostPaths(dataDir).socket, token);
    expect(await again.request(1, 'echo', 'ok')).toEqual({ id: 1, result: 'ok' });
  });

  it('a client that falls over 16 MiB behind on events is dropped', async () => {
    const { token, service } = await start();
    const raw = await Raw.authenticated(hostPaths(dataDir).socket, token);
    raw.socket.pause();
    raw.send({ id: 1, method: 'flood' });
    await expect.poll(() => service.connections[0]?.closed, { timeout: 5000 }).toBe(true);
    raw.socket.resume();
    await within(raw.closed, 5000, 'the drop');
  });
});

describe("the socket is the person's alone", () => {
  it.skipIf(!isRoot)('another user cannot connect (EACCES), and the host sees no connection', async () => {
    const { server, lines } = await start();
    const script = `const s = require('node:net').connect(process.argv[1]);
      s.on('connect', () => { console.log('CONNECTED'); s.destroy(); });
      s.on('error', (e) => console.log(e.code));`;
    const child = spawn(process.execPath, ['-e', script, server.paths.socket], { uid: 65534, gid: 65534, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, out: out.trim() }).toEqual({ code: 0, out: 'EACCES' });
    expect(connectionLines(lines)).toEqual([]);
  });

  it.skipIf(!sandboxAvailable.available)('a sandboxed command of a folder cannot see the socket, let alone connect', async () => {
    const { server, lines } = await start();
    const project = join(root, 'project');
    mkdirSync(project);
    const sandbox = await createSandbox(folderSandboxPolicy({ projectDir: project, dataDir }));
    if (!sandbox) throw new Error('the sandbox was detected but not made');
    const backend = new LocalShellBackend({ rootDir: project, env: {}, sandbox });
    const socket = server.paths.socket;
    const connectScript = `const s=require('node:net').connect(process.argv[1]);s.on('connect',()=>{console.log('CONNECTED');s.destroy()});s.on('error',e=>console.log('ERROR',e.code))`;
    const result = await backend.execute(
      `if test -e '${socket}'; then echo SEEN; else echo UNSEEN; fi; ls '${server.paths.dir}' 2>&1 | head -3; '${process.execPath}' -e "${connectScript}" '${socket}'`,
      { timeoutS: 30 },
    );
    expect(result.sandboxed).toBe(true);
    expect(result.output).toMatch(/^UNSEEN$/m);
    expect(result.output).not.toContain('host.sock');
    expect(result.output).not.toContain('CONNECTED');
    expect(result.output).toMatch(/ERROR (ENOENT|EACCES)/);
    expect(connectionLines(lines)).toEqual([]);
  });
});

describe('the fallback socket folder is hidden from sandboxed commands too', () => {
  it.skipIf(!sandboxAvailable.available)("a socket in /tmp's mkdtemp fallback (recorded for a long data folder) is not seen by a sandboxed command", async () => {
    const deep = join(root, 'd'.repeat(200));
    mkdirSync(join(deep, 'host'), { recursive: true, mode: 0o700 });
    // As ensureHostDir records it when /tmp/deepdesk-<uid> was taken by someone else.
    const fallback = mkdtempSync(join('/tmp', `deepdesk-${process.getuid!()}-`));
    writeFileSync(join(deep, 'host', 'socket-dir'), `${fallback}\n`, { mode: 0o600 });
    try {
      const { server, lines } = await start({ dataDir: deep });
      expect(server.paths.socketDir).toBe(fallback);
      const project = join(root, 'project');
      mkdirSync(project);
      const sandbox = await createSandbox(folderSandboxPolicy({ projectDir: project, dataDir: deep }));
      if (!sandbox) throw new Error('the sandbox was detected but not made');
      const backend = new LocalShellBackend({ rootDir: project, env: {}, sandbox });
      const socket = server.paths.socket;
      const connectScript = `const s=require('node:net').connect(process.argv[1]);s.on('connect',()=>{console.log('CONNECTED');s.destroy()});s.on('error',e=>console.log('ERROR',e.code))`;
      const result = await backend.execute(`if test -e '${socket}'; then echo SEEN; else echo UNSEEN; fi; ls '${fallback}' 2>&1 | head -3; '${process.execPath}' -e "${connectScript}" '${socket}'`, { timeoutS: 30 });
      expect(result.sandboxed).toBe(true);
      expect(result.output).toMatch(/^UNSEEN$/m);
      expect(result.output).not.toContain('.sock');
      expect(result.output).not.toContain('CONNECTED');
      expect(connectionLines(lines)).toEqual([]);
      await server.close();
    } finally {
      rmSync(fallback, { recursive: true, force: true });
    }
  });
});

describe('one host per data folder', () => {
  it("a second host on the same folder fails with HostAlreadyRunningError and leaves the first's token", async () => {
    const { token } = await start();
    await expect(start()).rejects.toBeInstanceOf(HostAlreadyRunningError);
    expect(readFileSync(hostPaths(dataDir).token, 'utf8')).toBe(token);
    const raw = await Raw.authenticated(hostPaths(dataDir).socket, token);
    expect(await raw.request(1, 'echo', 1)).toEqual({ id: 1, result: 1 });
  });

  it("binds over a dead host's socket", async () => {
    const paths = ensureHostDir(dataDir);
    const child = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(process.argv[1], () => console.log('up'))`, paths.socket], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => child.stdout.once('data', resolve));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(statSync(paths.socket).isSocket()).toBe(true);
    const { token } = await start();
    const raw = await Raw.authenticated(paths.socket, token);
    expect(await raw.request(1, 'echo', 'new')).toEqual({ id: 1, result: 'new' });
  });

  it('stops when its socket file is removed', async () => {
    const { server, service } = await start({ watchMs: 50 });
    rmSync(server.paths.socket);
    await within(server.closed, 3000, 'the stop');
    expect(service.closes).toBe(1);
  });

  it("stops when its socket file is replaced, and leaves the replacement alone", async () => {
    const { server } = await start({ watchMs: 50 });
    renameSync(server.paths.socket, join(root, 'moved.sock'));
    writeFileSync(server.paths.socket, 'another host');
    await within(server.closed, 3000, 'the stop');
    expect(readFileSync(server.paths.socket, 'utf8')).toBe('another host');
  });
});

describe('idleness and shutdown', () => {
  it('with no client and nothing going it stops after idleMs, closing the service and removing its socket', async () => {
    const began = Date.now();
    const { server, service } = await start({ idleMs: 200 });
    await within(server.closed, 3000, 'the idle stop');
    expect(Date.now() - began).toBeGreaterThanOrEqual(200);
    expect(service.closes).toBe(1);
    expect(existsSync(server.paths.socket)).toBe(false);
  });

  it('an attached client keeps it; the count starts when the client leaves', async () => {
    const { server, token } = await start({ idleMs: 150 });
    const raw = await Raw.authenticated(server.paths.socket, token);
    let stopped = false;
    void server.closed.then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect(stopped).toBe(false);
    raw.socket.end();
    const left = Date.now();
    await within(server.closed, 3000, 'the idle stop');
    expect(Date.now() - left).toBeGreaterThanOrEqual(140);
  });

  it('a busy service keeps it alive with no client; once idle it stops', async () => {
    const { server, service } = await start({ idleMs: 100 });
    service.isBusy = true;
    let stopped = false;
    void server.closed.then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(stopped).toBe(false);
    service.isBusy = false;
    await within(server.closed, 3000, 'the idle stop');
  });

  it('host.shutdown is refused while busy, accepted with force or when not busy', async () => {
    const { server, service, token } = await start();
    const raw = await Raw.authenticated(server.paths.socket, token);
    service.isBusy = true;
    expect(await raw.request(1, 'host.shutdown')).toMatchObject({ id: 1, error: { code: 'failed' } });
    expect(existsSync(server.paths.socket)).toBe(true);
    service.isBusy = false;
    expect(await raw.request(2, 'host.shutdown')).toEqual({ id: 2, result: { ok: true } });
    await within(server.closed, 3000, 'the shutdown');
    await within(raw.closed, 3000, "the client's close");
    expect(service.closes).toBe(1);
    expect(existsSync(server.paths.socket)).toBe(false);
  });

  it('host.shutdown with force stops a busy host', async () => {
    const { server, service, token } = await start();
    const raw = await Raw.authenticated(server.paths.socket, token);
    service.isBusy = true;
    expect(await raw.request(1, 'host.shutdown', { force: true })).toEqual({ id: 1, result: { ok: true } });
    await within(server.closed, 3000, 'the shutdown');
  });
});
