// A stand-in of Deno Deploy's sandbox API, for tests only: one HTTP server on 127.0.0.1 that
// serves both the sandbox endpoint (a WebSocket per Sandbox object, JSON-RPC 2.0 with base64
// stream notifications; DELETE/PATCH /api/v3/sandbox/:id) and the console's sandbox list
// (GET /api/v2/sandboxes). Deno publishes no API description; the SDK's own zod codecs
// (@deno/sandbox esm/schema.js) are the description, and every RPC here is decoded and
// answered through them, so a shape the SDK would not accept fails here too.
// How close: paths, the `x-deno-sandbox-id` handshake, `{code,message}` refusals, the
// `{ok}|{error}` results with Deno error classes, "session" sandboxes dying with their
// creator's socket, stop = delete (a stopped sandbox is listed `stopped` and cannot be
// connected to), sockets closed with 1001 when a sandbox ends. A process kill signals the
// command's process group, and each command has its own pid namespace (LocalBox), so a
// killed command's background children end with it.
// What it cannot show: whether the real service kills a whole tree on `processKill` (one pid
// on the wire), its real quota codes (none are in the SDK: 429 QUOTA_EXCEEDED here), the
// real image (/home/app, Deno, apt), network policy, memory limits, regions, volumes.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { constants as osConstants, tmpdir } from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { WebSocketServer, type WebSocket } from 'ws';
import { BoxFileFailure, LocalBox, type BoxProcess } from './local-box';
import type { ProviderStandin } from './standin';

/** The sandbox user's home in a Deno sandbox (the SDK's own default for its editor). */
export const DENO_SANDBOX_HOME = '/home/app';
const TOKEN = 'ddo_standin';

interface Codec {
  encode(value: unknown): unknown;
  decode(value: unknown): unknown;
}
interface DenoSchemas {
  sandboxServiceSchema: Record<string, { input: Codec; output: Codec } | undefined>;
  streamStartSchema: Codec;
  streamEnqueueSchema: Codec;
  streamEndSchema: Codec;
}

let schemas: Promise<DenoSchemas> | undefined;
/** The SDK's codecs, by path: its `exports` map does not export them. */
function loadSchemas(): Promise<DenoSchemas> {
  const sdkMain = createRequire(import.meta.url).resolve('@deno/sandbox');
  schemas ??= import(pathToFileURL(path.join(path.dirname(sdkMain), '../esm/schema.js')).href) as Promise<DenoSchemas>;
  return schemas;
}

interface Running {
  proc: BoxProcess;
  /** The wait's answer, sent after the output streams' ends. */
  status: Promise<{ success: boolean; code: number; signal: string | null; oom: null }>;
}

interface Sandbox {
  id: string;
  box: LocalBox;
  labels: Record<string, string>;
  createdAt: Date;
  stoppedAt: Date | null;
  stopAtMs: number | null;
  env: Record<string, string>;
  procs: Map<number, Running>;
  sockets: Set<WebSocket>;
  timer?: NodeJS.Timeout;
}

const ID_CHARS = '0123456789abcdefghjkmnpqrstvwxyz';
function newSandboxId(): string {
  return 'sbx_ord_' + Array.from(randomBytes(20), (b) => ID_CHARS[b % ID_CHARS.length]).join('');
}

/** A Deno error as the SDK decodes it: by constructor name, with its `code`, no host stack. */
function denoError(name: string, message: string, code?: string): Error {
  const Class = { [name]: class extends Error {} }[name]!;
  const err: Error & { code?: string } = new Class(message);
  if (code) err.code = code;
  Object.defineProperty(err, 'stack', { value: null });
  return err;
}

