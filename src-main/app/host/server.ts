// The agent host's socket (SPEC §16): a Unix socket in a folder only the person can open,
// a token read from a file beside it (so that what can open the folder can connect, and
// nothing that merely guesses a path can), request/response frames to the service, events
// from it, and the host's own end: idle, told to stop, or its socket gone.

import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, rmSync, statSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { ensureHostDir, type HostPathOptions, type HostPaths } from './paths';
import { Peer } from './peer';
import { writePrivateFile } from './private-file';
import { HostRequestError, type HostService } from '../base/host-service';

export interface HostServerOptions {
  dataDir: string;
  service: HostService;
  /** The host ends after this long with no client attached and nothing going. */
  idleMs: number;
  version: string;
  log?: (line: string) => void;
  /** Tests only: how long a connection has to say hello (5 s), how often the socket file is checked (2 s). */
  helloTimeoutMs?: number;
  watchMs?: number;
  /** Tests only: where the short socket folders are (paths.ts). */
  paths?: HostPathOptions;
}

export interface HostServer {
  paths: HostPaths;
  /** Stops the host: its socket, its clients, then its service. */
  close(): Promise<void>;
  /** Settles once the host has stopped, whatever stopped it. */
  closed: Promise<void>;
}

export class HostAlreadyRunningError extends Error {
  constructor(socket: string) {
    super(`an agent host is already running on ${socket}`);
    this.name = 'HostAlreadyRunningError';
  }
}

const HELLO_TIMEOUT_MS = 5000;
const WATCH_MS = 2000;

