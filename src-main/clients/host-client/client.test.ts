// The host's clients against real hosts (SPEC §16): `deepdesk host` of the build started on
// demand by HostClient.connect, raced by several clients, left idle, shut down, and killed.

import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureHostDir, hostPaths } from '../../app/host/paths';
import { startHostServer } from '../../app/host/server';
import { HostRequestError, type HostConnection, type HostService } from '../../app/base/host-service';
import { isProcessAlive } from '../../core/process/process-tree';
import { HostGoneError, HostClient, HostNotRunningError, type HostConnectOptions } from './client';
import { defaultHostLaunch } from './launch';

const repo = resolve(import.meta.dirname, '../../..');

let root: string;
let dataDir: string;
let clients: HostClient[];

beforeAll(() => {
  if (!existsSync(join(repo, 'out/main/cli.js'))) throw new Error('run `npm run build` before the host client tests (npm test does)');
});

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'dd-hc-')));
  dataDir = join(root, 'data');
  clients = [];
});

afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  // Every host this test started, by the pids their log names.
  for (const pid of upPids()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  rmSync(root, { recursive: true, force: true });
});

function log(): string {
  try {
    return readFileSync(hostPaths(dataDir).log, 'utf8');
  } catch {
    return '';
  }
}

function upPids(): number[] {
  return [...log().matchAll(/host up: pid (\d+)/g)].map((m) => Number(m[1]));
}

/** A host's start is waited for as long as a loaded machine may take: the bound is only against a hang. */
const START_BOUND_MS = 90_000;
/** A test that starts real hosts, each a Node process of the build. */
const HOSTS = { timeout: 4 * START_BOUND_MS };
/** A state polled for: the bound is only against a hang. */
const HANG = { timeout: 60_000 };

async function connect(options: Partial<HostConnectOptions> = {}): Promise<HostClient> {
  const client = await HostClient.connect({ dataDir, client: 'test', version: '', timeoutMs: START_BOUND_MS, ...options });
  clients.push(client);
  return client;
}

interface Ping {
  pid: number;
  version: string;
  uptimeMs: number;
  connections: number;
}

describe('connect or start', HOSTS, () => {
  it('clients racing on a fresh data folder start exactly one host', async () => {
    const racing = await Promise.all([connect(), connect(), connect()]);
    expect(racing.map((c) => c.started).filter(Boolean)).toHaveLength(1);
    const pings = await Promise.all(racing.map((c) => c.request<Ping>('host.ping')));
    const pid = pings[0]!.pid;
    expect(pings.map((p) => p.pid)).toEqual([pid, pid, pid]);
    expect(racing.map((c) => c.hostPid)).toEqual([pid, pid, pid]);
    expect(pings[2]!.connections).toBe(3);
    let told = 0;
    const late = await connect({ onStarting: () => told++ });
    expect({ started: late.started, told, pid: late.hostPid }).toEqual({ started: false, told: 0, pid });
    expect(upPids()).toEqual([pid]);
    // No second host was launched only to find the first one running.
    expect(log()).not.toMatch(/already running/);
    expect(existsSync(hostPaths(dataDir).lock)).toBe(false);
    expect(statSync(hostPaths(dataDir).log).mode & 0o777).toBe(0o600);
  });

  it('a host of another build is replaced once, while it is idle', async () => {
    const old = await connect();
    const oldPid = old.hostPid;
    await old.close();
    const updated = await connect({ version: 'another-build' });
    expect(updated.started).toBe(true);
    expect(updated.hostPid).not.toBe(oldPid);
    expect(upPids()).toEqual([oldPid, updated.hostPid]);
  });

  it('a host serving other clients is not replaced by a client of another build', async () => {
    const window = await connect();
    const pid = window.hostPid;
    const kept: string[] = [];
    const updated = await connect({ version: 'another-build', onKeptOtherBuild: (why) => kept.push(why) });
    expect({ started: updated.started, pid: updated.hostPid }).toEqual({ started: false, pid });
    expect(kept).toEqual([expect.stringMatching(/1 other client is attached to the host/)]);
    // The first client is still served, by the same host.
    expect(await window.request('host.ping')).toMatchObject({ pid });
    expect(upPids()).toEqual([pid]);
  });

  it('with start: false and no host, says so and starts nothing', async () => {
    await expect(connect({ start: false })).rejects.toBeInstanceOf(HostNotRunningError);
    expect(existsSync(hostPaths(dataDir).log)).toBe(false);
  });

  it('a host that cannot start fails the connect at once, quoting its log', async () => {
    const launch = { file: process.execPath, args: ['-e', 'console.error("boom: no database here"); process.exit(3)'], env: process.env };
    // At once: on the launch's exit, not at the end of the connect's wait (an hour here, past the test's own bound).
    const failure = connect({ launch, timeoutMs: 3_600_000 });
    await expect(failure).rejects.toThrow(/could not start: it exited with status 3; the end of .*host\.log:\nboom: no database here/);
    expect(existsSync(hostPaths(dataDir).lock)).toBe(false);
  });

  it("a start lock left by a dead client, or an old one, does not stop the start", async () => {
    const paths = ensureHostDir(dataDir);
    // A client that died mid-start (a pid that cannot be running).
    writeFileSync(paths.lock, '2147483646 dead\n');
    const first = await connect();
    expect(first.started).toBe(true);
    await first.request('host.shutdown');
    await expect.poll(() => existsSync(paths.socket), HANG).toBe(false);
    // A live writer's lock, but from long ago.
    writeFileSync(paths.lock, `${process.pid} old\n`);
    const past = new Date(Date.now() - 60_000);
    utimesSync(paths.lock, past, past);
    const second = await connect();
    expect(second.started).toBe(true);
  });
});

