// A real OpenSSH server on 127.0.0.1 for tests (SPEC §13): generated host and client keys,
// a private sshd_config and a private client config, so nothing of the machine's own ssh set-up
// is used or changed. The client side is the system ssh with `-F` that config, given to
// Deepdesk as DEEPDESK_SSH_COMMAND (as git takes GIT_SSH_COMMAND).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';

/** Set by the test set-up to the sshd it found or installed. */
export const SSHD_ENV = 'DEEPDESK_TEST_SSHD';
/** The host alias of the private client config. */
export const TEST_SSH_HOST = 'deepdesk-test';

export interface TestSshd {
  port: number;
  /** The folder with the keys and configs. */
  dir: string;
  /** For DEEPDESK_SSH_COMMAND: `ssh -F <dir>/ssh_config`. */
  sshCommand: string;
  /** `ssh://deepdesk-test<path>`. */
  folderUrl(path: string): string;
  /** Stops the server (connections drop); `start()` brings it back on the same port and keys. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Replaces the host key (the client's known one no longer matches). */
  changeHostKey(): Promise<void>;
  dispose(): Promise<void>;
}

export function sshdPath(): string | null {
  const fromSetup = process.env[SSHD_ENV];
  if (fromSetup && existsSync(fromSetup)) return fromSetup;
  return ['/usr/sbin/sshd', '/usr/local/sbin/sshd'].find((p) => existsSync(p)) ?? null;
}

function keygen(file: string): void {
  const r = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'deepdesk-test', '-f', file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function accepting(port: number, deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('data', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`sshd did not start on 127.0.0.1:${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `setEnv`: more variables its sessions get (sshd's SetEnv), e.g. a HOME of the test's own. */
export async function startTestSshd(options: { setEnv?: Record<string, string> } = {}): Promise<TestSshd> {
  const sshd = sshdPath();
  if (sshd === null) throw new Error(`no sshd: the test set-up installs openssh-server (or set ${SSHD_ENV})`);
  // Short: the client's control sockets live under it too.
  const dir = mkdtempSync('/tmp/ddssh-');
  const port = await freePort();
  const user = userInfo().username;
  keygen(join(dir, 'host_key'));
  keygen(join(dir, 'id'));
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'id.pub')), { mode: 0o600 });
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  writeFileSync(
    join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      'StrictModes no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'PermitRootLogin prohibit-password',
      'UsePAM no',
      'PrintMotd no',
      'AcceptEnv LANG LC_*',
      // Its sessions' bash is not the first of a login (SHLVL 2), so it skips the machine's ~/.bashrc,
      // as the commands' own bash does: a person's rc (pyenv's rehash, 0.6 s, serialized on its
      // lock) is not paid by every session of every test.
      `SetEnv ${Object.entries({ SHLVL: '1', ...options.setEnv }).map(([name, value]) => `${name}=${value}`).join(' ')}`,
      'MaxSessions 64',
      'MaxStartups 64',
      'LogLevel ERROR',
      '',
    ].join('\n'),
  );
  const writeKnownHosts = () =>
    writeFileSync(join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${readFileSync(join(dir, 'host_key.pub'), 'utf8').split(' ').slice(0, 2).join(' ')}\n`);
  writeKnownHosts();
  writeFileSync(
    join(dir, 'ssh_config'),
    [
      `Host ${TEST_SSH_HOST}`,
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  User ${user}`,
      `  IdentityFile ${join(dir, 'id')}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${join(dir, 'known_hosts')}`,
      '  StrictHostKeyChecking yes',
      '  GlobalKnownHostsFile /dev/null',
      '',
    ].join('\n'),
  );

  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(sshd, ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    try {
      await accepting(port, 10_000);
    } catch (err) {
      child.kill('SIGKILL');
      throw new Error(`${(err as Error).message}: ${log.trim()}`, { cause: err });
    }
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    // Its sessions (forked children) would keep their connections: end them first, as a lost network would.
    spawnSync('pkill', ['-KILL', '-P', String(running.pid)], { stdio: 'ignore' });
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGTERM');
    });
  };
  await start();
  return {
    port,
    dir,
    sshCommand: `ssh -F ${join(dir, 'ssh_config')}`,
    folderUrl: (path) => `ssh://${TEST_SSH_HOST}${path}`,
    stop,
    start,
    async changeHostKey() {
      await stop();
      rmSync(join(dir, 'host_key'));
      rmSync(join(dir, 'host_key.pub'));
      keygen(join(dir, 'host_key'));
      await start();
    },
    async dispose() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
