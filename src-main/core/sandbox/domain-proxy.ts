// The one way out of the sandbox's network namespace when the folder allows domains: an
// HTTP proxy (plain requests and CONNECT tunnels) on the host that lets through only the
// allowed names, and never to this machine's loopback or link-local addresses (an allowed
// name may resolve there). On Linux it listens on a Unix socket, and a small bridge inside
// the sandbox gives commands a TCP port to it (HTTP_PROXY); it records what it refused, for
// the blocked line.
import { lookup } from 'node:dns/promises';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, isIP, type Socket } from 'node:net';

export interface DomainProxy {
  /** Hosts (host:port for tunnels) refused during this run. */
  readonly refused: Set<string>;
  /** The TCP port, when listening on localhost rather than a Unix socket. */
  readonly port?: number;
  close(): Promise<void>;
}

/** The port the bridge listens on inside the sandbox (its network namespace is its own). */
export const BRIDGE_PORT = 3128;

function normalize(host: string): string {
  return host.toLowerCase().replace(/\.$/, '').replace(/^\[|\]$/g, '');
}

/** `example.com` allows exactly that name; `*.example.com` allows names under it. */
export function domainAllowed(host: string, allowed: readonly string[]): boolean {
  const name = normalize(host);
  return allowed.some((entry) => {
    const pattern = normalize(entry.trim());
    if (pattern.startsWith('*.')) return name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1;
    return name === pattern;
  });
}

const PRIVATE_TARGET = [/^127\./, /^0\./, /^169\.254\./, /^::1$/, /^::$/, /^fe80:/i, /^::ffff:127\./i, /^::ffff:169\.254\./i];

/** Resolves `host` and refuses this machine's own addresses; undefined when refused. */
async function safeAddress(host: string): Promise<string | undefined> {
  try {
    const { address } = isIP(host) ? { address: host } : await lookup(host);
    return PRIVATE_TARGET.some((re) => re.test(address)) ? undefined : address;
  } catch {
    return undefined;
  }
}

function refuse(socket: Socket, host: string): void {
  const body = `Deepdesk's sandbox blocked ${host}: not on this folder's allowed domains\n`;
  socket.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

function splitHostPort(target: string, defaultPort: number): { host: string; port: number } {
  const m = /^\[?([^\]]+?)\]?(?::(\d+))?$/.exec(target);
  return { host: m?.[1] ?? target, port: m?.[2] ? Number(m[2]) : defaultPort };
}

export async function startDomainProxy(allowed: readonly string[], listen: { path: string } | { port: 0 }): Promise<DomainProxy> {
  const refused = new Set<string>();
  const sockets = new Set<Socket>();

  const server: Server = createServer((req: IncomingMessage, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute URL expected\n');
      return;
    }
    if (url.protocol !== 'http:' || !domainAllowed(url.hostname, allowed)) {
      refused.add(url.hostname);
      res.writeHead(403, { 'Content-Type': 'text/plain' }).end(`Deepdesk's sandbox blocked ${url.hostname}: not on this folder's allowed domains\n`);
      return;
    }
    void safeAddress(url.hostname).then((address) => {
      if (!address) {
        refused.add(url.hostname);
        res.writeHead(403).end(`Deepdesk's sandbox blocked ${url.hostname}: it resolves to this machine\n`);
        return;
      }
      const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: url.host };
      delete headers['proxy-connection'];
      delete headers['proxy-authorization'];
      const upstream = request(
        { host: address, port: url.port || 80, method: req.method, path: `${url.pathname}${url.search}`, headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.headersSent ? res.destroy() : res.writeHead(502).end());
      req.pipe(upstream);
    });
  });

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    const { host, port } = splitHostPort(req.url ?? '', 443);
    if (!domainAllowed(host, allowed)) {
      refused.add(`${host}:${port}`);
      refuse(client, host);
      return;
    }
    void safeAddress(host).then((address) => {
      if (!address) {
        refused.add(`${host}:${port}`);
        refuse(client, host);
        return;
      }
      const upstream = connect(port, address, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if ('path' in listen) server.listen(listen.path, resolve);
    else server.listen(0, '127.0.0.1', resolve);
  });
  server.unref();
  const address = server.address();
  return {
    refused,
    ...(typeof address === 'object' && address ? { port: address.port } : {}),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The proxy variables commands follow (curl, git, npm, pip, …). */
export function proxyEnv(url: string): Record<string, string> {
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    ALL_PROXY: url,
    all_proxy: url,
    NO_PROXY: 'localhost,127.0.0.1,::1',
    no_proxy: 'localhost,127.0.0.1,::1',
  };
}
