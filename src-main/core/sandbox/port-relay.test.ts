// port-relay (native/port-relay.c), the sandbox's ports to sockets outside, run directly: what
// passes through arrives whole both ways, the command's status is the relay's, and a port it
// cannot take stops it before the command runs. The sandbox's own tests reach it through bwrap.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtProgram } from '../process/built-program';

const relay = builtProgram('port-relay');
let dir: string;
let echo: Server;
let socket: string;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'deepdesk-port-relay-'));
  socket = join(dir, 'echo.sock');
  echo = createServer((c) => c.pipe(c));
  await new Promise<void>((resolve) => echo.listen(socket, resolve));
});
afterEach(async () => {
  await new Promise<void>((resolve) => echo.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

function runRelay(args: string[], file = relay!): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
    child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// Eight connections at once, each sending 1 MiB in one go and ending its side; prints how many
// came back whole.
const ROUND_TRIPS = `
const net = require('net'), crypto = require('crypto');
let whole = 0, ended = 0;
for (let i = 0; i < 8; i++) {
  const sent = crypto.randomBytes(1024 * 1024);
  const c = net.connect(Number(process.argv[1]), '127.0.0.1');
  const got = [];
  c.on('data', (d) => got.push(d));
  c.on('end', () => {
    if (Buffer.concat(got).equals(sent)) whole++;
    if (++ended === 8) { console.log('whole ' + whole); process.exit(7); }
  });
  c.end(sent);
}
`;

describe.skipIf(process.platform !== 'linux' || relay === undefined)('port-relay', () => {
  it('passes connections both ways at once, whole, half-closed in turn, and exits with the command’s status', async () => {
    const port = await freePort();
    const result = await runRelay([String(port), socket, '--', process.execPath, '-e', ROUND_TRIPS, String(port)]);
    expect(result).toMatchObject({ code: 7, stdout: 'whole 8\n' });
  });

  it('a command ended by a signal: 128 + the signal; one that is not found: 127', async () => {
    const port = await freePort();
    expect((await runRelay([String(port), socket, '--', '/bin/sh', '-c', 'kill -9 $$'])).code).toBe(137);
    const missing = await runRelay([String(port), socket, '--', 'deepdesk-no-such-program']);
    expect(missing.code).toBe(127);
    expect(missing.stderr).toContain('deepdesk-no-such-program');
  });

  it('a port it cannot take stops it before the command runs', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const marker = join(dir, 'ran');
    try {
      const result = await runRelay([String(port), socket, '--', '/bin/sh', '-c', `touch ${marker}`]);
      expect(result.code).toBe(125);
      expect(result.stderr).toContain(`port ${port}`);
      expect(existsSync(marker)).toBe(false);
    } finally {
      taken.close();
    }
  });

  it('holds no more connections than its open-file limit leaves room for: one more waits until one closes, then is relayed', async () => {
    const port = await freePort();
    const stop = join(dir, 'stop');
    // A hard limit of 24 open files leaves the relay room for 7 connections (two descriptors each).
    const running = runRelay(['-c', 'ulimit -n 24 && exec "$@"', 'sh', relay!, String(port), socket, '--', '/bin/sh', '-c', `until [ -e ${stop} ]; do sleep 0.1; done`], '/bin/sh');
    const opened: Socket[] = [];
    const answer = (c: Socket, text: string): Promise<string> =>
      new Promise((resolve) => {
        c.once('data', (d: Buffer) => resolve(String(d)));
        c.write(text);
      });
    const open = async (): Promise<Socket> => {
      const c = connect(port, '127.0.0.1');
      await new Promise<void>((resolve, reject) => c.once('connect', resolve).once('error', reject));
      opened.push(c);
      return c;
    };
    try {
      await expect.poll(async () => open().then(() => true, () => false)).toBe(true);
      for (let i = 1; i < 7; i++) await open();
      for (const c of opened) expect(await answer(c, 'a')).toBe('a');
      const waiting = await open();
      let got = '';
      waiting.on('data', (d: Buffer) => (got += String(d)));
      waiting.write('b');
      await sleep(500);
      expect(got).toBe('');
      opened[0]!.destroy();
      await expect.poll(() => got).toBe('b');
    } finally {
      for (const c of opened) c.destroy();
      writeFileSync(stop, '');
    }
    expect((await running).code).toBe(0);
  });
});