describe('the host ends when no one needs it', HOSTS, () => {
  it('a host started with 1 s of idleness exits by itself once its last client has been gone that long', async () => {
    const client = await connect({ env: { ...process.env, DEEPDESK_HOST_IDLE_SECONDS: '1' } });
    const pid = client.hostPid;
    // Taken before the client leaves, so that a slow test process cannot make the wait look shorter.
    const left = Date.now();
    await client.close();
    await expect.poll(() => existsSync(hostPaths(dataDir).socket) || isProcessAlive(pid), { ...HANG, interval: 25 }).toBe(false);
    // Not before its idleness was up; how much later is the machine's, not the host's.
    expect(Date.now() - left).toBeGreaterThanOrEqual(900);
    expect(log()).toMatch(/stopping: idle for 1 s with no client/);
  });

  it('host.shutdown stops it: the client is told, and the socket is gone', async () => {
    const client = await connect();
    const reasons: string[] = [];
    client.onClose((reason) => reasons.push(reason));
    expect(await client.request('host.shutdown')).toEqual({ ok: true });
    await expect.poll(() => reasons, HANG).toEqual(['the agent host closed the connection']);
    await expect.poll(() => existsSync(hostPaths(dataDir).socket) || isProcessAlive(client.hostPid), HANG).toBe(false);
    await expect(client.request('host.ping')).rejects.toBeInstanceOf(HostGoneError);
  });
});

describe('a host that dies', HOSTS, () => {
  it("tells its client, fails what was pending, and the next connect starts a new host over its socket", async () => {
    const client = await connect();
    const pid = client.hostPid;
    const reasons: string[] = [];
    client.onClose((reason) => reasons.push(reason));
    // Stopped first, so that the request is surely pending when it dies.
    process.kill(pid, 'SIGSTOP');
    const pending = client.request('host.ping');
    process.kill(pid, 'SIGKILL');
    await expect(pending).rejects.toBeInstanceOf(HostGoneError);
    await expect.poll(() => reasons, HANG).toHaveLength(1);
    expect(reasons[0]).toMatch(/agent host/);
    await expect(client.request('host.ping')).rejects.toBeInstanceOf(HostGoneError);
    expect(statSync(hostPaths(dataDir).socket).isSocket()).toBe(true);

    let told = 0;
    const next = await connect({ onStarting: () => told++ });
    expect(told).toBe(1);
    expect(next.started).toBe(true);
    expect(next.hostPid).not.toBe(pid);
    expect(await next.request<Ping>('host.ping')).toMatchObject({ pid: next.hostPid, connections: 1 });
  });
});

