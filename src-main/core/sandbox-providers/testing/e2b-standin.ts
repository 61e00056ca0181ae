// A local stand-in of E2B (tests only), on one 127.0.0.1 port, for the official `e2b` SDK
// pointed at it with E2B_API_URL and E2B_SANDBOX_URL. Built from the descriptions the SDK
// itself uses: the control-plane OpenAPI (`/v2/sandboxes…`, `/sandboxes/{id}…`, errors
// `{"code":<status>,"message"}`), envd's OpenAPI (`/health`, `/files`) and envd's protobuf
// services over the Connect protocol with the JSON codec (`process.Process/Start` streamed in
// 5-byte envelopes, unary `SendSignal`, `filesystem.Filesystem/{Stat,MakeDir,Remove}`); envd
// requests are routed by their `E2b-Sandbox-Id` header, as E2B's sandbox proxy does.
// How close: the paths, bodies, status codes and error shapes the SDK reads; a command is
// `/bin/bash -l -c` with the sandbox's env, stdout and stderr come back as separate `data`
// events as they are read, its deadline (`Connect-Timeout-Ms`) ends it and the stream with
// `deadline_exceeded`, SIGKILL is sent to a pid only; a gone sandbox is a 404 on the API and
// a 502 from the proxy, and its open streams are dropped. What it cannot show: each command
// runs in its own box pid namespace (LocalBox), so a command's background children end with
// it, where in a real sandbox they outlive it (the adapter's `kill -- -pid` of the process
// group is sent but has nothing to reach here; tests see it in `requests`); no TLS, HTTP/2,
// templates, networking, users, memory snapshots (a fork copies the files only), file metadata or watchers.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readBody, type ProviderStandin } from './standin';
import { BoxFileFailure, LocalBox, type BoxProcess } from './local-box';

const HOME = '/home/user';
const ENVD_VERSION = '0.6.4';
const API_KEY = 'e2b_standin_key';
const DEFAULT_TTL_S = 300;

interface StandinSandbox {
  id: string;
  box: LocalBox;
  templateID: string;
  metadata: Record<string, string>;
  envVars: Record<string, string>;
  token: string;
  state: 'running' | 'paused';
  autoPause: boolean;
  startedAt: Date;
  endAt: Date;
  ttl?: NodeJS.Timeout;
  /** Running commands by pid, with the response streaming each one. */
  procs: Map<number, { proc: BoxProcess; res: http.ServerResponse }>;
}

class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** Connect protocol error codes and their HTTP statuses (connectrpc.com/docs/protocol). */
const CONNECT_STATUS: Record<string, number> = {
  invalid_argument: 400, unauthenticated: 401, permission_denied: 403, not_found: 404, already_exists: 409,
  resource_exhausted: 429, internal: 500, unimplemented: 501, unavailable: 503, deadline_exceeded: 504,
};

class RpcError extends Error {
  constructor(readonly code: keyof typeof CONNECT_STATUS, message: string) {
    super(message);
  }
}

