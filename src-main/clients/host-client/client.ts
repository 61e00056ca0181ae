// A client of the agent host (SPEC §16): connects to the data folder's host, starting it
// when none answers, so that the window, `run`, `acp` and `serve` all talk to one host.
// Requests are answered in any order; events come as the host sends them.

import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect as connectSocket, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureHostDir, type HostPathOptions, type HostPaths } from '../../app/host/paths';
import {
  AskFrame,
  encodeFrame,
  errorCode,
  ErrorFrame,
  EventFrame,
  LineReader,
  MAX_FRAME_BYTES,
  RefusedFrame,
  ResultFrame,
  WelcomeFrame,
  type HelloFrame,
} from '../../app/host/protocol';
import { HostRequestError } from '../../app/base/host-service';
import type { HostLaunch, LaunchedHost, StartLock } from './launch';

/** Starting a host (launch.ts, with node:child_process): loaded only when none answers, not on every command's connect. */
const loadLaunch = () => import('./launch');

export interface HostConnectOptions {
  dataDir: string;
  /** What this client is (`run`, `window`…), for the host's log. */
  client: string;
  /** This client's build (package-version.ts `buildId`); a host of another build is replaced once idle. '' : any host will do. */
  version: string;
  /** Start a host when none answers (default true). */
  start?: boolean;
  launch?: HostLaunch;
  env?: NodeJS.ProcessEnv;
  /** For connecting, starting included (default 20 s). */
  timeoutMs?: number;
  /** Called once when this connect has to wait for a host to start. */
  onStarting?: () => void;
  /** The host is of another build but was kept (it serves other clients, listens, or works): why, in one line. */
  onKeptOtherBuild?: (why: string) => void;
  /** Tests only: where the short socket folders are (paths.ts). */
  paths?: HostPathOptions;
}

/** The host went away (or the connection failed) before the request was answered. */
export class HostGoneError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'HostGoneError';
  }
}

/** No host answers for the data folder and this connect was not to start one. */
export class HostNotRunningError extends Error {
  constructor(dataDir: string) {
    super(`no agent host is running for ${dataDir}`);
    this.name = 'HostNotRunningError';
  }
}

const DEFAULT_TIMEOUT_MS = 20_000;
/** A token that changed under us (a host starting) is retried this often. */
const MAX_REFUSALS = 10;
const POLL_MS = 30;
const MAX_LAUNCHES = 3;

type Attempt = { kind: 'welcome'; client: HostClient } | { kind: 'absent' } | { kind: 'refused'; message: string };
type HelloAnswer = { type: 'welcome'; pid: number; version: string } | { type: 'refused'; message: string };

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

export class HostClient {
  private welcome: { pid: number; version: string } = { pid: 0, version: '' };
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private readonly eventListeners = new Set<(event: string, payload: unknown) => void>();
  private readonly closeListeners = new Set<(reason: string) => void>();
  private readonly answerers = new Map<string, (params: unknown) => Promise<unknown>>();
  private goneReason: string | undefined;
  private closedByUs = false;
  private answerHello: ((answer: HelloAnswer) => void) | undefined;
  private readonly ended: Promise<void>;

  private constructor(
    private readonly socket: Socket,
    /** This connect started the host. */
    readonly started: boolean,
  ) {
    const reader = new LineReader({
      frame: (value) => this.frame(value),
      malformed: () => {},
      oversize: (limit) => {
        this.gone(`the agent host sent a frame over ${limit / 1024 / 1024} MiB`);
        socket.destroy();
      },
    });
    socket.on('data', (chunk: Buffer) => reader.push(chunk));
    socket.on('error', (err) => this.gone(`the connection to the agent host failed: ${err.message}`));
    this.ended = new Promise((resolve) =>
      socket.once('close', () => {
        this.gone('the agent host closed the connection');
        resolve();
      }),
    );
  }

