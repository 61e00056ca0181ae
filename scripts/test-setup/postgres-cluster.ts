// A throw-away PostgreSQL cluster for the shared-memories tests and the bench: initdb in a
// temp folder, the server on 127.0.0.1 at a free port (its socket in that folder too), a
// superuser `deepdesk` with a password (scram over TCP, so a wrong password is refused),
// stopped and removed by dispose(). initdb refuses to run as root: as root the programs run
// as Debian's `postgres` user (else `nobody`) through runuser, the folder owned by it.

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** Set by the unit project's global set-up: the URL of its cluster's `postgres` database. */
export const TEST_POSTGRES_URL_ENV = 'DEEPDESK_TEST_POSTGRES_URL';
export const TEST_POSTGRES_USER = 'deepdesk';

export interface PostgresCluster {
  port: number;
  dir: string;
  password: string;
  /** `postgres://deepdesk:<password>@127.0.0.1:<port>/<database>`. */
  url(database?: string): string;
  /** Stops the server at once (connections drop); start() brings it back on the same port. */
  stop(): void;
  start(): void;
  dispose(): void;
}

export interface ClusterOptions {
  /** Durable writes (fsync); off by default: a test cluster trades durability for speed. */
  fsync?: boolean;
}

interface RunAs {
  prefix: string[];
  uid: number;
  gid: number;
}

/** Root cannot run initdb: the unprivileged user the programs run as, or null when not root. */
function runAs(): RunAs | null {
  if (process.getuid?.() !== 0) return null;
  for (const user of ['postgres', 'nobody']) {
    const uid = spawnSync('id', ['-u', user], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', user], { encoding: 'utf8' });
    if (uid.status === 0 && gid.status === 0) return { prefix: ['runuser', '-u', user, '--'], uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  }
  throw new Error('the PostgreSQL test cluster runs as an unprivileged user, and neither `postgres` nor `nobody` exists here');
}

function run(as: RunAs | null, command: string, args: string[], timeoutMs = 120_000): void {
  const [file, ...rest] = as ? [...as.prefix, command, ...args] : [command, ...args];
  const result = spawnSync(file!, rest, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs, cwd: '/' });
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? result.error.message : ''}`.trim();
    throw new Error(`${path.basename(command)} ${args[0] ?? ''} failed: ${output.split('\n').slice(-3).join(' | ')}`);
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}

/** initdb + start; throws a one-line reason when the cluster cannot start. */
export async function startPostgresCluster(binDir: string, options: ClusterOptions = {}): Promise<PostgresCluster> {
  const as = runAs();
  // The unprivileged user must reach the folder: under root's own TMPDIR it may not.
  const base = as ? '/tmp' : os.tmpdir();
  const dir = fs.mkdtempSync(path.join(base, 'deepdesk-pg-'));
  const data = path.join(dir, 'data');
  const password = randomBytes(12).toString('hex');
  const pwfile = path.join(dir, 'pw');
  fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (as) {
    fs.chownSync(dir, as.uid, as.gid);
    fs.chownSync(pwfile, as.uid, as.gid);
  }
  const port = await freePort();
  const settings = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dir}`,
    '-c max_connections=200',
    ...(options.fsync ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off']),
  ].join(' ');
  const pgCtl = path.join(binDir, 'pg_ctl');
  const start = () => run(as, pgCtl, ['start', '-D', data, '-l', path.join(dir, 'log'), '-w', '-t', '60', '-o', settings]);
  const stop = () => run(as, pgCtl, ['stop', '-D', data, '-m', 'immediate', '-w', '-t', '60']);
  try {
    run(as, path.join(binDir, 'initdb'), [
      '-D', data, '-U', TEST_POSTGRES_USER, `--pwfile=${pwfile}`, '--auth-host=scram-sha-256', '--auth-local=trust',
      '-E', 'UTF8', '--locale=C', '-N',
    ]);
    start();
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  fs.rmSync(pwfile, { force: true });
  let running = true;
  return {
    port,
    dir,
    password,
    url: (database = 'postgres') => `postgres://${TEST_POSTGRES_USER}:${password}@127.0.0.1:${port}/${database}`,
    stop() {
      if (running) stop();
      running = false;
    },
    start() {
      if (!running) start();
      running = true;
    },
    dispose() {
      try {
        if (running) stop();
      } finally {
        running = false;
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
