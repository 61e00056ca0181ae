// A local stand-in of Daytona for tests: the main API (`/api/sandbox…`, as in daytona/clients
// `openapi-specs/api.json`) and the per-sandbox toolbox (`/toolbox/{id}/…`, as in
// `openapi-specs/toolbox.json` and the daemon `apps/daemon/pkg/toolbox`), with the paths, bodies,
// status codes and error envelopes @daytonaio/sdk 0.218 reads, each sandbox a LocalBox.
// Faithful where the adapter depends on it: the toolbox URL comes from the sandbox record;
// `/process/execute` runs the command as the shell's stdin, gives combined output and, at its timeout, kills the process group and
// answers 408 PROCESS_EXECUTION_TIMEOUT; session logs carry the daemon's 01 01 01 / 02 02 02
// stream markers (JSON and followed over a WebSocket, closed when the command ends or the
// session is deleted); deleting a session ends its commands' whole trees; bulk upload/download
// are the daemon's multipart formats with per-file error parts; quota is the API's 400 "Total
// CPU limit exceeded…", a refused key a 401, an unknown sandbox a 404.
// `/sandbox/{id}/fork` copies the source's files into a new box; one class of sandbox for the
// whole stand-in (options.sandboxClass), so a container class's 422 is there to be met.
// What it cannot show: images and snapshots (every sandbox is the same box), a session's shell
// state between its commands (each command is its own shell), SIGTERM's grace period (deleting a
// session kills at once), users and permissions, resources, auto-stop, the events socket.

import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { BoxFileFailure, LocalBox, type BoxProcess } from './local-box';
import { readBody, type ProviderStandin } from './standin';

const HOME = '/home/daytona';
const STDOUT_MARK = Buffer.from([1, 1, 1]);
const STDERR_MARK = Buffer.from([2, 2, 2]);
const UPGRADE_TIER = "To increase concurrency limits, upgrade your organization's Tier by visiting https://app.daytona.io/dashboard/limits.";

interface Command {
  id: string;
  command: string;
  exitCode?: number;
  log: Buffer[];
  proc?: BoxProcess;
  followers: Set<WebSocket>;
}

interface Session {
  commands: Map<string, Command>;
}

interface Record {
  id: string;
  name: string;
  box: LocalBox;
  labels: { [key: string]: string };
  env: { [key: string]: string };
  cpu: number;
  memory: number;
  disk: number;
  snapshot?: string;
  buildInfo?: { dockerfileContent?: string };
  state: string;
  autoStopInterval: number;
  createdAt: string;
  updatedAt: string;
  sessions: Map<string, Session>;
}

class HttpError extends Error {
  constructor(readonly status: number, readonly body: object) {
    super(String(status));
  }
}

export interface DaytonaStandinOptions {
  /** false: the toolbox has no `/process/session…` routes (404), as a minimal or older daemon. */
  sessions?: boolean;
  /** The class new sandboxes are of: a `container` one cannot fork (422), as the service says of its classes other than VMs. Default a VM. */
  sandboxClass?: 'linux-vm' | 'container';
  /** The account's CPU limit over its sandboxes (each has 1 unless it asks for more): past it, a create or fork is refused as over quota. Default none. */
  cpuLimit?: number;
}