export async function startE2bStandin(): Promise<ProviderStandin> {
  const baseDir = fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-e2b-standin-'));
  const sandboxes = new Map<string, StandinSandbox>();
  const boxes = new Map<string, LocalBox>();
  const requests: string[] = [];
  const uploads: string[] = [];
  const forks: string[] = [];
  let failing: 'auth' | 'quota' | null = null;
  let unfiltered = false;

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push(`${req.method} ${url.pathname}`);
    void readBody(req)
      .then((body) => route(req, res, url, body))
      .catch((err: unknown) => {
        if (res.headersSent) return void res.destroy();
        if (err instanceof RpcError) return json(res, CONNECT_STATUS[err.code] ?? 500, { code: err.code, message: err.message });
        const status = err instanceof HttpError ? err.status : 500;
        json(res, status, { code: status, message: err instanceof Error ? err.message : String(err) });
      });
  });

  function route(req: http.IncomingMessage, res: http.ServerResponse, url: URL, body: Buffer): void {
    const sandboxHeader = req.headers['e2b-sandbox-id'];
    if (typeof sandboxHeader === 'string') return envd(req, res, url, body, sandboxHeader);
    if (req.headers['x-api-key'] !== API_KEY || failing === 'auth') throw new HttpError(401, 'Invalid API key, please visit https://e2b.dev/docs/api-key to get your API key.');
    const method = req.method ?? 'GET';
    const p = url.pathname;
    if (method === 'POST' && p === '/v2/sandboxes') return createSandbox(res, parseJson(body));
    if (method === 'GET' && p === '/v2/sandboxes') return listSandboxes(res, url);
    let m = /^\/v2\/sandboxes\/([^/]+)\/connect$/.exec(p);
    if (method === 'POST' && m) return connectSandbox(res, found(m[1]!), parseJson(body));
    m = /^\/sandboxes\/([^/]+)(\/pause|\/timeout|\/fork)?$/.exec(p);
    if (m) {
      const sb = found(m[1]!);
      if (method === 'GET' && !m[2]) return json(res, 200, detail(sb));
      if (method === 'DELETE' && !m[2]) {
        removeSandbox(sb);
        return void res.writeHead(204).end();
      }
      if (method === 'POST' && m[2] === '/pause') {
        if (sb.state === 'paused') throw new HttpError(409, `Sandbox ${sb.id} is already paused`);
        pause(sb);
        return void res.writeHead(204).end();
      }
      if (method === 'POST' && m[2] === '/fork') return forkSandbox(res, sb, parseJson(body));
      if (method === 'POST' && m[2] === '/timeout') {
        setTtl(sb, Number(parseJson(body).timeout ?? DEFAULT_TTL_S));
        return void res.writeHead(204).end();
      }
    }
    throw new HttpError(404, `no route ${method} ${p}`);
  }

  function found(id: string): StandinSandbox {
    const sb = sandboxes.get(id);
    if (!sb) throw new HttpError(404, `sandbox "${id}" doesn't exist or you don't have access to it`);
    return sb;
  }

  function quota(): void {
    if (failing === 'quota') throw new HttpError(429, 'you have reached the maximum number of concurrent E2B sandboxes (20). If you need more, please contact us at https://e2b.dev/docs/getting-help');
  }

  function createSandbox(res: http.ServerResponse, body: Record<string, unknown>): void {
    quota();
    const templateID = typeof body.templateID === 'string' ? body.templateID : 'base';
    const id = 'i' + randomBytes(10).toString('hex');
    const box = new LocalBox({ home: HOME, baseDir, id });
    const sb: StandinSandbox = {
      id, box, templateID,
      metadata: stringRecord(body.metadata),
      envVars: stringRecord(body.envVars),
      token: randomBytes(16).toString('hex'),
      state: 'running',
      autoPause: body.autoPause === true,
      startedAt: new Date(),
      endAt: new Date(),
      procs: new Map(),
    };
    sandboxes.set(id, sb);
    boxes.set(id, box);
    setTtl(sb, Number(body.timeout ?? DEFAULT_TTL_S));
    json(res, 201, sandboxReply(sb));
  }

  /**
   * POST /sandboxes/{id}/fork: `count` (1 to 100) new running sandboxes with the source's files,
   * template and metadata, each its own TTL (`timeout`, default 15 s), in one 201 answer with an
   * entry per fork — a sandbox, or the error that kept that one from starting (over quota: 429
   * each). A paused source is refused whole (409), as the API's "non-201: no fork attempted".
   */
  function forkSandbox(res: http.ServerResponse, source: StandinSandbox, body: Record<string, unknown>): void {
    const count = body.count === undefined ? 1 : Number(body.count);
    if (!Number.isInteger(count) || count < 1 || count > 100) throw new HttpError(400, 'count must be between 1 and 100');
    if (source.state !== 'running') throw new HttpError(409, `Sandbox ${source.id} is not running`);
    const results: object[] = [];
    for (let i = 0; i < count; i++) {
      if (failing === 'quota') {
        results.push({ error: { code: 429, message: 'you have reached the maximum number of concurrent E2B sandboxes (20). If you need more, please contact us at https://e2b.dev/docs/getting-help' } });
        continue;
      }
      const id = 'i' + randomBytes(10).toString('hex');
      const box = new LocalBox({ home: HOME, baseDir, id });
      box.copyFilesFrom(source.box.dir);
      const sb: StandinSandbox = {
        id, box, templateID: source.templateID, metadata: { ...source.metadata }, envVars: { ...source.envVars },
        token: randomBytes(16).toString('hex'), state: 'running', autoPause: source.autoPause, startedAt: new Date(), endAt: new Date(), procs: new Map(),
      };
      sandboxes.set(id, sb);
      boxes.set(id, box);
      forks.push(id);
      setTtl(sb, Number(body.timeout ?? 15));
      results.push({ sandbox: sandboxReply(sb) });
    }
    json(res, 201, results);
  }

  function connectSandbox(res: http.ServerResponse, sb: StandinSandbox, body: Record<string, unknown>): void {
    const resumed = sb.state === 'paused';
    if (resumed) quota();
    sb.state = 'running';
    setTtl(sb, Number(body.timeout ?? DEFAULT_TTL_S));
    json(res, resumed ? 201 : 200, sandboxReply(sb));
  }

  function listSandboxes(res: http.ServerResponse, url: URL): void {
    // `metadata` is `k=v&…` with each key and value URI-encoded, then encoded again as a query value.
    const wanted = [...new URLSearchParams(url.searchParams.get('metadata') ?? '')].map(([k, v]) => [decodeURIComponent(k), decodeURIComponent(v)] as const);
    const states = (url.searchParams.get('state') ?? 'running,paused').split(',');
    const all = [...sandboxes.values()]
      .filter((sb) => states.includes(sb.state) && (unfiltered || wanted.every(([k, v]) => sb.metadata[k] === v)))
      .sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime() || a.id.localeCompare(b.id));
    const start = Number(url.searchParams.get('nextToken') ?? 0) || 0;
    const limit = Number(url.searchParams.get('limit') ?? 100) || 100;
    const page = all.slice(start, start + limit);
    if (start + limit < all.length) res.setHeader('X-Next-Token', String(start + limit));
    json(res, 200, page.map(listed));
  }

  function sandboxReply(sb: StandinSandbox): object {
    return { sandboxID: sb.id, templateID: sb.templateID, clientID: 'standin', envdVersion: ENVD_VERSION, envdAccessToken: sb.token, trafficAccessToken: null, domain: null };
  }

  function listed(sb: StandinSandbox): object {
    return {
      sandboxID: sb.id, templateID: sb.templateID, clientID: 'standin', startedAt: sb.startedAt.toISOString(), endAt: sb.endAt.toISOString(),
      cpuCount: 2, memoryMB: 512, diskSizeMB: 1024, metadata: sb.metadata, state: sb.state, envdVersion: ENVD_VERSION,
    };
  }

  function detail(sb: StandinSandbox): object {
    return { ...listed(sb), envdAccessToken: sb.token, domain: null, lifecycle: { onTimeout: sb.autoPause ? 'pause' : 'kill', autoResume: false } };
  }

  function setTtl(sb: StandinSandbox, seconds: number): void {
    clearTimeout(sb.ttl);
    sb.endAt = new Date(Date.now() + seconds * 1000);
    sb.ttl = setTimeout(() => (sb.autoPause ? pause(sb) : removeSandbox(sb)), seconds * 1000);
    sb.ttl.unref();
  }

  function pause(sb: StandinSandbox): void {
    sb.state = 'paused';
    clearTimeout(sb.ttl);
    dropStreams(sb);
    sb.box.stopAll();
  }

  function removeSandbox(sb: StandinSandbox): void {
    clearTimeout(sb.ttl);
    sandboxes.delete(sb.id);
    boxes.delete(sb.id);
    dropStreams(sb);
    sb.box.destroy();
  }

  /** The proxy's connection to the sandbox is gone: its open streams end without an end envelope. */
  function dropStreams(sb: StandinSandbox): void {
    for (const { res } of sb.procs.values()) res.destroy();
    sb.procs.clear();
  }

  function envd(req: http.IncomingMessage, res: http.ServerResponse, url: URL, body: Buffer, id: string): void {
    const sb = sandboxes.get(id);
    if (!sb || sb.state !== 'running') return json(res, 502, { sandboxId: id, message: 'The sandbox was not found', code: 502 });
    if (req.headers['x-access-token'] !== sb.token) throw new HttpError(401, 'unauthorized access, please provide a valid access token');
    const method = req.method ?? 'GET';
    switch (`${method} ${url.pathname}`) {
      case 'GET /health':
        return void res.writeHead(204).end();
      case 'GET /files':
        return readFile(res, sb, filePath(url));
      case 'POST /files':
        uploads.push(sb.id);
        return void writeFiles(req, res, sb, url, body).catch((err: unknown) => json(res, fileStatus(err), { code: fileStatus(err), message: errorText(err) }));
      case 'POST /process.Process/Start':
        return startProcess(req, res, sb, body);
      case 'POST /process.Process/SendSignal':
        return unary(res, () => sendSignal(sb, parseJson(body)));
      case 'POST /filesystem.Filesystem/Stat':
        return unary(res, () => ({ entry: entryInfo(sb, String(parseJson(body).path ?? '')) }));
      case 'POST /filesystem.Filesystem/MakeDir':
        return unary(res, () => makeDir(sb, String(parseJson(body).path ?? '')));
      case 'POST /filesystem.Filesystem/Remove':
        return unary(res, () => (sb.box.remove(String(parseJson(body).path ?? '')), {}));
      default:
        if (url.pathname.startsWith('/process.') || url.pathname.startsWith('/filesystem.')) throw new RpcError('unimplemented', `${url.pathname} is not in the stand-in`);
        throw new HttpError(404, `no route ${method} ${url.pathname}`);
    }
  }

  function readFile(res: http.ServerResponse, sb: StandinSandbox, abs: string): void {
    let content: Buffer;
    try {
      content = sb.box.readFile(abs);
    } catch (err) {
      return json(res, fileStatus(err), { code: fileStatus(err), message: errorText(err) });
    }
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': content.length }).end(content);
  }

  async function writeFiles(req: http.IncomingMessage, res: http.ServerResponse, sb: StandinSandbox, url: URL, body: Buffer): Promise<void> {
    const written: object[] = [];
    const write = (abs: string, content: Buffer): void => {
      sb.box.writeFile(abs, content);
      written.push({ name: path.posix.basename(abs), type: 'file', path: abs });
    };
    const type = req.headers['content-type'] ?? '';
    if (type.startsWith('multipart/form-data')) {
      // One part per file, all named `file`, the destination path as the part's filename; stops at the first failure.
      const form = await new Request('http://standin/files', { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(body) }).formData();
      for (const part of form.getAll('file')) {
        if (typeof part === 'string') throw new HttpError(400, 'a file part has no file');
        write(resolvePath(url.searchParams.get('path') ?? part.name), Buffer.from(await part.arrayBuffer()));
      }
    } else {
      write(filePath(url), body);
    }
    json(res, 200, written);
  }

  function filePath(url: URL): string {
    const p = url.searchParams.get('path');
    if (!p) throw new HttpError(400, 'path is required');
    return resolvePath(p);
  }

  function entryInfo(sb: StandinSandbox, abs: string): object {
    const st = sb.box.stat(resolvePath(abs));
    if (!st) throw new RpcError('not_found', `no such file or directory: ${abs}`);
    const type = st.isDirectory() ? 'FILE_TYPE_DIRECTORY' : st.isSymbolicLink() ? 'FILE_TYPE_SYMLINK' : 'FILE_TYPE_FILE';
    return {
      name: path.posix.basename(abs), type, path: abs, size: String(st.size), mode: st.mode & 0o7777,
      permissions: '', owner: 'user', group: 'user', modifiedTime: st.mtime.toISOString(),
    };
  }

  function makeDir(sb: StandinSandbox, abs: string): object {
    if (sb.box.stat(abs)) throw new RpcError('already_exists', `directory already exists: ${abs}`);
    sb.box.makeDir(abs);
    return { entry: entryInfo(sb, abs) };
  }

  function sendSignal(sb: StandinSandbox, body: Record<string, unknown>): object {
    const pid = Number((body.process as { pid?: unknown } | undefined)?.pid);
    const entry = sb.procs.get(pid);
    if (!entry) throw new RpcError('not_found', `process with pid ${pid} not found`);
    entry.proc.kill();
    return {};
  }

  function startProcess(req: http.IncomingMessage, res: http.ServerResponse, sb: StandinSandbox, body: Buffer): void {
    const start = parseEnvelope(body) as { process?: { cmd?: string; args?: string[]; envs?: Record<string, string>; cwd?: string } };
    const config = start.process ?? {};
    res.writeHead(200, { 'Content-Type': 'application/connect+json' });
    const send = (message: object, flags = 0): void => {
      if (!res.writableEnded && !res.destroyed) res.write(envelope(message, flags));
    };
    const finish = (error?: { code: string; message: string }): void => {
      if (!res.writableEnded && !res.destroyed) res.end(envelope(error ? { error } : {}, 2));
    };
    const cwd = config.cwd ?? HOME;
    if (!sb.box.stat(cwd)?.isDirectory()) return finish({ code: 'invalid_argument', message: `cwd '${cwd}' does not exist` });
    const args = config.args ?? [];
    const proc = sb.box.run(args.at(-1) ?? '', {
      shell: [config.cmd ?? '/bin/bash', ...args.slice(0, -1)],
      cwd,
      env: { ...sb.envVars, ...config.envs },
      onStdout: (c) => send({ event: { data: { stdout: c.toString('base64') } } }),
      onStderr: (c) => send({ event: { data: { stderr: c.toString('base64') } } }),
    });
    sb.procs.set(proc.pid, { proc, res });
    send({ event: { start: { pid: proc.pid } } });
    const interval = Number(req.headers['keepalive-ping-interval'] ?? 0);
    const keepalive = interval > 0 ? setInterval(() => send({ event: { keepalive: {} } }), interval * 1000) : undefined;
    const timeoutMs = Number(req.headers['connect-timeout-ms'] ?? 0);
    let deadlineHit = false;
    const deadline = timeoutMs > 0 ? setTimeout(() => ((deadlineHit = true), proc.kill()), timeoutMs) : undefined;
    void proc.done.then(({ code, signal }) => {
      clearInterval(keepalive);
      clearTimeout(deadline);
      if (sb.procs.get(proc.pid)?.proc !== proc) return; // dropped with its sandbox
      sb.procs.delete(proc.pid);
      if (deadlineHit) return finish({ code: 'deadline_exceeded', message: 'context deadline exceeded' });
      const status = signal ? `signal: ${signal === 'SIGKILL' ? 'killed' : 'terminated'}` : `exit status ${code ?? -1}`;
      const exitCode = signal ? -1 : (code ?? -1);
      send({ event: { end: { exitCode, exited: !signal, status, ...(exitCode !== 0 ? { error: status } : {}) } } });
      finish();
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    provider: 'e2b',
    env: { E2B_API_KEY: API_KEY, E2B_API_URL: url, E2B_SANDBOX_URL: url },
    boxes,
    requests,
    uploads,
    forks,
    vanish(id) {
      const sb = sandboxes.get(id);
      if (sb) removeSandbox(sb);
    },
    fail(kind) {
      failing = kind;
    },
    ignoreListFilter(on) {
      unfiltered = on;
    },
    relabel(id, labels) {
      const sb = sandboxes.get(id);
      if (sb) sb.metadata = { ...labels };
    },
    async close() {
      for (const sb of [...sandboxes.values()]) removeSandbox(sb);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(baseDir, { recursive: true, force: true });
    },
  };
}

function parseJson(body: Buffer): Record<string, unknown> {
  if (body.length === 0) return {};
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    throw new HttpError(400, 'request body is not JSON');
  }
}

