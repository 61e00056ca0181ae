// The agent host's socket (SPEC §16): a Unix socket in a folder only the person can open,
// a token read from a file beside it (so that what can open the folder can connect, and
// nothing that merely guesses a path can), request/response frames to the service, events
// from it, and the host's own end: idle, told to stop, or its socket gone.

import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, linkSync, rmSync, statSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { ensureHostDir, type HostPathOptions, type HostPaths } from './paths';
import { writePrivateFile } from './private-file';
import { AnswerFrame, encodeFrame, errorResponse, HelloFrame, LineReader, MAX_BUFFERED_BYTES, RequestFrame, type ResponseFrame } from './protocol';
import { HostRequestError, type HostConnection, type HostService } from '../base/host-service';

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
        log(`the service did not close cleanly: ${messageOf(err)}`);
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

interface PeerOptions {
  token: string;
  version: string;
  log: (line: string) => void;
  helloTimeoutMs: number;
  handle: (peer: Peer, method: string, params: unknown) => Promise<unknown>;
  onWelcome: () => void;
}

/** One connection: unauthenticated until its hello, then a HostConnection of the service. */
class Peer implements HostConnection {
  client = '?';
  authenticated = false;
  private gone = false;
  private ending = false;
  private readonly listeners: (() => void)[] = [];
  private readonly asked = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
  private nextAsk = 1;
  private readonly helloTimer: NodeJS.Timeout;
  private readonly reader: LineReader;

  constructor(
    readonly id: string,
    private readonly socket: Socket,
    private readonly options: PeerOptions,
  ) {
    this.reader = new LineReader({
      frame: (value) => this.frame(value),
      malformed: () => (this.authenticated ? this.reply(errorResponse(-1, 'malformed JSON', 'bad_request')) : this.refuse('expected a hello frame, got malformed JSON')),
      oversize: (limit) => this.drop(`a frame over ${limit / 1024 / 1024} MiB`),
    });
    this.helloTimer = setTimeout(() => this.refuse(`no hello within ${options.helloTimeoutMs / 1000} s`), options.helloTimeoutMs);
    this.helloTimer.unref();
    socket.on('data', (chunk: Buffer) => this.reader.push(chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.closedNow());
  }

  get closed(): boolean {
    return this.gone || this.ending;
  }

  send(event: string, payload: unknown): void {
    if (!this.authenticated || this.closed) return;
    let text: string;
    try {
      text = encodeFrame({ event, payload });
    } catch (err) {
      this.options.log(`${this.id}: event ${event} could not be encoded: ${messageOf(err)}`);
      return;
    }
    this.write(text);
  }

  ask(method: string, params?: unknown): Promise<unknown> {
    if (!this.authenticated || this.closed) return Promise.reject(new Error(`${this.client} is not connected`));
    const id = this.nextAsk++;
    return new Promise((resolve, reject) => {
      this.asked.set(id, { resolve, reject });
      this.write(encodeFrame(params === undefined ? { ask: id, method } : { ask: id, method, params }));
    });
  }

  onClose(listener: () => void): void {
    if (this.gone) queueMicrotask(listener);
    else this.listeners.push(listener);
  }

  /** Ends the connection gracefully (what was written is still delivered). */
  end(): void {
    if (this.gone || this.ending) return;
    this.ending = true;
    this.reader.stop();
    this.socket.end();
    setTimeout(() => this.socket.destroy(), 1000).unref();
  }

  private frame(value: unknown): void {
    if (!this.authenticated) {
      this.hello(value);
      return;
    }
    if (typeof value === 'object' && value !== null && 'answer' in value) {
      const answer = AnswerFrame.safeParse(value);
      const asked = answer.success ? this.asked.get(answer.data.answer) : undefined;
      if (!answer.success || asked === undefined) return this.drop('an answer to nothing it was asked');
      this.asked.delete(answer.data.answer);
      if (answer.data.error !== undefined) asked.reject(new Error(answer.data.error.message));
      else asked.resolve(answer.data.result);
      return;
    }
    const request = RequestFrame.safeParse(value);
    if (!request.success) {
      const id = typeof value === 'object' && value !== null && Number.isInteger((value as { id?: unknown }).id) ? (value as { id: number }).id : -1;
      this.reply(errorResponse(id, 'expected a request {id, method, params}', 'bad_request'));
      return;
    }
    const { id, method, params } = request.data;
    void this.answer(id, method, params);
  }

  private async answer(id: number, method: string, params: unknown): Promise<void> {
    let response: ResponseFrame;
    try {
      const result = await this.options.handle(this, method, params);
      response = { id, result: result ?? null };
    } catch (err) {
      response = err instanceof HostRequestError ? errorResponse(id, err.message, err.code) : errorResponse(id, messageOf(err), 'failed');
    }
    this.reply(response);
  }

  private hello(value: unknown): void {
    const hello = HelloFrame.safeParse(value);
    if (!hello.success) {
      this.refuse('expected a hello frame first');
      return;
    }
    if (!sameSecret(hello.data.token, this.options.token)) {
      this.refuse('wrong token');
      return;
    }
    clearTimeout(this.helloTimer);
    this.authenticated = true;
    this.client = hello.data.client;
    this.options.log(`${this.id}: ${hello.data.client} ${hello.data.version} attached`);
    this.write(encodeFrame({ type: 'welcome', pid: process.pid, version: this.options.version }));
    this.options.onWelcome();
  }

  private refuse(message: string): void {
    if (this.closed) return;
    clearTimeout(this.helloTimer);
    this.options.log(`${this.id}: refused: ${message}`);
    this.write(encodeFrame({ type: 'refused', message }));
    this.end();
  }

  private drop(why: string): void {
    if (this.closed) return;
    this.options.log(`${this.id} (${this.client}): dropped: ${why}`);
    if (this.authenticated) this.write(encodeFrame(errorResponse(-1, `connection dropped: ${why}`, 'bad_request')));
    this.end();
  }

  private reply(frame: ResponseFrame): void {
    let text: string;
    try {
      text = encodeFrame(frame);
    } catch (err) {
      text = encodeFrame(errorResponse(frame.id, `the answer could not be encoded: ${messageOf(err)}`, 'failed'));
    }
    this.write(text);
  }

  private write(text: string): void {
    if (this.gone || this.ending || !this.socket.writable) return;
    if (this.socket.writableLength + Buffer.byteLength(text) > MAX_BUFFERED_BYTES) {
      this.options.log(`${this.id} (${this.client}): dropped: fell over ${MAX_BUFFERED_BYTES / 1024 / 1024} MiB behind`);
      this.socket.destroy();
      return;
    }
    this.socket.write(text);
  }

  private closedNow(): void {
    if (this.gone) return;
    this.gone = true;
    clearTimeout(this.helloTimer);
    this.reader.stop();
    for (const asked of this.asked.values()) asked.reject(new Error(`${this.client} went away before answering`));
    this.asked.clear();
    if (!this.authenticated && !this.ending) this.options.log(`${this.id}: closed before its hello`);
    else if (this.authenticated) this.options.log(`${this.id}: ${this.client} detached`);
    for (const listener of this.listeners.splice(0)) {
      try {
        listener();
      } catch (err) {
        this.options.log(`${this.id}: a close listener failed: ${messageOf(err)}`);
      }
    }
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
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

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    // A pipe is bound synchronously inside listen(): the umask covers exactly that.
    const umask = process.umask(0o177);
    try {
      server.listen(path);
    } finally {
      process.umask(umask);
    }
  });
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

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
