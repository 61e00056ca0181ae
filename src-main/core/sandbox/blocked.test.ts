// The blocked line from real tools' error messages: what each tool prints when a write,
// a read of a secret, a link or a connection fails, judged against the policy. Messages
// that only look alike (source code quoting an error, a permission error inside the
// folder) must not produce a line. Nothing in the output makes the host connect anywhere.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectBlocked, formatBlockedLine, type BlockedContext } from './blocked';
import { resolvePolicy } from './policy';

let root: string;
let ctx: BlockedContext;
let server: Server;
let openPort: number;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-blocked-')));
  for (const dir of ['home/.ssh', 'project/.git/hooks', 'data', 'tmp']) mkdirSync(join(root, dir), { recursive: true });
  writeFileSync(join(root, 'project', '.git', 'config'), '');
  const policy = resolvePolicy(
    { projectDir: join(root, 'project'), dataDir: join(root, 'data') },
    { homes: [join(root, 'home')], env: {}, platform: 'linux', uid: 1000 },
  );
  ctx = { policy, writable: [join(root, 'tmp')], cwd: policy.projectDir, home: policy.home };
  server = createServer((s) => s.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  openPort = (server.address() as { port: number }).port;
});

afterAll(() => {
  server.close();
  rmSync(root, { recursive: true, force: true });
});

const line = async (output: string) => formatBlockedLine(await detectBlocked(output, ctx), ctx.policy);

describe('writes', () => {
  it.each([
    ["touch: cannot touch '{home}/x': Read-only file system", 'a write to {home}/x (outside the project folder)'],
    ['mkdir: cannot create directory ‘{home}/d’: Read-only file system', 'a write to {home}/d (outside the project folder)'],
    ['bash: line 1: {home}/.bashrc: Read-only file system', 'a write to {home}/.bashrc (outside the project folder)'],
    ['sh: 1: cannot create {home}/f: Read-only file system', 'a write to {home}/f (outside the project folder)'],
    ["Error: EROFS: read-only file system, open '{home}/n.js'", 'a write to {home}/n.js (outside the project folder)'],
    ["OSError: [Errno 30] Read-only file system: '{home}/p.py'", 'a write to {home}/p.py (outside the project folder)'],
    ["cp: cannot create regular file '/etc/passwd': Read-only file system", 'a write to /etc/passwd (outside the project folder)'],
    ['bash: line 1: ../escape: Read-only file system', 'a write to {root}/escape (outside the project folder)'],
    ['bash: line 1: .git/hooks/pre-commit: Read-only file system', 'a write to /.git/hooks/pre-commit (a protected path)'],
    ["rm: cannot remove '.git/config': Device or resource busy", 'a write to /.git/config (a protected path)'],
    ["mv: cannot move '.git' to 'old': Device or resource busy", 'a write to /.git (a protected path)'],
    ["ln: failed to create hard link 'h' => '{home}/x': Invalid cross-device link", 'a link to {home}/x (outside the project folder)'],
  ])('%s', async (message, expected) => {
    const fill = (s: string) => s.replaceAll('{home}', join(root, 'home')).replaceAll('{root}', root);
    expect(await line(`some output\n${fill(message)}\nmore`)).toBe(`[Sandbox blocked ${fill(expected)}]`);
  });

  it('falls back to a plain statement when the message names no path', async () => {
    expect(await line('write error: Read-only file system')).toBe('[Sandbox blocked a write outside the project folder]');
  });

  it('lists at most three things and counts the rest', async () => {
    const output = ['a', 'b', 'c', 'd', 'e'].map((n) => `touch: cannot touch '/etc/${n}': Read-only file system`).join('\n');
    expect(await line(output)).toBe(
      '[Sandbox blocked a write to /etc/a (outside the project folder); a write to /etc/b (outside the project folder); a write to /etc/c (outside the project folder); and 2 more]',
    );
  });
});

