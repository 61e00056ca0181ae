// The window's transport under `deepdesk serve`: one WebSocket to the page's own origin
// (the token goes as a subprotocol, see serve-token.ts), request ids, timeouts and reconnection.
// Reconnecting is bounded: after `giveUpAfter` failed attempts in a row (the server stopped, or
// runs at another address now) the status is `gone` and it stops until `reconnect()`.

import type { EventName, EventPayload, MethodName, Params, Result } from '../../../src-main/app/contract';
import { decodeResponse } from './decode';
import { TransportError } from './errors';
import { createEventHub } from './event-hub';
import { takeServeToken } from './serve-token';
import type { ClientTransport, ConnectionStatus } from './types';

/** The part of the browser WebSocket this client uses (the `ws` package fits it too). */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: never) => void) | null;
  onclose: ((event: never) => void) | null;
  onerror: ((event: never) => void) | null;
  onmessage: ((event: never) => void) | null;
}
export type WebSocketConstructor = new (url: string, protocols?: string[]) => WebSocketLike;

/** What the web host expects: its protocol, and the token beside it (host/web/security.ts). */
export function serveProtocols(token: string | null): string[] {
  return token ? ['deepdesk', `deepdesk.token.${token}`] : ['deepdesk'];
}

/** Methods that may legitimately take long (dialogs, network probes, runs): no timeout. */
export const LONG_METHODS: ReadonlySet<MethodName> = new Set<MethodName>([
  'app.pickFolder',
  'app.openFolder',
  'app.openRemoteFolder',
  'settings.testConnection',
  'settings.detectLocalServers',
  'threads.send',
  'threads.startGoal',
  'threads.stop',
  'threads.sendQueuedNow',
  'files.search',
  // Minutes: npm fetching an agent, git cloning a marketplace, a folder going up to a provider's sandbox.
  'externalAgents.install',
  'plugins.addMarketplace',
  'plugins.install',
  'sandboxes.runIn',
]);

export interface WebSocketTransportOptions {
  /** Default: ws(s)://<location.host>/ws. */
  url?: string;
  /** Default: globalThis.WebSocket. Tests pass a `ws` subclass that adds Origin and Cookie. */
  WebSocketImpl?: WebSocketConstructor;
  /** The serve token, read at every (re)connect; default: the one this tab keeps (takeServeToken). */
  token?: () => string | null;
  /** Timeout of a short call, from when it is sent. Default 30 s. */
  callTimeoutMs?: number;
  /** Delay before reconnect attempt `attempt` (0-based). Default: 250 ms doubling to 5 s, with jitter. */
  reconnectDelay?: (attempt: number) => number;
  /** Failed reconnect attempts in a row before the status is `gone`. Default 7 (some 18 s with the default delays). */
  giveUpAfter?: number;
}

interface Pending {
  method: MethodName;
  /** The frame as sent (with its `once` key), and as sent again after a lost connection. */
  text: string;
  replayText: string;
  sent: boolean;
  timer: ReturnType<typeof setTimeout> | undefined;
  resolve: (value: unknown) => void;
  reject: (error: TransportError) => void;
}

const OPEN = 1;
/** Every call's error once reconnecting stopped: one line, so the window shows it once. */
const SERVER_GONE = 'Deepdesk’s server is gone (it stopped, or runs at another address now); nothing was sent';
/** The web host closes the connection on bigger frames (its ws maxPayload). */
export const MAX_FRAME_BYTES = 32 * 1024 * 1024;

function frameTooLarge(text: string): boolean {
  if (text.length * 3 <= MAX_FRAME_BYTES) return false;
  return new TextEncoder().encode(text).length > MAX_FRAME_BYTES;
}