/** A Connect streaming request: one envelope (1 flag byte, 4-byte big-endian length, JSON). */
function parseEnvelope(body: Buffer): Record<string, unknown> {
  if (body.length < 5) throw new RpcError('invalid_argument', 'no request envelope');
  return parseJson(body.subarray(5, 5 + body.readUInt32BE(1)));
}

function envelope(message: object, flags: number): Buffer {
  const payload = Buffer.from(JSON.stringify(message));
  const head = Buffer.alloc(5);
  head.writeUInt8(flags, 0);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

function unary(res: http.ServerResponse, handle: () => object): void {
  let reply: object;
  try {
    reply = handle();
  } catch (err) {
    if (err instanceof BoxFileFailure) throw new RpcError(err.code === 'file_not_found' ? 'not_found' : err.code === 'permission_denied' ? 'permission_denied' : 'invalid_argument', err.message);
    throw err;
  }
  json(res, 200, reply);
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

/** envd resolves a relative path against the user's home. */
function resolvePath(p: string): string {
  return path.posix.isAbsolute(p) ? p : path.posix.join(HOME, p);
}

/** envd's /files statuses: 404 missing; 400 a directory, an invalid or a forbidden path. */
function fileStatus(err: unknown): number {
  if (err instanceof HttpError) return err.status;
  if (err instanceof BoxFileFailure) return err.code === 'file_not_found' ? 404 : 400;
  return 500;
}

function errorText(err: unknown): string {
  if (err instanceof BoxFileFailure && err.code === 'is_directory') return `path '${err.message.replace(/^is a directory: /, '')}' is a directory`;
  return err instanceof Error ? err.message : String(err);
}

function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** The stand-in as the provider table opens it (registry.ts, testing/standins.ts). */
export { startE2bStandin as startStandin };