describe('secrets', () => {
  it('names reads of hidden paths, with ~ as the command home', async () => {
    expect(await line('cat: /x/../' + join(root, 'home', '.ssh', 'id_rsa').slice(1) + ': Permission denied')).toBe(
      `[Sandbox blocked access to ${join(root, 'home', '.ssh', 'id_rsa')} (SSH keys, hidden from commands)]`,
    );
    expect(await line(`cat: ${join(root, 'data', 'deepdesk.db')}: Permission denied`)).toBe(
      `[Sandbox blocked access to ${join(root, 'data', 'deepdesk.db')} (Deepdesk's data folder, hidden from commands)]`,
    );
  });
});

describe('network', () => {
  it.each([
    ['curl: (6) Could not resolve host: example.com', 'example.com'],
    ["fatal: unable to access 'https://github.com/a/b.git/': Could not resolve host: github.com", 'github.com'],
    ['ssh: Could not resolve hostname github.com: Temporary failure in name resolution', 'github.com'],
    ['npm error request to https://registry.npmjs.org/x failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org', 'registry.npmjs.org'],
    ["wget: unable to resolve host address 'example.org'", 'example.org'],
    ["Failed to establish a new connection: [Errno -3] Temporary failure in name resolution')) host='pypi.org'", 'pypi.org'],
    ['connect ENETUNREACH 1.2.3.4:443', '1.2.3.4:443'],
  ])('%s', async (message, host) => {
    expect(await line(message)).toBe(`[Sandbox blocked a network connection to ${host} — the sandbox has no network]`);
  });

  it('a refused loopback connection is reported alike whether or not the host listens there', async () => {
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const freePort = (free.address() as { port: number }).port;
    await new Promise<void>((resolve) => free.close(() => resolve()));
    for (const port of [openPort, freePort]) {
      expect(await line(`bash: connect: Connection refused\nbash: line 1: /dev/tcp/127.0.0.1/${port}: Connection refused`)).toBe(
        `[Sandbox blocked a network connection to 127.0.0.1:${port} — the sandbox has no network]`,
      );
      expect(await line(`curl: (7) Failed to connect to localhost port ${port} after 0 ms: Couldn't connect to server`)).toBe(
        `[Sandbox blocked a network connection to localhost:${port} — the sandbox has no network]`,
      );
    }
  });

  it('never connects from the host to what the output names: 208 fake refusals reach no listener', async () => {
    const listeners: Server[] = [];
    let accepted = 0;
    for (let i = 0; i < 8; i++) {
      const s = createServer((socket) => {
        accepted++;
        socket.destroy();
      });
      await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
      listeners.push(s);
    }
    const ports = listeners.map((s) => (s.address() as { port: number }).port);
    const lines: string[] = [];
    for (let i = 0; i < 200; i++) lines.push(`curl: (7) Failed to connect to 127.0.0.1 port ${20000 + i} after 0 ms: Couldn't connect to server`);
    for (const port of ports) lines.push(`connect ECONNREFUSED 127.0.0.1:${port}`);
    const withOpen = await line(lines.join('\n'));
    expect(withOpen).toMatch(/^\[Sandbox blocked a network connection to 127\.0\.0\.1:20000; .*; and 205 more — the sandbox has no network\]$/);
    await Promise.all(listeners.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    expect(accepted).toBe(0);
  });

  it('a name lookup that failed without naming the host is still reported', async () => {
    expect(await line('socket.gaierror: [Errno -3] Temporary failure in name resolution')).toBe(
      '[Sandbox blocked a network connection — the sandbox has no network]',
    );
  });
});

describe('nothing blocked, no line', () => {
  it.each([
    ['ordinary output', 'total 0\nhello\n'],
    ['a permission error inside the folder', "cat: ./locked.txt: Permission denied\nrm: cannot remove 'dir/x': Permission denied"],
    ['a missing file', 'cat: nope.txt: No such file or directory'],
    ['a write into the private temp folder', `touch: cannot touch '{tmp}/x': No space left on device`],
    ['source code quoting the errors', `src/a.ts:3:const READ_ONLY = 'Read-only file system'; // EROFS handling\nsrc/b.ts:9: /Connection refused/`],
    ['a refused connection without a target', 'ConnectionRefusedError: [Errno 111] Connection refused'],
  ])('%s', async (_name, output) => {
    expect(await line(output.replaceAll('{tmp}', join(root, 'tmp')))).toBeUndefined();
  });
});