describe('requests and events (a host in this process)', () => {
  it('answers, errors with their codes, events in order, and a request given up by its signal', async () => {
    const service: HostService = {
      handle: async (connection, method, params) => {
        if (method === 'emit') {
          connection.send('tick', params);
          return 'sent';
        }
        if (method === 'missing') throw new HostRequestError('no such thread', 'not_found');
        if (method === 'hang') return new Promise(() => {});
        throw new Error('it broke');
      },
      busy: () => false,
      close: async () => {},
    };
    const server = await startHostServer({ dataDir, service, idleMs: 60_000, version: '9.9.9' });
    try {
      const client = await connect({ start: false });
      expect({ pid: client.hostPid, version: client.hostVersion, started: client.started }).toEqual({ pid: process.pid, version: '9.9.9', started: false });
      const events: unknown[] = [];
      client.onEvent((event, payload) => events.push([event, payload]));
      expect(await client.request('emit', { n: 1 })).toBe('sent');
      expect(events).toEqual([['tick', { n: 1 }]]);
      await expect(client.request('missing')).rejects.toMatchObject({ name: 'HostRequestError', code: 'not_found', message: 'no such thread' });
      await expect(client.request('other')).rejects.toMatchObject({ name: 'HostRequestError', code: 'failed', message: 'it broke' });
      const giveUp = new AbortController();
      const hanging = client.request('hang', undefined, giveUp.signal);
      giveUp.abort();
      await expect(hanging).rejects.toMatchObject({ name: 'AbortError' });
      expect(await client.request('host.ping')).toMatchObject({ pid: process.pid, connections: 1 });
    } finally {
      await server.close();
    }
  });
});

describe('a short socket folder someone else made first (a host in this process)', () => {
  it('does not keep the host from starting: it binds in a folder no one else can take, and clients of the data folder connect there', async () => {
    // A data folder whose path is too long for a socket, and the predictable short folder taken
    // first: another user's when the tests run as root, else a link to a folder elsewhere.
    const deep = join(root, 'd'.repeat(200));
    const shortRoot = join(root, 't');
    mkdirSync(shortRoot);
    const planted = join(shortRoot, `deepdesk-${process.getuid!()}`);
    if (process.getuid!() === 0) {
      mkdirSync(planted, { mode: 0o777 });
      chmodSync(planted, 0o777);
      chownSync(planted, 65534, 65534);
    } else {
      mkdirSync(join(root, 'elsewhere'));
      symlinkSync(join(root, 'elsewhere'), planted);
    }
    const paths = { shortRoot };
    const service: HostService = { handle: async () => 'ok', busy: () => false, close: async () => {} };
    const server = await startHostServer({ dataDir: deep, service, idleMs: 60_000, version: '9.9.9', paths });
    try {
      expect(server.paths.socketDir).not.toBe(planted);
      expect(server.paths.socket.startsWith(`${planted}-`)).toBe(true);
      const client = await connect({ dataDir: deep, start: false, paths });
      expect(client.hostPid).toBe(process.pid);
      expect(await client.request('host.ping')).toMatchObject({ pid: process.pid, connections: 1 });
      const second = await connect({ dataDir: deep, start: false, paths });
      expect(await second.request('host.ping')).toMatchObject({ connections: 2 });
      expect(readdirSync(planted)).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe('the host asks a client (a host in this process)', () => {
  it('for what only the client can do: its answer or its error comes back; an unknown ask is refused; a client that goes fails what it was asked', async () => {
    let asking: HostConnection | undefined;
    const service: HostService = {
      handle: async (connection) => {
        asking = connection;
        return 'ok';
      },
      busy: () => false,
      close: async () => {},
    };
    const server = await startHostServer({ dataDir, service, idleMs: 60_000, version: '' });
    try {
      const client = await connect({ start: false });
      client.answer('shout', async (params) => String((params as { text: string }).text).toUpperCase());
      client.answer('refuse', async () => {
        throw new Error('not today');
      });
      let release!: () => void;
      client.answer('slow', () => new Promise((resolve) => (release = () => resolve('late'))));
      await client.request('hello');
      expect(await asking!.ask('shout', { text: 'hi' })).toBe('HI');
      await expect(asking!.ask('refuse')).rejects.toThrow('not today');
      await expect(asking!.ask('unknown')).rejects.toThrow('this client does not answer unknown');
      const slow = expect(asking!.ask('slow')).rejects.toThrow(/went away before answering/);
      // The client holds the ask (a state, not a pause) when it goes.
      await expect.poll(() => release, HANG).toBeDefined();
      await client.close();
      await slow;
      release();
    } finally {
      await server.close();
    }
  });
});

describe('the launch', () => {
  it("runs this build's CLI entry with `host --data-dir`", () => {
    const launch = defaultHostLaunch(dataDir, { A: '1' });
    expect(launch.file).toBe(process.execPath);
    expect(launch.args.slice(-4)).toEqual([join(repo, 'out/main/cli.js'), 'host', '--data-dir', dataDir]);
    expect(launch.env).toEqual({ A: '1' });
  });
});
