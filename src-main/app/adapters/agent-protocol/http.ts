// The Agent Protocol's HTTP layer (SPEC §19): routes, the API key, CORS, JSON bodies and
// server-sent events. It knows requests and replies; the routes (threads, runs, store…) know
// the host's services. A malformed request is answered with an error and disturbs nothing else.

import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { isLoopback } from '../../contract/listen-address';
import { sameSecret } from '../../host/peer';
import { jsonChunks } from '../../../core/text/json-chunks';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** An error answered as the reference server does: `{"detail": message}` with `status`. */
export class ProtocolHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ProtocolHttpError';
  }
}

export interface ProtocolRequest {
  method: HttpMethod;
  /** The path without its query, e.g. `/threads/abc/runs`. */
  path: string;
  /** The route's `:name` parts, decoded. */
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  /** The parsed JSON body (undefined when there is none). Unchecked: routes check it with zod. */
  body: unknown;
  headers: IncomingHttpHeaders;
  /** Aborted when the client goes away before the reply ends (`on_disconnect`). */
  disconnected: AbortSignal;
}

/** One server-sent event: `data` sent as JSON, or `json`, its JSON already written. */
export type SseEvent = { id?: string; event: string } & ({ data: unknown; json?: undefined } | { json: string; data?: undefined });

export type ProtocolReply =
  | { kind: 'json'; status?: number; body: unknown; headers?: Readonly<Record<string, string>> }
  | { kind: 'empty'; status?: number; headers?: Readonly<Record<string, string>> }
  | { kind: 'sse'; status?: number; headers?: Readonly<Record<string, string>>; events: AsyncIterable<SseEvent> }
  /** `answer` as JSON once it settles; until then a newline each second, so no client's headers or idle timeout ends the wait. */
  | { kind: 'wait'; headers?: Readonly<Record<string, string>>; answer: Promise<unknown> };

export interface Route {
  method: HttpMethod;
  /** `/threads/:thread_id/runs/:run_id` */
  pattern: string;
  /** Answered without the API key (`/ok`, `/info`). */
  open?: boolean;
  /** Answers server-sent events: counted against the server's streams before it is handled. */
  streams?: boolean;
  handle(request: ProtocolRequest): Promise<ProtocolReply>;
}

export const json = (body: unknown, status = 200, headers?: Record<string, string>): ProtocolReply => ({ kind: 'json', status, body, ...(headers ? { headers } : {}) });

export interface ProtocolServerOptions {
  host: string;
  port: number;
  /** The key `x-api-key` must carry (read at each request: a rotation applies at once). */
  key: () => string;
  /** Origins allowed to call from a browser (exact `scheme://host[:port]`); none by default. */
  corsOrigins: readonly string[];
  routes: readonly Route[];
  /** Any `Host` header is answered (the person allowed other computers); else a loopback server answers only its own names. */
  allowRemote?: boolean;
  /** Tests only: smaller limits. */
  limits?: Partial<ServerLimits>;
  log?: (line: string) => void;
}

/** What one server holds at most, and how long a client may take to send a request. */
export interface ServerLimits {
  /** Open connections (`server.maxConnections`): past them a new one is closed at once. */
  connections: number;
  /** SSE replies at once, every run's together (each run also has FOLLOWERS_PER_RUN); the next is 503. */
  streams: number;
  /** Time to send a request's headers (a slow sender holds a socket no longer). */
  headersTimeoutMs: number;
  /** Time to send a whole request, body included; a reply (SSE, wait, join) may take as long as its run. */
  requestTimeoutMs: number;
}

export const SERVER_LIMITS: ServerLimits = { connections: 256, streams: 32, headersTimeoutMs: 10_000, requestTimeoutMs: 60_000 };

/** How often a held `wait` or `join` sends a newline (the reference's waitKeepAlive). */
const KEEP_ALIVE_MS = 1_000;

