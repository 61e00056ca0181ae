// The Agent Protocol's HTTP layer (SPEC §19): routes, the API key, CORS, JSON bodies and
// server-sent events. It knows requests and replies; the routes (threads, runs, store…) know
// the host's services. A malformed request is answered with an error and disturbs nothing else.

import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

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
  | { kind: 'sse'; status?: number; headers?: Readonly<Record<string, string>>; events: AsyncIterable<SseEvent> };

export interface Route {
  method: HttpMethod;
  /** `/threads/:thread_id/runs/:run_id` */
  pattern: string;
  /** Answered without the API key (`/ok`, `/info`). */
  open?: boolean;
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
  log?: (line: string) => void;
}

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
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    void serve(req, res).catch((err: unknown) => {
      options.log?.(`agent protocol: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) sendJson(res, 500, { detail: 'Internal server error' }, {});
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://protocol.invalid');
    const cors = corsHeaders(req, options.corsOrigins);
    if (req.method === 'OPTIONS') {
      res.writeHead(cors === undefined ? 403 : 204, cors ?? {}).end();
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
    let body: unknown;
    try {
      body = await readBody(req);
    } catch (err) {
      if (err instanceof ProtocolHttpError) return sendJson(res, err.status, { detail: err.message }, headers);
      throw err;
    }
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    let reply: ProtocolReply;
    try {
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
    res.writeHead(reply.status ?? 200, { ...headers, ...reply.headers, 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.flushHeaders();
    for await (const event of reply.events) {
      if (res.destroyed) break;
      const lines = [`event: ${event.event}`, `data: ${event.json ?? JSON.stringify(event.data ?? null)}`];
      if (event.id !== undefined) lines.unshift(`id: ${event.id}`);
      res.write(`${lines.join('\n')}\n\n`);
    }
    res.end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
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

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  const text = JSON.stringify(body ?? null);
  res.writeHead(status, { ...headers, 'content-type': 'application/json' }).end(text);
}

function keyMatches(given: string | string[] | undefined, key: string): boolean {
  if (typeof given !== 'string' || key === '') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(key);
  return a.length === b.length && timingSafeEqual(a, b);
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
