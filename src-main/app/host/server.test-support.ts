// For the host's socket tests (server.test.ts, host-folder.test.ts): a data folder open to
// others down to the host folder, a host on it over a fake service, and raw clients speaking
// the frames by hand; whatever a test started is stopped after it.

import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { HostRequestError, type HostConnection, type HostService } from '../base/host-service';
import { LineReader } from './protocol';
import { startHostServer, type HostServer, type HostServerOptions } from './server';

export interface FakeService extends HostService {
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

export interface HostServerTest {
  /** A fresh folder per test, and the data folder in it. */
  readonly root: string;
  readonly dataDir: string;
  start(options?: Partial<HostServerOptions>): Promise<{ server: HostServer; service: FakeService; lines: string[]; token: string }>;
  open(path: string): Promise<Raw>;
  authenticated(path: string, token: string): Promise<Raw>;
}

export function useHostServerTest(): HostServerTest {
  let root = '';
  let dataDir = '';
  let servers: HostServer[] = [];
  let sockets: Socket[] = [];
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
  return {
    get root() {
      return root;
    },
    get dataDir() {
      return dataDir;
    },
    async start(options = {}) {
      const service = fakeService();
      const lines: string[] = [];
      const server = await startHostServer({ dataDir, service, idleMs: 60_000, version: '9.9.9', log: (line) => lines.push(line), ...options });
      servers.push(server);
      return { server, service, lines, token: readFileSync(server.paths.token, 'utf8') };
    },
    open: (path) => Raw.open(path, sockets),
    authenticated: (path, token) => Raw.authenticated(path, token, sockets),
  };
}

/** A client speaking the frames by hand. */
export class Raw {
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

  static open(path: string, sockets: Socket[]): Promise<Raw> {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      sockets.push(socket);
      socket.once('error', reject);
      socket.once('connect', () => resolve(new Raw(socket)));
    });
  }

  static async authenticated(path: string, token: string, sockets: Socket[]): Promise<Raw> {
    const raw = await Raw.open(path, sockets);
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

export const connectionLines = (lines: string[]): string[] => lines.filter((line) => /^c\d+/.test(line));

export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