function randomKey(): string {
  const bytes = new Uint8Array(12);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function defaultDelay(attempt: number): number {
  return Math.min(5000, 250 * 2 ** attempt) * (0.8 + Math.random() * 0.4);
}

function defaultUrl(): string {
  const { protocol, host } = globalThis.location;
  return `${protocol === 'https:' ? 'wss' : 'ws'}://${host}/ws`;
}

export function createWebSocketTransport(options: WebSocketTransportOptions = {}): ClientTransport {
  const url = options.url ?? defaultUrl();
  const token = options.token ?? (() => takeServeToken());
  const Impl = options.WebSocketImpl ?? (globalThis.WebSocket as unknown as WebSocketConstructor);
  const callTimeoutMs = options.callTimeoutMs ?? 30_000;
  /** How long a call waits for a connection before it fails. */
  const connectWaitMs = 15_000;
  const reconnectDelay = options.reconnectDelay ?? defaultDelay;
  const giveUpAfter = options.giveUpAfter ?? 7;

  const hub = createEventHub();
  const pending = new Map<number, Pending>();
  const statusListeners = new Set<(status: ConnectionStatus) => void>();
  let nextId = 1;
  // Each call's `once` key: this tab's own prefix and the call's id (see once-answers.ts).
  const tabKey = randomKey();
  let socket: WebSocketLike | undefined;
  let status: ConnectionStatus = 'connecting';
  let attempt = 0;
  let reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  const setStatus = (next: ConnectionStatus): void => {
    if (status === next) return;
    status = next;
    for (const listener of [...statusListeners]) listener(next);
  };

  const settle = (id: number): Pending | undefined => {
    const entry = pending.get(id);
    if (entry === undefined) return undefined;
    pending.delete(id);
    clearTimeout(entry.timer);
    return entry;
  };

  const fail = (id: number, error: TransportError): void => settle(id)?.reject(error);

  const transmit = (id: number, entry: Pending): void => {
    clearTimeout(entry.timer);
    entry.timer = undefined;
    try {
      socket?.send(entry.text);
    } catch (err) {
      fail(id, new TransportError(`could not send ${entry.method}: ${err instanceof Error ? err.message : String(err)}`, 'disconnected'));
      return;
    }
    entry.sent = true;
    if (!LONG_METHODS.has(entry.method)) {
      entry.timer = setTimeout(() => fail(id, new TransportError(`${entry.method} got no answer within ${Math.round(callTimeoutMs / 1000)} s`, 'timeout')), callTimeoutMs);
    }
  };

  const onMessage = (data: unknown): void => {
    if (typeof data !== 'string') return;
    let frame: unknown;
    try {
      frame = JSON.parse(data);
    } catch {
      console.warn('deepdesk: dropped a frame that is not JSON');
      return;
    }
    if (typeof frame !== 'object' || frame === null) return;
    if ('event' in frame) {
      hub.dispatch(frame);
      return;
    }
    const id = (frame as { id?: unknown }).id;
    if (typeof id !== 'number') return;
    if (id === -1) {
      console.warn('deepdesk: the server refused a frame', (frame as { error?: unknown }).error);
      return;
    }
    const entry = settle(id);
    if (entry === undefined) return;
    const outcome = decodeResponse(entry.method, frame);
    if (outcome instanceof TransportError) entry.reject(outcome);
    else entry.resolve(outcome);
  };

  const connect = (): void => {
    reconnectTimer = undefined;
    setStatus('connecting');
    let ws: WebSocketLike;
    try {
      ws = new Impl(url, serveProtocols(token()));
    } catch (err) {
      console.warn('deepdesk: could not open the WebSocket', err);
      scheduleReconnect();
      return;
    }
    socket = ws;
    ws.onopen = () => {
      if (socket !== ws) return;
      attempt = 0;
      setStatus('open');
      for (const [id, entry] of pending) if (!entry.sent) transmit(id, entry);
    };
    ws.onmessage = (event: { data: unknown }) => {
      if (socket === ws) onMessage(event.data);
    };
    ws.onerror = () => undefined; // a close event follows
    ws.onclose = () => {
      if (socket !== ws) return;
      socket = undefined;
      // A call sent but not answered goes again on the next connection, marked as a replay:
      // the host answers it with its first answer, or says it cannot know (it was restarted).
      for (const [id, entry] of pending) {
        if (!entry.sent) continue;
        clearTimeout(entry.timer);
        entry.sent = false;
        entry.text = entry.replayText;
        entry.timer = setTimeout(() => fail(id, new TransportError(`the connection to Deepdesk was lost before ${entry.method} was answered`, 'disconnected')), connectWaitMs);
      }
      if (stopped) return;
      setStatus('closed');
      scheduleReconnect();
    };
  };

  const scheduleReconnect = (): void => {
    if (stopped || reconnectTimer !== undefined) return;
    // Without the key (this tab was opened on the bare address) no attempt can succeed: say so now.
    if (attempt >= giveUpAfter || token() === null) {
      for (const [id, entry] of [...pending]) {
        fail(id, new TransportError(entry.text === entry.replayText ? `the connection to Deepdesk was lost before ${entry.method} was answered` : SERVER_GONE, 'disconnected'));
      }
      setStatus('gone');
      return;
    }
    const delay = reconnectDelay(attempt);
    attempt += 1;
    reconnectTimer = setTimeout(connect, delay);
  };

  connect();

  return {
    kind: 'web',
    get status() {
      return status;
    },
    call<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>> {
      if (stopped) return Promise.reject(new TransportError('the transport is closed', 'disconnected'));
      if (status === 'gone') return Promise.reject(new TransportError(SERVER_GONE, 'disconnected'));
      const id = nextId++;
      const once = `${tabKey}:${id}`;
      const text = JSON.stringify({ id, method, params, once });
      // Sending it would make the server drop the connection, and every other call with it.
      if (frameTooLarge(text)) return Promise.reject(new TransportError(`${method} is too large to send (over ${MAX_FRAME_BYTES / (1024 * 1024)} MB)`, 'bad_request'));
      return new Promise<Result<M>>((resolve, reject) => {
        const entry: Pending = {
          method,
          text,
          replayText: `${text.slice(0, -1)},"replay":true}`,
          sent: false,
          timer: undefined,
          resolve: resolve as (value: unknown) => void,
          reject,
        };
        pending.set(id, entry);
        if (socket !== undefined && socket.readyState === OPEN) {
          transmit(id, entry);
        } else {
          entry.timer = setTimeout(() => fail(id, new TransportError(`not connected to Deepdesk (${method} was not sent)`, 'disconnected')), connectWaitMs);
        }
      });
    },
    on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
      return hub.on(event, listener);
    },
    onStatus(listener) {
      statusListeners.add(listener);
      return () => {
        statusListeners.delete(listener);
      };
    },
    reconnect() {
      if (stopped || status === 'open' || status === 'connecting') return;
      clearTimeout(reconnectTimer);
      attempt = 0;
      connect();
    },
    close() {
      if (stopped) return;
      stopped = true;
      clearTimeout(reconnectTimer);
      const current = socket;
      socket = undefined;
      current?.close(1000, 'closed');
      for (const id of [...pending.keys()]) fail(id, new TransportError('the transport is closed', 'disconnected'));
      setStatus('closed');
    },
  };
}
