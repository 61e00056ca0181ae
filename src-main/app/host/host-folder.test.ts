// The agent host's folder, socket and token for real (SPEC §16): their modes, the short socket
// folder of a long data folder, and another user's process and a sandboxed command trying to
// reach the socket.

import { spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalShellBackend } from '../../core/backends/filesystem/local-shell';
import { createSandbox, detectSandbox } from '../../core/sandbox';
import { TMP_SOCKET_DIRS } from '../../core/sandbox/policy';
import { folderSandboxPolicy } from '../../core/sandbox/protected-entry-files';
import { ensureHostDir, hostPaths } from './paths';
import { connectionLines, useHostServerTest } from './server.test-support';

const isRoot = process.getuid?.() === 0;
const sandboxAvailable = await detectSandbox();
const h = useHostServerTest();

describe('the host folder, socket and token', () => {
  it('are 0700, 0600 and 0600, the token 32 random bytes in hex', async () => {
    const { server, token } = await h.start();
    expect(statSync(server.paths.dir).mode & 0o777).toBe(0o700);
    expect(statSync(server.paths.socket).mode & 0o777).toBe(0o600);
    expect(statSync(server.paths.socket).isSocket()).toBe(true);
    expect(statSync(server.paths.token).mode & 0o777).toBe(0o600);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
  });

  it('an existing host folder of ours open to the group is made private', () => {
    mkdirSync(join(h.dataDir, 'host'), { mode: 0o775 });
    chmodSync(join(h.dataDir, 'host'), 0o775);
    ensureHostDir(h.dataDir);
    expect(statSync(join(h.dataDir, 'host')).mode & 0o777).toBe(0o700);
  });

  it('a symlinked host folder is refused, and no socket is made through it', async () => {
    const elsewhere = join(h.root, 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o700 });
    symlinkSync(elsewhere, join(h.dataDir, 'host'));
    expect(() => ensureHostDir(h.dataDir)).toThrow(/symbolic link/);
    await expect(h.start()).rejects.toThrow(/symbolic link/);
    expect(existsSync(join(elsewhere, 'host.sock'))).toBe(false);
  });

  it('a file where the host folder should be is refused', () => {
    writeFileSync(join(h.dataDir, 'host'), '');
    expect(() => ensureHostDir(h.dataDir)).toThrow(/not a folder/);
  });

  it.skipIf(!isRoot)("a group-writable host folder of another user is refused (not tightened: it is not ours to trust)", () => {
    mkdirSync(join(h.dataDir, 'host'), { mode: 0o770 });
    chmodSync(join(h.dataDir, 'host'), 0o770);
    chownSync(join(h.dataDir, 'host'), 65534, 65534);
    expect(() => ensureHostDir(h.dataDir)).toThrow(/another user \(uid 65534\)/);
    expect(statSync(join(h.dataDir, 'host')).mode & 0o777).toBe(0o770);
  });

  it('on Windows the socket is a named pipe of its own per data folder (no path length to keep under), beside the same token, lock and log', () => {
    const one = hostPaths('C:\\Users\\ada\\.deepdesk', { platform: 'win32' });
    expect(one.pipe).toBe(true);
    expect(one.socket).toMatch(/^\\\\\.\\pipe\\deepdesk-host-[0-9a-f]{32}$/);
    expect(hostPaths('C:\\Users\\ada\\.deepdesk', { platform: 'win32' }).socket).toBe(one.socket);
    expect(hostPaths('C:\\Users\\bob\\.deepdesk', { platform: 'win32' }).socket).not.toBe(one.socket);
    expect(hostPaths(join(h.root, 'd'.repeat(200)), { platform: 'win32' }).socket.length).toBeLessThan(60);
    const unix = hostPaths(h.dataDir, { platform: 'linux' });
    expect({ pipe: unix.pipe, socket: unix.socket }).toEqual({ pipe: false, socket: join(h.dataDir, 'host', 'host.sock') });
    expect([one.token, one.lock, one.log].map((p) => p.slice(-10))).toEqual([unix.token, unix.lock, unix.log].map((p) => p.slice(-10)));
  });

  it("a data folder whose path is too long for a socket keeps its socket in a short folder of the person's own, named for the folder", async () => {
    const deep = join(h.root, 'd'.repeat(200));
    const shortRoot = join(h.root, 't');
    mkdirSync(shortRoot);
    const paths = ensureHostDir(deep, { shortRoot });
    expect(paths.socketDir).toBe(join(shortRoot, `deepdesk-${process.getuid!()}`));
    expect(paths.socket.startsWith(paths.socketDir! + '/')).toBe(true);
    expect(Buffer.byteLength(paths.socket)).toBeLessThanOrEqual(100);
    expect(statSync(paths.socketDir!).mode & 0o777).toBe(0o700);
    expect(ensureHostDir(join(deep, '.', '..', 'd'.repeat(200)), { shortRoot }).socket).toBe(paths.socket);
    expect(ensureHostDir(join(h.root, 'e'.repeat(200)), { shortRoot }).socket).not.toBe(paths.socket);
  });

  // The predictable short folder taken first, three ways: another user's (h.root only: chown), a
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
        mkdirSync(join(h.root, 'elsewhere'), { mode: 0o700 });
        symlinkSync(join(h.root, 'elsewhere'), planted);
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
      const deep = join(h.root, 'd'.repeat(200));
      const shortRoot = join(h.root, 't');
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

      const { server } = await h.start({ dataDir: deep, paths: { shortRoot } });
      expect(server.paths.socket).toBe(paths.socket);
      expect(statSync(server.paths.socket).isSocket()).toBe(true);
      const token = readFileSync(server.paths.token, 'utf8');
      const raw = await h.authenticated(server.paths.socket, token);
      expect(await raw.request(1, 'host.ping')).toMatchObject({ id: 1, result: { version: '9.9.9' } });
      // Nothing was made in the planted folder, nor where its link leads.
      expect(readdirSync(planted)).toEqual([]);
    });
  }

  it('a recorded folder gone (a cleaned /tmp) is made again; one someone else took meanwhile is replaced by a new one', () => {
    const deep = join(h.root, 'd'.repeat(200));
    const shortRoot = join(h.root, 't');
    mkdirSync(shortRoot);
    symlinkSync(h.root, join(shortRoot, `deepdesk-${process.getuid!()}`));
    const first = ensureHostDir(deep, { shortRoot });
    rmSync(first.socketDir!, { recursive: true });
    expect(ensureHostDir(deep, { shortRoot }).socket).toBe(first.socket);
    expect(statSync(first.socketDir!).mode & 0o777).toBe(0o700);
    rmSync(first.socketDir!, { recursive: true });
    symlinkSync(h.root, first.socketDir!);
    const second = ensureHostDir(deep, { shortRoot });
    expect(second.socketDir).not.toBe(first.socketDir);
    expect(readFileSync(second.socketDirRecord, 'utf8').trim()).toBe(second.socketDir);
    expect(statSync(second.socketDir!).mode & 0o777).toBe(0o700);
  });
});

describe("the socket is the person's alone", () => {
  it.skipIf(!isRoot)('another user cannot connect (EACCES), and the host sees no connection', async () => {
    const { server, lines } = await h.start();
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
    const { server, lines } = await h.start();
    const project = join(h.root, 'project');
    mkdirSync(project);
    const sandbox = await createSandbox(folderSandboxPolicy({ projectDir: project, dataDir: h.dataDir }));
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
    const deep = join(h.root, 'd'.repeat(200));
    mkdirSync(join(deep, 'host'), { recursive: true, mode: 0o700 });
    // As ensureHostDir records it when /tmp/deepdesk-<uid> was taken by someone else.
    const fallback = mkdtempSync(join('/tmp', `deepdesk-${process.getuid!()}-`));
    writeFileSync(join(deep, 'host', 'socket-dir'), `${fallback}\n`, { mode: 0o600 });
    try {
      const { server, lines } = await h.start({ dataDir: deep });
      expect(server.paths.socketDir).toBe(fallback);
      const project = join(h.root, 'project');
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
