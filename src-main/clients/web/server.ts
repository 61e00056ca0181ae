// `deepdesk serve`: the window's static files and its WebSocket on 127.0.0.1 (SPEC §5).
// A transport only: requests go to the WindowApi, events come from it.

import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { WindowApi } from '../../app/base/window-api';
import { hasSessionCookie, hostAllowed, newToken, originAllowed, securityHeaders, sessionCookie, tokenFromProtocols, tokenMatches } from './security';
import { createSocketHub } from './socket-hub';
import { resolveStaticFile, sendStaticFile } from './static-files';

export interface WebHostOptions {
  api: WindowApi;
  /** The built renderer, normally out/renderer. */
  staticDir: string;
  /** 0 (the default) picks a free port. */
  port?: number;
}

export interface WebHost {
  /** http://127.0.0.1:PORT/?token=TOKEN — the one link that opens the window. */
  url: string;
  origin: string;
  token: string;
  port: number;
  close(): Promise<void>;
}

const UNAUTHORIZED_TEXT =
  'Deepdesk: this address needs the link printed by `deepdesk serve` (it carries a one-time token).\n' +
  'Open that exact URL in this browser; `deepdesk serve --print-url` prints it again while serve runs.\n';

export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const token = newToken();
  // Never the token: this one reaches every server on 127.0.0.1 the browser visits.
  const sessionSecret = newToken();
  const hub = createSocketHub(options.api);
  let port = 0;

  const plain = (res: ServerResponse, status: number, text: string, extra: Record<string, string> = {}): void => {
    res.writeHead(status, {
      ...securityHeaders(port),
      'Content-Type': 'text/plain; charset=utf-8',
      'Cache-Control': 'no-store',
      'Content-Length': String(Buffer.byteLength(text)),
      ...extra,
    });
    res.end(text);
  };

  const onRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!hostAllowed(req.headers.host, port)) return plain(res, 403, 'Forbidden: unexpected Host header.\n');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const cookieOk = hasSessionCookie(req.headers, port, sessionSecret);

    if (url.searchParams.has('token')) {
      const queryOk = tokenMatches(url.searchParams.get('token') ?? undefined, token);
      if (!queryOk && !cookieOk) return plain(res, 401, UNAUTHORIZED_TEXT);
      url.searchParams.delete('token');
      // The page takes the token from the fragment (never sent to a server) into its tab's sessionStorage.
      const location = url.pathname + url.search + (queryOk ? `#token=${token}` : '');
      return plain(res, 302, 'Found\n', { Location: location, ...(queryOk ? { 'Set-Cookie': sessionCookie(port, sessionSecret) } : {}) });
    }
    if (!cookieOk) return plain(res, 401, UNAUTHORIZED_TEXT);
    if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, 'Method not allowed.\n', { Allow: 'GET, HEAD' });

    const file = await resolveStaticFile(options.staticDir, url.pathname);
    if (file === undefined) return plain(res, 404, 'Not found.\n');
    await sendStaticFile(req, res, file, securityHeaders(port));
  };

  const refuseUpgrade = (socket: Duplex, status: number, reason: string): void => {
    const body = `${reason}\n`;
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    socket.destroy();
  };

  const server = createServer((req, res) => {
    onRequest(req, res).catch(() => {
      if (!res.headersSent) plain(res, 500, 'Internal error.\n');
      else res.destroy();
    });
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (!hostAllowed(req.headers.host, port)) return refuseUpgrade(socket, 403, 'Forbidden');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/ws') return refuseUpgrade(socket, 404, 'Not Found');
    if (!originAllowed(req.headers.origin, port)) return refuseUpgrade(socket, 403, 'Forbidden');
    if (!tokenMatches(tokenFromProtocols(req.headers['sec-websocket-protocol']), token)) return refuseUpgrade(socket, 401, 'Unauthorized');
    hub.server.handleUpgrade(req, socket, head, (ws) => hub.server.emit('connection', ws, req));
  });

  const listening = once(server, 'listening');
  server.listen(options.port ?? 0, '127.0.0.1');
  await listening;
  port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;

  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/?token=${token}`,
    origin,
    token,
    port,
    close: () => {
      closing ??= (async () => {
        await hub.close();
        await new Promise<void>((done) => {
          server.close(() => done());
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}