export async function startDaytonaStandin(options: DaytonaStandinOptions = {}): Promise<ProviderStandin> {
  const key = `dtn_${randomUUID().replace(/-/g, '')}`;
  const baseDir = fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-daytona-'));
  const sandboxes = new Map<string, Record>();
  const boxes = new Map<string, LocalBox>();
  const requests: string[] = [];
  const uploads: string[] = [];
  const forks: string[] = [];
  let failing: 'auth' | 'quota' | null = null;
  let unfiltered = false;
  const sockets = new Set<Socket>();

  const server = http.createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      const e = err instanceof HttpError ? err : new HttpError(500, apiError(req, 500, 'An unexpected error occurred.'));
      if (!res.headersSent) send(res, e.status, e.body);
      else res.destroy();
    });
  });
  // As the service's proxies, an idle connection is kept well past the SDK's pause between calls:
  // Node's 5 s default closes one just as a client reuses it (a dropped connection, not Daytona's).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(`WS ${url.pathname}`);
    const reject = (status: number): void => {
      socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    };
    if (!authorized(req)) return reject(401);
    const m = /^\/toolbox\/([^/]+)\/process\/session\/([^/]+)\/command\/([^/]+)\/logs$/.exec(url.pathname);
    const command = m ? sandboxes.get(m[1]!)?.sessions.get(m[2]!)?.commands.get(m[3]!) : undefined;
    if (!command) return reject(404);
    wss.handleUpgrade(req, socket, head, (ws) => {
      for (const chunk of command.log) ws.send(chunk);
      if (command.exitCode !== undefined || url.searchParams.get('follow') !== 'true') return ws.close(1000);
      command.followers.add(ws);
      ws.on('close', () => command.followers.delete(ws));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  function authorized(req: http.IncomingMessage): boolean {
    return failing !== 'auth' && req.headers.authorization === `Bearer ${key}`;
  }

  function apiError(req: http.IncomingMessage, statusCode: number, message: string): object {
    return { path: req.url, timestamp: new Date().toISOString(), statusCode, error: http.STATUS_CODES[statusCode], message };
  }

  function daemonError(req: http.IncomingMessage, statusCode: number, code: string, message: string): object {
    return { statusCode, message, code, source: 'DAYTONA_DAEMON', path: new URL(req.url ?? '/', 'http://x').pathname, method: req.method, timestamp: new Date().toISOString() };
  }

  function dto(r: Record, withDetails = true): object {
    return {
      id: r.id, organizationId: 'org-standin', name: r.name, snapshot: r.snapshot, user: 'daytona',
      ...(withDetails ? { env: r.env, buildInfo: r.buildInfo, volumes: [] } : {}),
      labels: r.labels, public: false, networkBlockAll: false, target: 'us', cpu: r.cpu, gpu: 0, memory: r.memory, disk: r.disk,
      state: r.state, desiredState: r.state === 'stopped' || r.state === 'stopping' ? 'stopped' : 'started',
      autoStopInterval: r.autoStopInterval, autoArchiveInterval: 10080, autoDeleteInterval: -1,
      createdAt: r.createdAt, updatedAt: r.updatedAt, toolboxProxyUrl: `${origin}/toolbox`,
    };
  }

  function transition(r: Record, via: string, to: string, then?: () => void): void {
    r.state = via;
    r.updatedAt = new Date().toISOString();
    setTimeout(() => {
      if (sandboxes.get(r.id) !== r) return;
      then?.();
      r.state = to;
      r.updatedAt = new Date().toISOString();
    }, 30);
  }

  function endSession(session: Session, close: (ws: WebSocket) => void): void {
    for (const c of session.commands.values()) {
      c.proc?.kill();
      for (const ws of c.followers) close(ws);
      c.followers.clear();
    }
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(`${req.method} ${url.pathname}`);
    const body = await readBody(req);
    if (!authorized(req)) throw new HttpError(401, apiError(req, 401, 'Unauthorized'));
    const toolbox = /^\/toolbox\/([^/]+)(\/.*)$/.exec(url.pathname);
    if (toolbox) return handleToolbox(req, res, url, toolbox[1]!, toolbox[2]!, body);
    const api = /^\/api\/sandbox(?:\/([^/]+))?(\/.*)?$/.exec(url.pathname);
    if (!api) throw new HttpError(404, apiError(req, 404, `Cannot ${req.method} ${url.pathname}`));
    const [, idOrName, rest = ''] = api;
    if (!idOrName) {
      if (req.method === 'POST') return send(res, 200, create(req, json(body)));
      if (req.method === 'GET') {
        const wanted = url.searchParams.get('labels') ? (JSON.parse(url.searchParams.get('labels')!) as { [k: string]: string }) : {};
        const items = [...sandboxes.values()].filter((r) => unfiltered || Object.entries(wanted).every(([k, v]) => r.labels[k] === v)).map((r) => dto(r, false));
        return send(res, 200, { items, nextCursor: null });
      }
      throw new HttpError(404, apiError(req, 404, `Cannot ${req.method} ${url.pathname}`));
    }
    const r = sandboxes.get(idOrName) ?? [...sandboxes.values()].find((s) => s.name === idOrName);
    if (!r) throw new HttpError(404, apiError(req, 404, `Sandbox with ID or name ${idOrName} not found`));
    if (req.method === 'GET' && rest === '') return send(res, 200, dto(r));
    if (req.method === 'GET' && rest === '/toolbox-proxy-url') return send(res, 200, { url: `${origin}/toolbox` });
    if (req.method === 'POST' && rest === '/stop') {
      if (r.state !== 'started') throw new HttpError(400, apiError(req, 400, 'Sandbox is not started'));
      transition(r, 'stopping', 'stopped', () => {
        for (const s of r.sessions.values()) endSession(s, (ws) => ws.close(1000));
        r.sessions.clear();
        r.box.stopAll();
      });
      return send(res, 200, dto(r));
    }
    if (req.method === 'POST' && rest === '/start') {
      if (failing === 'quota') throw new HttpError(400, apiError(req, 400, `Total CPU limit exceeded. Maximum allowed: 10.\n${UPGRADE_TIER}`));
      if (r.state === 'started') return send(res, 200, dto(r));
      if (r.state !== 'stopped') throw new HttpError(400, apiError(req, 400, 'Sandbox is not in a valid state to be started'));
      transition(r, 'starting', 'started');
      return send(res, 200, dto(r));
    }
    if (req.method === 'POST' && rest === '/fork') return send(res, 200, fork(req, r, json(body)));
    if (req.method === 'DELETE' && rest === '') {
      destroy(r, (ws) => ws.close(1000));
      return send(res, 200, { ...dto(r), state: 'destroying' });
    }
    throw new HttpError(404, apiError(req, 404, `Cannot ${req.method} ${url.pathname}`));
  }

  /** Refuses a new sandbox of `cpu` CPUs when the account is out of quota or past its CPU limit. */
  function quota(req: http.IncomingMessage, cpu: number): void {
    const limit = options.cpuLimit ?? 10;
    const used = [...sandboxes.values()].reduce((n, r) => n + r.cpu, 0);
    if (failing === 'quota' || (options.cpuLimit !== undefined && used + cpu > limit)) throw new HttpError(400, apiError(req, 400, `Total CPU limit exceeded. Maximum allowed: ${limit}.\n${UPGRADE_TIER}`));
  }

  function create(req: http.IncomingMessage, body: { [k: string]: unknown }): object {
    quota(req, Number(body.cpu ?? 1));
    const id = randomUUID();
    const box = new LocalBox({ home: HOME, baseDir, id });
    const now = new Date().toISOString();
    const r: Record = {
      id, name: typeof body.name === 'string' ? body.name : id, box,
      labels: (body.labels as Record['labels']) ?? {}, env: (body.env as Record['env']) ?? {},
      cpu: Number(body.cpu ?? 1), memory: Number(body.memory ?? 1), disk: Number(body.disk ?? 3),
      snapshot: typeof body.snapshot === 'string' ? body.snapshot : body.buildInfo ? undefined : 'daytonaio/sandbox:standin',
      buildInfo: body.buildInfo as Record['buildInfo'],
      state: 'creating', autoStopInterval: Number(body.autoStopInterval ?? 15), createdAt: now, updatedAt: now, sessions: new Map(),
    };
    sandboxes.set(id, r);
    boxes.set(id, box);
    transition(r, 'creating', 'started');
    return dto(r);
  }

  /**
   * POST /sandbox/{id}/fork (the API's sandbox.service forkSandbox): a new sandbox with the
   * source's files, labels, env and sizes, `creating` then `started`; the source is `forking`
   * meanwhile and back to `started` after. Refused as the service refuses: a sandbox class that
   * cannot fork (422), a source not started (400, a fork under way included), the account out of
   * quota or past its CPU limit (400).
   */
  function fork(req: http.IncomingMessage, source: Record, body: { [k: string]: unknown }): object {
    if ((options.sandboxClass ?? 'linux-vm') !== 'linux-vm') throw new HttpError(422, apiError(req, 422, 'Forking is not supported for this sandbox'));
    if (source.state !== 'started') throw new HttpError(400, apiError(req, 400, 'Sandbox must be in started state to fork'));
    quota(req, source.cpu);
    const id = randomUUID();
    const box = new LocalBox({ home: HOME, baseDir, id });
    box.copyFilesFrom(source.box.dir);
    const now = new Date().toISOString();
    const r: Record = {
      id, name: typeof body.name === 'string' ? body.name : id, box,
      labels: { ...source.labels }, env: { ...source.env }, cpu: source.cpu, memory: source.memory, disk: source.disk,
      snapshot: source.snapshot, buildInfo: source.buildInfo,
      state: 'creating', autoStopInterval: source.autoStopInterval, createdAt: now, updatedAt: now, sessions: new Map(),
    };
    sandboxes.set(id, r);
    boxes.set(id, box);
    forks.push(id);
    transition(source, 'forking', 'started');
    transition(r, 'creating', 'started');
    return dto(r);
  }

  function destroy(r: Record, close: (ws: WebSocket) => void): void {
    for (const s of r.sessions.values()) endSession(s, close);
    r.sessions.clear();
    sandboxes.delete(r.id);
    boxes.delete(r.id);
    r.state = 'destroyed';
    r.box.destroy();
  }

  async function handleToolbox(req: http.IncomingMessage, res: http.ServerResponse, url: URL, id: string, route: string, body: Buffer): Promise<void> {
    const r = sandboxes.get(id);
    if (!r) throw new HttpError(404, { statusCode: 404, message: `sandbox ${id} not found`, code: 'NOT_FOUND', source: 'DAYTONA_PROXY' });
    if (r.state !== 'started') throw new HttpError(400, { statusCode: 400, message: `sandbox ${id} is not started (state: ${r.state})`, code: 'SANDBOX_NOT_STARTED', source: 'DAYTONA_PROXY' });
    const box = r.box;
    const m = req.method;
    if (m === 'GET' && (route === '/work-dir' || route === '/user-home-dir')) return send(res, 200, { dir: HOME });
    if (m === 'POST' && route === '/process/execute') {
      const { command, cwd, envs, timeout } = json(body) as { command?: unknown; cwd?: string; envs?: { [k: string]: string }; timeout?: number };
      // As the daemon (toolbox/process/execute.go): the command is the shell's stdin (no ARG_MAX), in a process group of its own.
      if (typeof command !== 'string') throw new HttpError(400, daemonError(req, 400, 'BAD_REQUEST', 'invalid request body: command is required'));
      if (command.trim() === '') throw new HttpError(400, daemonError(req, 400, 'BAD_REQUEST', 'command cannot be empty or whitespace-only'));
      const out: Buffer[] = [];
      const p = box.run(command, { shell: ['bash'], commandOn: 'stdin', cwd: cwd || HOME, env: envs, onStdout: (c) => out.push(c), onStderr: (c) => out.push(c) });
      let timedOut = false;
      const timer = timeout && timeout > 0 ? setTimeout(() => ((timedOut = true), p.kill()), timeout * 1000) : undefined;
      const { code } = await p.done;
      clearTimeout(timer);
      if (box.gone) return void res.destroy();
      if (timedOut) throw new HttpError(408, daemonError(req, 408, 'PROCESS_EXECUTION_TIMEOUT', 'command execution timeout'));
      return send(res, 200, { exitCode: code ?? -1, result: Buffer.concat(out).toString('utf8') });
    }
    if (options.sessions === false && route.startsWith('/process/session')) throw new HttpError(404, { statusCode: 404, message: `Cannot ${m} ${route}`, error: 'Not Found' });
    if (m === 'POST' && route === '/process/session') {
      const { sessionId } = json(body) as { sessionId: string };
      if (r.sessions.has(sessionId)) throw new HttpError(409, daemonError(req, 409, 'CONFLICT', 'session already exists'));
      r.sessions.set(sessionId, { commands: new Map() });
      return send(res, 201, undefined);
    }
    const s = /^\/process\/session\/([^/]+)(?:\/(exec|command\/([^/]+)(\/logs)?))?$/.exec(route);
    if (s) {
      const sessionId = s[1]!;
      const session = r.sessions.get(sessionId);
      if (!session) throw new HttpError(404, daemonError(req, 404, 'NOT_FOUND', 'session not found'));
      if (m === 'DELETE' && !s[2]) {
        endSession(session, (ws) => ws.close(1000));
        r.sessions.delete(sessionId);
        return send(res, 204, undefined);
      }
      if (m === 'POST' && s[2] === 'exec') {
        const { command, runAsync } = json(body) as { command: string; runAsync?: boolean };
        const c: Command = { id: randomUUID(), command, log: [], followers: new Set() };
        session.commands.set(c.id, c);
        const line = (mark: Buffer) => (chunk: Buffer): void => {
          const framed = Buffer.concat([mark, chunk]);
          c.log.push(framed);
          for (const ws of c.followers) ws.send(framed);
        };
        c.proc = box.run(command, { onStdout: line(STDOUT_MARK), onStderr: line(STDERR_MARK) });
        const done = c.proc.done.then(({ code }) => {
          c.exitCode = code ?? 137;
          for (const ws of c.followers) ws.close(1000);
          c.followers.clear();
        });
        if (runAsync) return send(res, 202, { cmdId: c.id });
        await done;
        if (box.gone) return void res.destroy();
        const logs = demux(c.log);
        return send(res, 200, { cmdId: c.id, exitCode: c.exitCode, ...logs });
      }
      const c = s[3] ? session.commands.get(s[3]) : undefined;
      if (!c) throw new HttpError(404, daemonError(req, 404, 'NOT_FOUND', 'command not found'));
      if (m === 'GET' && !s[4]) return send(res, 200, { id: c.id, command: c.command, ...(c.exitCode === undefined ? {} : { exitCode: c.exitCode }) });
      if (m === 'GET' && s[4]) return send(res, 200, demux(c.log));
    }
    if (m === 'POST' && route === '/files/bulk-upload') {
      uploads.push(id);
      return send(res, ...bulkUpload(req, box, body));
    }
    if (m === 'POST' && route === '/files/bulk-download') return bulkDownload(req, res, box, json(body) as { paths?: string[] });
    throw new HttpError(404, daemonError(req, 404, 'NOT_FOUND', `no route ${m} ${route}`));
  }

  function bulkUpload(req: http.IncomingMessage, box: LocalBox, body: Buffer): [number, object] {
    const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(req.headers['content-type'] ?? '');
    if (!boundary) return [400, { errors: ['invalid multipart form'] }];
    const dests = new Map<string, string>();
    const errors: string[] = [];
    const files: Array<{ path: string; bytes: number }> = [];
    for (const part of parseMultipart(body, (boundary[1] ?? boundary[2])!)) {
      const idx = /^files\[(.*)\]\.(path|file)$/.exec(part.name);
      if (!idx) continue;
      if (idx[2] === 'path') {
        const dest = part.content.toString('utf8').trim();
        if (dest === '') errors.push(`path[${idx[1]}]: empty path`);
        else dests.set(idx[1]!, dest);
        continue;
      }
      const dest = dests.get(idx[1]!);
      if (dest === undefined) {
        errors.push(`file[${idx[1]}]: missing .path metadata`);
        continue;
      }
      const abs = path.posix.resolve(HOME, dest);
      try {
        box.writeFile(abs, part.content);
        files.push({ path: dest, bytes: part.content.length });
      } catch (err) {
        const code = err instanceof BoxFileFailure ? err.code : 'invalid_path';
        const why = { file_not_found: 'no such file or directory', permission_denied: 'permission denied', is_directory: 'is a directory', invalid_path: 'not a directory' }[code];
        errors.push(`${dest}: create: open ${abs}: ${why}`);
      }
    }
    return errors.length > 0 ? [400, { errors, files }] : [200, { files }];
  }

  function bulkDownload(req: http.IncomingMessage, res: http.ServerResponse, box: LocalBox, body: { paths?: string[] }): void {
    if (!body.paths || body.paths.length === 0) throw new HttpError(400, { error: 'request body must be {"paths": [ ... ]} and non-empty' });
    const B = 'DAYTONA-FILE-BOUNDARY';
    const parts: Buffer[] = [];
    const disposition = (name: string, p: string): string => `form-data; name="${name}"; filename="${p}"; filename*=utf-8''${encodeURIComponent(p)}`;
    for (const p of body.paths) {
      let content: Buffer | undefined;
      let error: object | undefined;
      try {
        content = box.readFile(path.posix.resolve(HOME, p));
      } catch (err) {
        const code = err instanceof BoxFileFailure ? err.code : 'invalid_path';
        const [status, c, message] =
          code === 'file_not_found' ? [404, 'FILE_NOT_FOUND', `file not found: ${p}`]
          : code === 'permission_denied' ? [403, 'FILE_ACCESS_DENIED', `permission denied: ${p}`]
          : code === 'is_directory' ? [400, 'INVALID_FILE_PATH', `invalid file path: path points to a directory: ${p}`]
          : [400, 'INVALID_FILE_PATH', `invalid file path: ${p}`];
        error = daemonError(req, status as number, c as string, message as string);
      }
      if (content) {
        parts.push(Buffer.from(`--${B}\r\nContent-Disposition: ${disposition('file', p)}\r\nContent-Length: ${content.length}\r\nContent-Type: application/octet-stream\r\n\r\n`), content, Buffer.from('\r\n'));
      } else {
        parts.push(Buffer.from(`--${B}\r\nContent-Disposition: ${disposition('error', p)}\r\nContent-Type: application/json; charset=utf-8\r\n\r\n${JSON.stringify(error)}\r\n`));
      }
    }
    parts.push(Buffer.from(`--${B}--\r\n`));
    res.writeHead(200, { 'Content-Type': `multipart/form-data; boundary=${B}` });
    res.end(Buffer.concat(parts));
  }

  return {
    provider: 'daytona',
    env: { DAYTONA_API_URL: `${origin}/api`, DAYTONA_API_KEY: key },
    boxes,
    requests,
    uploads,
    forks,
    vanish(id: string): void {
      const r = sandboxes.get(id);
      if (r) destroy(r, (ws) => ws.terminate());
    },
    fail(kind): void {
      failing = kind;
    },
    ignoreListFilter(on): void {
      unfiltered = on;
    },
    relabel(id, labels) {
      const r = sandboxes.get(id);
      if (r) r.labels = { ...labels };
    },
    async close(): Promise<void> {
      for (const r of [...sandboxes.values()]) destroy(r, (ws) => ws.terminate());
      for (const ws of wss.clients) ws.terminate();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(baseDir, { recursive: true, force: true });
    },
  };
}

function send(res: http.ServerResponse, status: number, body: object | undefined): void {
  if (body === undefined) {
    res.writeHead(status);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function json(body: Buffer): { [k: string]: unknown } {
  if (body.length === 0) return {};
  try {
    return JSON.parse(body.toString('utf8')) as { [k: string]: unknown };
  } catch {
    throw new HttpError(400, { statusCode: 400, error: 'Bad Request', message: 'invalid JSON body' });
  }
}

/** The daemon's JSON logs: `output` is the raw log with its stream markers, then each stream. */
function demux(log: Buffer[]): { output: string; stdout: string; stderr: string } {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  for (const framed of log) (framed[0] === 1 ? out : err).push(framed.subarray(3));
  return { output: Buffer.concat(log).toString('utf8'), stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}

function parseMultipart(body: Buffer, boundary: string): Array<{ name: string; content: Buffer }> {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Array<{ name: string; content: Buffer }> = [];
  let at = body.indexOf(delimiter);
  while (at !== -1) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const headerEnd = body.indexOf('\r\n\r\n', start);
    if (headerEnd === -1) break;
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd + 4);
    if (next === -1) break;
    const headers = body.subarray(start, headerEnd).toString('utf8');
    const name = /name="([^"]*)"/i.exec(headers)?.[1] ?? '';
    parts.push({ name, content: body.subarray(headerEnd + 4, next) });
    at = next + 2;
  }
  return parts;
}

/** The stand-in as the provider table opens it (registry.ts, testing/standins.ts). */
export { startDaytonaStandin as startStandin };