  /** Connects to the data folder's host, starting one when none answers (unless `start` is false). */
  static async connect(options: HostConnectOptions): Promise<HostClient> {
    const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const paths = ensureHostDir(options.dataDir, options.paths);
    let lock: StartLock | undefined;
    let launched: LaunchedHost | undefined;
    let launchEnd: { ok: boolean; how: string } | undefined;
    let launches = 0;
    let announced = false;
    let refusals = 0;
    let replacedOld = false;
    let problem = '';
    const starting = (): void => {
      if (!announced) options.onStarting?.();
      announced = true;
    };
    try {
      for (;;) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw await startFailure(paths, `did not answer within ${((options.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000).toFixed(1)} s${problem}`);
        const attempt = await HostClient.attempt(paths, options, launched !== undefined && launchEnd?.ok !== true, Math.min(remaining, 5000));
        if (attempt.kind === 'welcome') {
          // A host of another build (Deepdesk was updated or rebuilt while it idled) is asked to
          // stop when it has nothing going, once, and a host of this build started instead.
          if (options.version !== '' && attempt.client.hostVersion !== options.version && !replacedOld) {
            replacedOld = true;
            const stopped = await attempt.client.request('host.shutdown', {}).then(
              () => true,
              (err: unknown) => {
                options.onKeptOtherBuild?.(err instanceof Error ? err.message : String(err));
                return false;
              },
            );
            if (stopped) {
              await attempt.client.ended;
              continue;
            }
          }
          return attempt.client;
        }
        if (attempt.kind === 'refused') {
          problem = ` (it refused: ${attempt.message})`;
          if (++refusals > MAX_REFUSALS) throw new Error(`the agent host of ${options.dataDir} refused this client: ${attempt.message}`);
          await sleep(100);
          continue;
        }
        if (options.start === false) throw new HostNotRunningError(options.dataDir);
        starting();
        const launching = await loadLaunch();
        lock ??= new launching.StartLock(paths.lock);
        if (!lock.held) {
          // Taken: look once more before starting (the last holder's host may have just come up).
          if (lock.take()) continue;
          if (lock.removeIfStale()) continue;
          await sleep(POLL_MS);
          continue;
        }
        if (launchEnd !== undefined && (!launchEnd.ok || launches >= MAX_LAUNCHES)) throw await startFailure(paths, `could not start: ${launchEnd.how}`);
        if (launched === undefined || launchEnd !== undefined) {
          // A host that exited 0 before answering found another one running: start again if that one is gone too.
          launchEnd = undefined;
          launches++;
          const host = launching.launchHost(options.launch ?? launching.defaultHostLaunch(options.dataDir, options.env ?? process.env), paths);
          launched = host;
          void host.ended.then((end) => {
            if (launched === host) launchEnd = end;
          });
        }
        await sleep(POLL_MS);
      }
    } finally {
      lock?.release();
    }
  }

  /** One try: connect and say hello. */
  private static async attempt(paths: HostPaths, options: HostConnectOptions, started: boolean, timeoutMs: number): Promise<Attempt> {
    const socket = await openSocket(paths.socket);
    if (socket === 'absent') return { kind: 'absent' };
    if (socket === 'busy') return { kind: 'refused', message: 'its socket is busy' };
    let token: string;
    try {
      token = readFileSync(paths.token, 'utf8').trim();
    } catch {
      socket.destroy();
      return { kind: 'refused', message: 'its token is not written yet' };
    }
    const client = new HostClient(socket, started);
    const answer = await client.hello({ type: 'hello', token, client: options.client, version: options.version }, timeoutMs);
    if (answer.type === 'welcome') {
      client.welcome = { pid: answer.pid, version: answer.version };
      return { kind: 'welcome', client };
    }
    client.closedByUs = true;
    socket.destroy();
    return { kind: 'refused', message: answer.message };
  }

  /** The host's process id, from its welcome. */
  get hostPid(): number {
    return this.welcome.pid;
  }

  /** The host's version, from its welcome. */
  get hostVersion(): string {
    return this.welcome.version;
  }

  /** Sends a request; rejects with HostRequestError (the host's answer) or HostGoneError. */
  request<T>(method: string, params?: unknown, signal?: AbortSignal): Promise<T> {
    if (this.goneReason !== undefined) return Promise.reject(new HostGoneError(this.goneReason));
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    let text: string;
    const id = this.nextId++;
    try {
      text = encodeFrame(params === undefined ? { id, method } : { id, method, params });
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    if (Buffer.byteLength(text) > MAX_FRAME_BYTES) return Promise.reject(new HostRequestError(`the request is over ${MAX_FRAME_BYTES / 1024 / 1024} MiB`, 'bad_request'));
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        this.pending.delete(id);
        reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        resolve: (value) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(value as T);
        },
        reject: (err) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
      });
      this.socket.write(text);
    });
  }

  onEvent(listener: (event: string, payload: unknown) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /** Answers the host's asks of `method` (protocol.ts AskFrame); what it is given is the host's: check it. */
  answer(method: string, handler: (params: unknown) => Promise<unknown>): void {
    this.answerers.set(method, handler);
  }

  /** Called once when the host goes away or the connection fails (not when this client closes). */
  onClose(listener: (reason: string) => void): () => void {
    if (this.goneReason !== undefined && !this.closedByUs) {
      const reason = this.goneReason;
      queueMicrotask(() => listener(reason));
      return () => {};
    }
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  /** Leaves the host (it goes on); pending requests reject with HostGoneError. */
  async close(): Promise<void> {
    if (this.goneReason === undefined) {
      this.closedByUs = true;
      this.gone('the client closed the connection');
    }
    // Once our last bytes are out the connection is done: the host's own close is not waited
    // for (a busy host, or one not yet scheduled on a loaded machine, would hold this command's exit).
    this.socket.end(() => this.socket.destroy());
    const timer = setTimeout(() => this.socket.destroy(), 1000);
    timer.unref();
    await this.ended;
    clearTimeout(timer);
  }

  private hello(frame: HelloFrame, timeoutMs: number): Promise<HelloAnswer> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => settle({ type: 'refused', message: `no answer to hello within ${(timeoutMs / 1000).toFixed(1)} s` }), timeoutMs);
      timer.unref();
      const settle = (answer: HelloAnswer): void => {
        clearTimeout(timer);
        this.answerHello = undefined;
        resolve(answer);
      };
      this.answerHello = settle;
      this.socket.write(encodeFrame(frame));
    });
  }

  private frame(value: unknown): void {
    if (this.answerHello) {
      const welcome = WelcomeFrame.safeParse(value);
      if (welcome.success) return this.answerHello(welcome.data);
      const refused = RefusedFrame.safeParse(value);
      return this.answerHello(refused.success ? refused.data : { type: 'refused', message: 'it answered the hello with something else' });
    }
    // Each frame is checked against the one schema its keys can match, in the same order as
    // before: a check that could only fail is skipped (a failed zod parse builds its issues).
    const has = (key: string, type: 'string' | 'number' | 'object'): boolean => typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[key] === type;
    const event = has('event', 'string') ? EventFrame.safeParse(value) : undefined;
    if (event?.success) {
      for (const listener of [...this.eventListeners]) {
        try {
          listener(event.data.event, event.data.payload);
        } catch {
          // A listener's failure is its own.
        }
      }
      return;
    }
    const ask = has('ask', 'number') ? AskFrame.safeParse(value) : undefined;
    if (ask?.success) {
      void this.answerAsk(ask.data);
      return;
    }
    if (!has('id', 'number')) return;
    const error = has('error', 'object') ? ErrorFrame.safeParse(value) : undefined;
    if (error?.success) {
      this.settle(error.data.id)?.reject(new HostRequestError(error.data.error.message, errorCode(error.data.error.code)));
      return;
    }
    const result = ResultFrame.safeParse(value);
    if (result.success) this.settle(result.data.id)?.resolve(result.data.result);
  }

  private async answerAsk(ask: AskFrame): Promise<void> {
    const handler = this.answerers.get(ask.method);
    let frame: object;
    try {
      if (handler === undefined) throw new Error(`this client does not answer ${ask.method}`);
      frame = { answer: ask.ask, result: (await handler(ask.params)) ?? null };
    } catch (err) {
      frame = { answer: ask.ask, error: { message: err instanceof Error ? err.message : String(err) } };
    }
    if (this.goneReason !== undefined) return;
    try {
      this.socket.write(encodeFrame(frame));
    } catch {
      this.socket.write(encodeFrame({ answer: ask.ask, error: { message: 'the answer could not be encoded' } }));
    }
  }

  private settle(id: number): Pending | undefined {
    const pending = this.pending.get(id);
    this.pending.delete(id);
    return pending;
  }

  private gone(reason: string): void {
    if (this.goneReason !== undefined) return;
    this.goneReason = reason;
    this.answerHello?.({ type: 'refused', message: reason });
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(new HostGoneError(reason));
    if (this.closedByUs) return;
    for (const listener of [...this.closeListeners]) {
      try {
        listener(reason);
      } catch {
        // A listener's failure is its own.
      }
    }
    this.closeListeners.clear();
  }
}

/**
 * A connected socket, or why not: nothing listens (`absent`: no socket, or a host that died or
 * is going away — its listener refuses or resets the connection), or its queue is full (`busy`).
 */
async function openSocket(path: string): Promise<Socket | 'absent' | 'busy'> {
  const socket = connectSocket(path);
  try {
    await once(socket, 'connect');
    return socket;
  } catch (err) {
    socket.destroy();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'ECONNRESET') return 'absent';
    if (code === 'EAGAIN') return 'busy';
    throw err;
  }
}

async function startFailure(paths: HostPaths, what: string): Promise<Error> {
  const tail = (await loadLaunch()).logTail(paths.log, 20);
  return new Error(`the agent host ${what}${tail === '' ? '' : `; the end of ${paths.log}:\n${tail}`}`);
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('the request was aborted', 'AbortError');
}