function fsError(err: unknown): Error {
  const kind = err instanceof BoxFileFailure ? err.code : undefined;
  const code = (err as NodeJS.ErrnoException).code;
  const message = err instanceof Error ? err.message : String(err);
  if (kind === 'file_not_found' || code === 'ENOENT') return denoError('NotFound', message, 'ENOENT');
  if (kind === 'permission_denied' || code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return denoError('PermissionDenied', message, 'EACCES');
  if (kind === 'is_directory' || code === 'EISDIR') return denoError('IsADirectory', message, 'EISDIR');
  if (kind === 'invalid_path' || code === 'ENOTDIR') return denoError('NotADirectory', message, 'ENOTDIR');
  if (code === 'EEXIST') return denoError('AlreadyExists', message, 'EEXIST');
  return denoError('Error', message, code);
}

function refuse(socket: Duplex, status: number, code: string, message: string): void {
  const body = JSON.stringify({ code, message });
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-deno-trace-id: standin\r\nconnection: close\r\n\r\n${body}`);
}

function reply(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-deno-trace-id': 'standin' });
  res.end(body === undefined ? '' : JSON.stringify(body));
}

export async function startDenoStandin(): Promise<ProviderStandin> {
  const S = await loadSchemas();
  const baseDir = fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-deno-standin-'));
  const sandboxes = new Map<string, Sandbox>();
  const boxes = new Map<string, LocalBox>();
  const requests: string[] = [];
  const uploads: string[] = [];
  let failing: 'auth' | 'quota' | null = null;
  let unfiltered = false;
  // Server-chosen stream ids: the SDK keeps inbound streams in module-global maps, so they are unique across sockets.
  let nextStreamId = 1_000_000;

  const authorized = (header: string | undefined): boolean => failing !== 'auth' && header === `Bearer ${TOKEN}`;
  const AUTH_REFUSED = { code: 'INVALID_TOKEN', message: 'The access token is invalid or expired.' };
  const NOT_FOUND = { code: 'SANDBOX_NOT_FOUND', message: 'The sandbox was not found.' };

  function stopSandbox(sb: Sandbox): void {
    if (sb.stoppedAt) return;
    sb.stoppedAt = new Date();
    clearTimeout(sb.timer);
    // Sockets first, so a pending wait is told the sandbox stopped, not the killed command's status.
    for (const ws of sb.sockets) ws.close(1001, 'sandbox stopped');
    sb.box.destroy();
    boxes.delete(sb.id);
  }

  const live = (id: string): Sandbox | undefined => {
    const sb = sandboxes.get(id);
    return sb && !sb.stoppedAt ? sb : undefined;
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://standin');
    requests.push(`${req.method} ${url.pathname}`);
    if (!authorized(req.headers.authorization)) return reply(res, 401, AUTH_REFUSED);
    if (req.method === 'GET' && url.pathname === '/api/v2/sandboxes') {
      const want = [...url.searchParams].flatMap(([k, v]) => (/^labels\[(.+)\]$/.exec(k) ? [[/^labels\[(.+)\]$/.exec(k)![1]!, v] as const] : []));
      const list = [...sandboxes.values()]
        .filter((sb) => unfiltered || want.every(([k, v]) => sb.labels[k] === v))
        .map((sb) => ({ id: sb.id, createdAt: sb.createdAt.toISOString(), stoppedAt: sb.stoppedAt?.toISOString() ?? null, region: 'ord', status: sb.stoppedAt ? 'stopped' : 'running', labels: sb.labels }));
      return reply(res, 200, list);
    }
    const m = /^\/api\/v3\/sandbox\/([^/]+)$/.exec(url.pathname);
    if (m && req.method === 'DELETE') {
      const sb = live(m[1]!);
      if (!sb) return reply(res, 404, NOT_FOUND);
      stopSandbox(sb);
      return reply(res, 200, undefined);
    }
    if (m && req.method === 'PATCH') {
      const sb = live(m[1]!);
      if (!sb) return reply(res, 404, NOT_FOUND);
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        const stopAt = Number((JSON.parse(body || '{}') as { stop_at_ms?: unknown }).stop_at_ms);
        if (!Number.isFinite(stopAt)) return reply(res, 400, { code: 'INVALID_REQUEST', message: 'stop_at_ms is required' });
        schedule(sb, stopAt);
        reply(res, 200, { stop_at_ms: stopAt });
      });
      return;
    }
    reply(res, 404, { code: 'NOT_FOUND', message: `No route for ${req.method} ${url.pathname}` });
  });

  function schedule(sb: Sandbox, stopAtMs: number): void {
    sb.stopAtMs = stopAtMs;
    clearTimeout(sb.timer);
    sb.timer = setTimeout(() => stopSandbox(sb), Math.min(Math.max(0, stopAtMs - Date.now()), 2 ** 31 - 1));
    sb.timer.unref();
  }

  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://standin');
    requests.push(`WS ${url.pathname}`);
    if (!authorized(req.headers.authorization)) return refuse(socket, 401, AUTH_REFUSED.code, AUTH_REFUSED.message);
    let sb: Sandbox | undefined;
    let creator = false;
    const connect = /^\/api\/v3\/sandbox\/([^/]+)\/connect$/.exec(url.pathname);
    if (url.pathname === '/api/v3/sandboxes/create') {
      if (failing === 'quota') return refuse(socket, 429, 'QUOTA_EXCEEDED', 'The organization has reached its limit of concurrent sandboxes.');
      const header = req.headers['x-deno-sandbox-config'];
      const config = JSON.parse(Buffer.from(typeof header === 'string' ? header : 'e30=', 'base64').toString('utf8')) as { stop_at_ms?: number; labels?: Record<string, string> };
      const id = newSandboxId();
      const box = new LocalBox({ home: DENO_SANDBOX_HOME, baseDir, id });
      sb = { id, box, labels: config.labels ?? {}, createdAt: new Date(), stoppedAt: null, stopAtMs: null, env: {}, procs: new Map(), sockets: new Set() };
      if (config.stop_at_ms !== undefined) schedule(sb, config.stop_at_ms);
      sandboxes.set(id, sb);
      boxes.set(id, box);
      creator = true;
    } else if (connect) {
      sb = live(connect[1]!);
      if (!sb) return refuse(socket, 404, NOT_FOUND.code, NOT_FOUND.message);
    } else return refuse(socket, 404, 'NOT_FOUND', `No route for ${url.pathname}`);
    const target = sb;
    wss.once('headers', (headers) => headers.push(`x-deno-sandbox-id: ${target.id}`, 'x-deno-trace-id: standin'));
    wss.handleUpgrade(req, socket, head, (ws) => serveSocket(ws, target, creator));
  });

  function serveSocket(ws: WebSocket, sb: Sandbox, creator: boolean): void {
    sb.sockets.add(ws);
    const inbound = new Map<number, { chunks: Buffer[]; ended: boolean; waiters: Array<() => void> }>();
    const inStream = (id: number) => {
      let s = inbound.get(id);
      if (!s) inbound.set(id, (s = { chunks: [], ended: false, waiters: [] }));
      return s;
    };
    const readAll = async (id: number): Promise<Buffer> => {
      const s = inStream(id);
      while (!s.ended) await new Promise<void>((r) => s.waiters.push(r));
      inbound.delete(id);
      return Buffer.concat(s.chunks);
    };
    const send = (message: unknown): void => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ jsonrpc: '2.0', ...(message as object) }));
    };
    const notify = (method: string, params: unknown): void => send({ method, params });

    const inBox = (p: string): string => (path.posix.isAbsolute(p) ? p : path.posix.join(DENO_SANDBOX_HOME, p));
    const statOf = (st: fs.Stats) => ({
      isFile: st.isFile(), isDirectory: st.isDirectory(), isSymlink: st.isSymbolicLink(), size: st.size,
      mtime: st.mtime, atime: st.atime, birthtime: st.birthtime, ctime: st.ctime, mode: st.mode, dev: st.dev, ino: st.ino,
      nlink: st.nlink, uid: st.uid, gid: st.gid, rdev: st.rdev, blksize: st.blksize, blocks: st.blocks,
      isBlockDevice: st.isBlockDevice(), isCharDevice: st.isCharacterDevice(), isFifo: st.isFIFO(), isSocket: st.isSocket(),
    });
    const statIn = (p: string, follow: boolean) => {
      try {
        return statOf(follow ? fs.statSync(sb.box.hostPath(inBox(p))) : fs.lstatSync(sb.box.hostPath(inBox(p), { followLast: false })));
      } catch (err) {
        throw fsError(err);
      }
    };
    const isDir = (p: string): boolean => {
      try {
        return fs.statSync(sb.box.hostPath(p)).isDirectory();
      } catch {
        return false;
      }
    };

    const outStream = (): number => {
      const id = nextStreamId++;
      notify('$sandbox.stream.start', S.streamStartSchema.encode({ streamId: id }));
      return id;
    };

    type Params = Record<string, unknown>;
    const handlers: Record<string, (p: Params) => Promise<unknown>> = {
      envSet: async (p) => ((sb.env[p.key as string] = p.value as string), null),
      spawn: async (p) => {
        const args = (p.args as string[] | undefined) ?? [];
        const cwd = inBox((p.cwd as string | undefined) ?? DENO_SANDBOX_HOME);
        if (!isDir(cwd)) throw denoError('NotFound', `No such file or directory (os error 2): chdir '${cwd}'`, 'ENOENT');
        const stdin = p.stdinStreamId === undefined ? undefined : await readAll(p.stdinStreamId as number);
        const stdoutId = p.stdout === 'piped' ? outStream() : null;
        const stderrId = p.stderr === 'piped' ? outStream() : null;
        const chunk = (id: number | null) => (c: Buffer) => {
          if (id !== null) notify('$sandbox.stream.enqueue', S.streamEnqueueSchema.encode({ streamId: id, data: new Uint8Array(c) }));
        };
        const shell = args.length === 0 ? [] : [p.command as string, ...args.slice(0, -1)];
        const proc = sb.box.run(args.length === 0 ? (p.command as string) : args[args.length - 1]!, {
          shell, cwd, stdin, env: { ...(p.clearEnv ? {} : sb.env), ...((p.env as Record<string, string> | undefined) ?? {}) },
          onStdout: chunk(stdoutId), onStderr: chunk(stderrId),
        });
        const status = proc.done.then(({ code, signal }) => {
          for (const id of [stdoutId, stderrId]) if (id !== null) notify('$sandbox.stream.end', S.streamEndSchema.encode({ streamId: id }));
          const signo = signal ? osConstants.signals[signal] : 0;
          return { success: code === 0, code: signal ? 128 + signo : (code ?? 1), signal, oom: null };
        });
        sb.procs.set(proc.pid, { proc, status });
        return { pid: proc.pid, stdoutStreamId: stdoutId, stderrStreamId: stderrId };
      },
      processWait: async (p) => {
        const running = sb.procs.get(p.pid as number);
        if (!running) throw denoError('NotFound', 'No such process', 'ENOENT');
        // As the service does, an ended process's status waits for its wait: a fast command
        // may end before the client asks (the record went at once, and a wait under load failed).
        const status = await running.status;
        sb.procs.delete(p.pid as number);
        return status;
      },
      processKill: async (p) => {
        const running = sb.procs.get(p.pid as number);
        try {
          if (!running) throw new Error('no such process');
          // The command's process group: bash and whatever it started.
          running.proc.signal(((p.signal as string | undefined) ?? 'SIGTERM') as NodeJS.Signals);
        } catch {
          throw denoError('NotFound', 'No such process (os error 3)', 'ENOENT');
        }
        return null;
      },
      writeFile: async (p) => {
        uploads.push(sb.id);
        const content = p.contentStreamId !== undefined ? await readAll(p.contentStreamId as number) : Buffer.from(p.content as Uint8Array);
        const target = inBox(p.path as string);
        const options = (p.options as { append?: boolean; create?: boolean; createNew?: boolean; mode?: number } | undefined) ?? {};
        if (!isDir(path.posix.dirname(target))) throw denoError('NotFound', `No such file or directory (os error 2): writefile '${target}'`, 'ENOENT');
        try {
          const host = sb.box.hostPath(target, { forWrite: true });
          if (options.createNew && fs.existsSync(host)) throw Object.assign(new Error(`File exists (os error 17): '${target}'`), { code: 'EEXIST' });
          if (options.create === false && !fs.existsSync(host)) throw Object.assign(new Error(`No such file or directory (os error 2): '${target}'`), { code: 'ENOENT' });
          fs.writeFileSync(host, content, { flag: options.append ? 'a' : 'w' });
          if (options.mode !== undefined) fs.chmodSync(host, options.mode & 0o7777);
        } catch (err) {
          throw fsError(err);
        }
        return null;
      },
      readFile: async (p) => {
        try {
          return new Uint8Array(sb.box.readFile(inBox(p.path as string)));
        } catch (err) {
          throw fsError(err);
        }
      },
      mkdir: async (p) => {
        const target = inBox(p.path as string);
        const options = (p.options as { recursive?: boolean; mode?: number } | undefined) ?? {};
        try {
          if (options.recursive) sb.box.makeDir(target);
          else fs.mkdirSync(sb.box.hostPath(target, { forWrite: true }), { mode: options.mode });
        } catch (err) {
          throw fsError(err);
        }
        return null;
      },
      chmod: async (p) => {
        try {
          fs.chmodSync(sb.box.hostPath(inBox(p.path as string), { forWrite: true }), (p.mode as number) & 0o7777);
        } catch (err) {
          throw fsError(err);
        }
        return null;
      },
      remove: async (p) => {
        const target = inBox(p.path as string);
        try {
          const host = sb.box.hostPath(target, { followLast: false, forWrite: true });
          fs.rmSync(host, { recursive: !!(p.options as { recursive?: boolean } | undefined)?.recursive });
        } catch (err) {
          throw fsError(err);
        }
        return null;
      },
      stat: async (p) => statIn(p.path as string, true),
      lstat: async (p) => statIn(p.path as string, false),
    };

    ws.on('message', (raw: Buffer) => {
      const text = raw.toString('utf8');
      if (text === 'ping') return ws.send('pong');
      const msg = JSON.parse(text) as { id?: number; method: string; params?: { streamId?: number; data?: string } };
      if (msg.id === undefined) {
        // A client-to-server stream (its enqueues may arrive before the request that names it).
        const id = msg.params?.streamId;
        if (id === undefined) return;
        if (msg.method === '$sandbox.stream.enqueue') inStream(id).chunks.push(Buffer.from(msg.params?.data ?? '', 'base64'));
        if (msg.method === '$sandbox.stream.end' || msg.method === '$sandbox.stream.error') {
          const s = inStream(id);
          s.ended = true;
          for (const w of s.waiters.splice(0)) w();
        }
        return;
      }
      requests.push(msg.method);
      const schema = S.sandboxServiceSchema[msg.method];
      const handler = handlers[msg.method];
      if (!schema || !handler) return send({ id: msg.id, error: { code: -32601, message: 'Method not found' } });
      void (async () => {
        let result: unknown;
        try {
          result = { ok: await handler(schema.input.decode(msg.params) as Params) };
        } catch (err) {
          result = { error: err instanceof Error ? err : denoError('Error', String(err)) };
        }
        if (sb.stoppedAt) return;
        send({ id: msg.id, result: schema.output.encode(result) });
      })();
    });
    ws.on('close', () => {
      sb.sockets.delete(ws);
      if (creator && sb.stopAtMs === null) stopSandbox(sb);
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;

  return {
    provider: 'deno',
    env: { DENO_DEPLOY_TOKEN: TOKEN, DENO_SANDBOX_ENDPOINT: endpoint, DENO_DEPLOY_ENDPOINT: endpoint },
    boxes,
    requests,
    uploads,
    // Deno has no fork (a snapshot is of a volume, never of a running sandbox).
    forks: [],
    vanish(id) {
      const sb = live(id);
      if (sb) stopSandbox(sb);
    },
    fail(kind) {
      failing = kind;
    },
    ignoreListFilter(on) {
      unfiltered = on;
    },
    relabel(id, labels) {
      const sb = sandboxes.get(id);
      if (sb) sb.labels = { ...labels };
    },
    async close() {
      for (const sb of sandboxes.values()) stopSandbox(sb);
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(baseDir, { recursive: true, force: true });
    },
  };
}

/** The stand-in as the provider table opens it (registry.ts, testing/standins.ts). */
export { startDenoStandin as startStandin };