export interface ProtocolServer {
  /** `http://host:port` */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Bodies larger than this are refused (413): a run's input is a conversation, not a disk. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

const EXPOSED = 'content-location, x-pagination-total';

export async function startProtocolServer(options: ProtocolServerOptions): Promise<ProtocolServer> {
  const compiled = options.routes.map((route) => ({ route, match: compile(route.pattern) }));
  const limits = { ...SERVER_LIMITS, ...options.limits };
  const sockets = new Set<Socket>();
  let streaming = 0;
  /** The Host names a loopback server answers (DNS rebinding: a page's own name resolving to 127.0.0.1 gets 403); set once bound. */
  let ownHosts: ReadonlySet<string> | undefined;
  const server: Server = createServer({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // Node checks those timeouts this often (30 s by default, which would triple the headers timeout).
    connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
  }, (req, res) => {
    void serve(req, res).catch((err: unknown) => {
      options.log?.(`agent protocol: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) void sendJson(res, 500, { detail: 'Internal server error' }, {});
      else res.destroy();
    });
  });
  server.maxConnections = limits.connections;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  /** Browser origins refused so far: each is logged once (a page retrying does not fill the log). */
  const refusedOrigins = new Set<string>();
  const refusedOrigin = (origin: string): void => {
    if (refusedOrigins.has(origin) || refusedOrigins.size >= 100) return;
    refusedOrigins.add(origin);
    options.log?.(`Agent Protocol: ${originRefusal(origin)}`);
  };

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://protocol.invalid');
    if (ownHosts !== undefined && !ownHosts.has((req.headers.host ?? '').toLowerCase())) {
      return sendJson(res, 403, { detail: 'The Host header does not name this server: on loopback the Agent Protocol answers only 127.0.0.1, localhost and [::1] at its port.' }, {});
    }
    const cors = corsHeaders(req, options.corsOrigins);
    if (cors === undefined) refusedOrigin(String(req.headers.origin));
    if (req.method === 'OPTIONS') {
      if (cors === undefined) return sendJson(res, 403, { detail: originRefusal(String(req.headers.origin)) }, {});
      res.writeHead(204, cors).end();
      return;
    }
    const headers = cors ?? {};
    const method = (req.method ?? 'GET').toUpperCase() as HttpMethod;
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    let found: { route: Route; params: Record<string, string> } | undefined;
    let pathKnown = false;
    for (const { route, match } of compiled) {
      const params = match(path);
      if (params === undefined) continue;
      pathKnown = true;
      if (route.method === method) {
        found = { route, params };
        break;
      }
    }
    if (found === undefined) return sendJson(res, pathKnown ? 405 : 404, { detail: pathKnown ? 'Method Not Allowed' : 'Not Found' }, headers);
    if (!found.route.open && !keyMatches(req.headers['x-api-key'], options.key())) {
      return sendJson(res, 403, { detail: 'Missing or invalid x-api-key: the Agent Protocol key is printed by `deepdesk host --print-key`.' }, headers);
    }
    if (found.route.streams === true) {
      if (streaming >= limits.streams) {
        return sendJson(res, 503, { detail: `The Agent Protocol serves at most ${limits.streams} streams at once: close one, or wait for a run with /wait or /join.` }, headers);
      }
      streaming += 1;
      res.once('close', () => (streaming -= 1));
    }
    let reply: ProtocolReply;
    try {
      const body = await readBody(req);
      const gone = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) gone.abort();
      });
      reply = await found.route.handle({ method, path, params: found.params, query: url.searchParams, body, headers: req.headers, disconnected: gone.signal });
    } catch (err) {
      if (err instanceof ProtocolHttpError) return sendJson(res, err.status, { detail: err.message }, headers);
      throw err;
    }
    if (reply.kind === 'json') return sendJson(res, reply.status ?? 200, reply.body, { ...headers, ...reply.headers });
    if (reply.kind === 'empty') {
      res.writeHead(reply.status ?? 204, { ...headers, ...reply.headers }).end();
      return;
    }
    if (reply.kind === 'wait') return sendWaited(res, reply.answer, { ...headers, ...reply.headers });
    const events = reply.events[Symbol.asyncIterator]();
    try {
      res.writeHead(reply.status ?? 200, { ...headers, ...reply.headers, 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
      res.flushHeaders();
      for (let next = await events.next(); next.done !== true && !res.destroyed; next = await events.next()) {
        const event = next.value;
        const lines = [`event: ${event.event}`, `data: ${event.json ?? JSON.stringify(event.data ?? null)}`];
        if (event.id !== undefined) lines.unshift(`id: ${event.id}`);
        // A client that reads slowly is written to as fast as it reads: nothing piles up in memory for it.
        if (!res.write(`${lines.join('\n')}\n\n`)) await drained(res);
      }
    } finally {
      await events.return?.();
    }
    res.end();
  }

  const listening = once(server, 'listening');
  server.listen(options.port, options.host);
  await listening;
  const port = (server.address() as AddressInfo).port;
  if (isLoopback(options.host) && options.allowRemote !== true) ownHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** Resolves when `res` can take more, or is gone. */
async function drained(res: ServerResponse): Promise<void> {
  if (res.destroyed) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

async function sendWaited(res: ServerResponse, answer: Promise<unknown>, headers: Record<string, string>): Promise<void> {
  res.writeHead(200, { ...headers, 'content-type': 'application/json' });
  res.flushHeaders();
  const timer = setInterval(() => {
    if (!res.destroyed && res.writableLength === 0) res.write('\n');
  }, KEEP_ALIVE_MS);
  let text: string;
  try {
    text = JSON.stringify((await answer) ?? null);
  } finally {
    clearInterval(timer);
  }
  if (res.destroyed) return;
  if (!res.write(text)) await drained(res);
  res.end();
}

/** Past this, a JSON answer is sent as it is written (chunked), waiting for the client to take each piece. */
const JSON_PIECE_CHARS = 64 * 1024;

/**
 * A JSON answer. A small one is sent whole; a large one (a long thread's state: megabytes) in
 * pieces as they are written, never held whole as one string.
 */
async function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): Promise<void> {
  let pending = '';
  let started = false;
  const send = async (piece: string | Uint8Array): Promise<void> => {
    if (!started) {
      res.writeHead(status, { ...headers, 'content-type': 'application/json' });
      started = true;
    }
    // Encoded once here: a string would be measured, then encoded, by the chunked writer.
    if (!res.destroyed && !res.write(typeof piece === 'string' ? Buffer.from(piece) : piece)) await drained(res);
  };
  for (const piece of jsonChunks(body ?? null)) {
    if (typeof piece === 'string' && piece.length < JSON_PIECE_CHARS) {
      pending += piece;
      if (pending.length < JSON_PIECE_CHARS) continue;
      await send(pending);
      pending = '';
      continue;
    }
    if (pending !== '') await send(pending);
    pending = '';
    await send(piece);
    if (res.destroyed) return;
  }
  if (!started) {
    res.writeHead(status, { ...headers, 'content-type': 'application/json' }).end(pending);
    return;
  }
  if (!res.destroyed) res.end(pending);
}

function keyMatches(given: string | string[] | undefined, key: string): boolean {
  return typeof given === 'string' && key !== '' && sameSecret(given, key);
}

/** Why a browser page of `origin` is refused, and how the person allows it. */
export function originRefusal(origin: string): string {
  const shown = JSON.stringify(origin.slice(0, 300));
  return `The browser origin ${shown} is not allowed to call the Agent Protocol. To allow it: deepdesk host --listen [HOST:]PORT --cors-origin ${shown}, or add it to Settings › Agent Protocol › Allowed browser origins.`;
}

function corsHeaders(req: IncomingMessage, allowed: readonly string[]): Record<string, string> | undefined {
  const origin = req.headers.origin;
  if (origin === undefined) return {};
  if (!allowed.includes(origin)) return undefined;
  return {
    'access-control-allow-origin': origin,
    vary: 'Origin',
    'access-control-allow-methods': 'GET, POST, PATCH, PUT, DELETE, OPTIONS',
    'access-control-allow-headers': req.headers['access-control-request-headers'] ?? 'content-type, x-api-key, last-event-id',
    'access-control-expose-headers': EXPOSED,
  };
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ProtocolHttpError(413, `The request body is over ${MAX_BODY_BYTES} bytes.`);
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return undefined;
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // As the reference (hono's json validator).
    throw new ProtocolHttpError(400, 'Malformed JSON in request body');
  }
}

function compile(pattern: string): (path: string) => Record<string, string> | undefined {
  const parts = pattern.split('/');
  return (path) => {
    const given = path.split('/');
    if (given.length !== parts.length) return undefined;
    const params: Record<string, string> = {};
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (part.startsWith(':')) {
        let value: string;
        try {
          value = decodeURIComponent(given[i]!);
        } catch {
          return undefined;
        }
        if (value === '') return undefined;
        params[part.slice(1)] = value;
      } else if (part !== given[i]) return undefined;
    }
    return params;
  };
}