export async function startHostServer(options: HostServerOptions): Promise<HostServer> {
  const { service, version } = options;
  const log = options.log ?? (() => {});
  const paths = ensureHostDir(options.dataDir, options.paths);
  const token = randomBytes(32).toString('hex');
  const server = createServer({ allowHalfOpen: false });
  await bind(server, paths);
  // A pipe is no file: its host is watched by its token file (written below) instead; a
  // socket outside the data folder is watched with the token (deleting the folder stops it).
  const watched = paths.pipe ? [paths.token] : paths.socketDir !== undefined ? [paths.socket, paths.token] : [paths.socket];
  const ownSocket = (): boolean => !paths.pipe && fileId(paths.socket) === socketId;
  const socketId = paths.pipe ? undefined : fileId(paths.socket);
  // Written once the socket is ours, never before: a host that lost the race to bind must
  // not replace the token of the one that won. A client that reads the previous token in
  // between is refused and tries again.
  try {
    writePrivateFile(paths.token, token);
  } catch (err) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (ownSocket()) rmSync(paths.socket, { force: true });
    throw err;
  }
  const watchedIds = watched.map(fileId);
  const started = Date.now();

  const connections = new Map<string, Peer>();
  let counter = 0;
  let closing: Promise<void> | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));

  const isBusy = (): boolean => {
    try {
      return service.busy();
    } catch {
      return true;
    }
  };

  let quietSince: number | undefined = Date.now();
  const checkIdle = (): void => {
    if (closing) return;
    if (authenticatedCount() > 0 || isBusy()) {
      quietSince = undefined;
      return;
    }
    quietSince ??= Date.now();
    if (Date.now() - quietSince >= options.idleMs) void close(`idle for ${Math.round(options.idleMs / 100) / 10} s with no client`);
  };
  const idleTimer = setInterval(checkIdle, Math.min(1000, Math.max(25, Math.floor(options.idleMs / 4))));
  idleTimer.unref();

  // A host whose socket was removed or replaced (its data folder deleted, another host bound)
  // is unreachable: it must not linger.
  const watchTimer = setInterval(() => {
    watched.forEach((file, i) => {
      const now = fileId(file);
      const name = file === paths.token ? 'token' : 'socket';
      if (now !== watchedIds[i]) void close(now === undefined ? `its ${name} file was removed` : `its ${name} file was replaced`);
    });
  }, options.watchMs ?? WATCH_MS);
  watchTimer.unref();

  const authenticatedCount = (): number => [...connections.values()].filter((p) => p.authenticated).length;

  const close = (reason = 'asked to stop'): Promise<void> => {
    closing ??= (async () => {
      log(`stopping: ${reason}`);
      clearInterval(idleTimer);
      clearInterval(watchTimer);
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const peer of connections.values()) peer.end();
      await stopped;
      try {
        await service.close();
      } catch (err) {
        log(`the service did not close cleanly: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (ownSocket()) rmSync(paths.socket, { force: true });
      log('stopped');
      resolveClosed();
    })();
    return closing;
  };

  const builtIn = async (peer: Peer, method: string, params: unknown): Promise<unknown> => {
    if (method === 'host.ping') return { pid: process.pid, version, uptimeMs: Date.now() - started, connections: authenticatedCount() };
    // host.shutdown
    const force = typeof params === 'object' && params !== null && (params as { force?: unknown }).force === true;
    if (!force && isBusy()) throw new HostRequestError('work is going on in the host (runs, approvals or an Agent Protocol listener); stop it first or shut down with force', 'failed');
    // Other clients are served by this host (a window, `serve`, `host --listen`): it does not stop under them.
    const others = [...connections.values()].filter((p) => p.authenticated && p !== peer).length;
    if (!force && others > 0) throw new HostRequestError(`${others} other client${others === 1 ? ' is' : 's are'} attached to the host; shut down with force to stop it under them`, 'failed');
    // After the reply: it is written as soon as this resolves, before immediates run.
    setImmediate(() => void close(`shut down by ${peer.client}`));
    return { ok: true };
  };

  const handle = (peer: Peer, method: string, params: unknown): Promise<unknown> => {
    if (method === 'host.ping' || method === 'host.shutdown') return builtIn(peer, method, params);
    return service.handle(peer, method, params);
  };

  server.on('connection', (socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    const id = `c${++counter}`;
    const peer = new Peer(id, socket, {
      token,
      version,
      log,
      helloTimeoutMs: options.helloTimeoutMs ?? HELLO_TIMEOUT_MS,
      handle,
      onWelcome: () => {
        quietSince = undefined;
      },
    });
    connections.set(id, peer);
    peer.onClose(() => {
      connections.delete(id);
      checkIdle();
    });
  });
  server.on('error', (err) => log(`socket error: ${err.message}`));

  return { paths, close: () => close(), closed };
}

/**
 * Binds the socket, created 0600 (never a moment open to others), and publishes it at
 * `socket`, replacing a dead host's socket once. It is bound under a name of its own and
 * hard-linked into place because Node unlinks a Unix socket's bound path when it closes: a
 * host whose socket was replaced by a newer host's must not remove the newer one's.
 */
async function bind(server: Server, paths: HostPaths): Promise<void> {
  if (paths.pipe) {
    // Windows: the pipe's name is taken by one host at a time (a second bind fails).
    try {
      await listen(server, paths.socket);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new HostAlreadyRunningError(paths.socket);
      throw err;
    }
    return;
  }
  // Bound beside the socket and linked into place (a link never crosses file systems).
  const temp = join(paths.socketDir ?? paths.dir, `hs-${randomBytes(3).toString('hex')}`);
  await listen(server, temp);
  try {
    chmodSync(temp, 0o600);
    try {
      linkSync(temp, paths.socket);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (await socketAnswers(paths.socket)) throw new HostAlreadyRunningError(paths.socket);
      rmSync(paths.socket, { force: true });
      try {
        linkSync(temp, paths.socket);
      } catch (again) {
        if ((again as NodeJS.ErrnoException).code === 'EEXIST') throw new HostAlreadyRunningError(paths.socket);
        throw again;
      }
    }
  } catch (err) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw err;
  } finally {
    rmSync(temp, { force: true });
  }
}

async function listen(server: Server, path: string): Promise<void> {
  const listening = once(server, 'listening');
  // A pipe is bound synchronously inside listen(): the umask covers exactly that.
  const umask = process.umask(0o177);
  try {
    server.listen(path);
  } finally {
    process.umask(umask);
  }
  await listening;
}

/** Whether something accepts connections on the socket (a refused or missing one is a dead host's). */
export function socketAnswers(path: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(true);
    }, 2000);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(true);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOENT') resolve(false);
      else if (err.code === 'EAGAIN') resolve(true);
      else reject(err);
    });
  });
}

/** The file's identity (device and inode), or undefined when it is gone. */
function fileId(path: string): string | undefined {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}
