// A local stand-in of Modal's API, for tests only: the two gRPC services the `modal` SDK speaks
// (control plane `modal.client.ModalClient`, and the sandbox's `TaskCommandRouter`, advertised as
// https:// but served in plaintext on the same 127.0.0.1 port, as the SDK allows for localhost),
// served from the SDK's own generated ts-proto definitions, so paths and message shapes are the
// installed SDK's. Every method answers; those Deepdesk does not use answer UNIMPLEMENTED.
// How close: V2 sandbox lifecycle, tags, list paging, exec with stdio as offset-resumable streams
// that end at EOF and outlive the process, an exec ending when its command does while what it
// left running lives on (as in one shared container), `timeout_secs` killing everything the
// exec started, and the private file helper's JSON protocol and error kinds (WriteFile,
// ReadFile, MakeDirectory). Every exec is a process group of the box's daemon, in one pid
// namespace as in a real container. What it cannot show: images (any tag gives the same box: the host's
// /usr, read-only outside /root and /tmp, no network), root's powers, a command's stdin
// streamed while it runs (LocalBox gives it EOF at once), idle timeouts, memory snapshots (a
// filesystem snapshot, TaskSnapshotFilesystem, saves the box's files as an image new sandboxes
// start with), Modal's
// exact error texts (the codes are real: UNAUTHENTICATED, RESOURCE_EXHAUSTED, NOT_FOUND), and
// whether the real service also ends background children at `timeout_secs`.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createServer, ServerError, Status, type CallContext, type Server } from 'nice-grpc';
import { BoxFileFailure, LocalBox, type BoxFileError, type BoxProcess } from './local-box';
import type { ProviderStandin } from './standin';

const HOME = '/root';
const FS_TOOLS = '/__modal/.bin/modal-sandbox-fs-tools';
const TOKEN_ID = 'ak-standin';
const TOKEN_SECRET = 'as-standin-secret';

interface MethodDefinition {
  name: string;
  requestStream: boolean;
  responseStream: boolean;
}
interface ServiceDefinition {
  name: string;
  fullName: string;
  methods: Record<string, MethodDefinition>;
}
type ServiceDefinitionArg = Parameters<Server['add']>[0];

let definitions: Promise<{ client: ServiceDefinition; router: ServiceDefinition }> | undefined;

/** The SDK's own generated service definitions, cut out of its bundle (it does not export them). */
function sdkDefinitions(): Promise<{ client: ServiceDefinition; router: ServiceDefinition }> {
  definitions ??= (async () => {
    const sdkDir = path.dirname(createRequire(import.meta.url).resolve('modal'));
    const src = fs.readFileSync(path.join(sdkDir, 'index.js'), 'utf8');
    const cut = (from: string, to: string): string => {
      const i = src.indexOf(from);
      const j = src.indexOf(to, i);
      if (i < 0 || j < 0) throw new Error(`the modal SDK's bundle has no section ${from}`);
      return src.slice(i, j);
    };
    const wire = cut('// node_modules/@bufbuild/protobuf/', '// src/errors.ts') + cut('// proto/modal_proto/task_command_router.ts', '// src/task_command_router_client.ts');
    // Under a node_modules folder, so the test runner loads it as Node does instead of transforming it.
    const dir = fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-modal-wire-'));
    fs.mkdirSync(path.join(dir, 'node_modules'));
    const file = path.join(dir, 'node_modules', 'modal-wire.mjs');
    fs.writeFileSync(file, wire + '\nexport { ModalClientDefinition, TaskCommandRouterDefinition };\n');
    const mod = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as { ModalClientDefinition: ServiceDefinition; TaskCommandRouterDefinition: ServiceDefinition };
    fs.rmSync(dir, { recursive: true, force: true });
    return { client: mod.ModalClientDefinition, router: mod.TaskCommandRouterDefinition };
  })();
  return definitions;
}

interface Tag {
  tagName: string;
  tagValue: string;
}
interface GenericResult {
  status: number;
  exitcode?: number;
}
const TERMINATED = 3;
const TIMEOUT = 4;

interface StandinSandbox {
  id: string;
  taskId: string;
  appId: string;
  box: LocalBox;
  tags: Tag[];
  createdAt: number;
  env: Record<string, string>;
  workdir: string;
  result?: GenericResult;
  vanished: boolean;
  timer?: NodeJS.Timeout;
}

interface Exec {
  sandbox: StandinSandbox;
  out: Buffer[];
  err: Buffer[];
  stdin: Buffer[];
  stdinClosed: boolean;
  proc?: BoxProcess;
  exit?: { code?: number; signal?: number };
  changed: Set<() => void>;
  /** Runs the file helper once stdin is closed (WriteFile). */
  onStdinClosed?: () => void;
}

type Handler = (request: unknown, context: CallContext) => unknown;

function b64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export async function startModalStandin(): Promise<ProviderStandin> {
  const { client, router } = await sdkDefinitions();
  const baseDir = fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-modal-standin-'));
  const sandboxes = new Map<string, StandinSandbox>();
  const boxes = new Map<string, LocalBox>();
  const execs = new Map<string, Exec>();
  const apps = new Map<string, string>();
  const images = new Set<string>();
  const requests: string[] = [];
  const uploads: string[] = [];
  const forks: string[] = [];
  /** Filesystem snapshots by image id: the saved files new sandboxes of that image start with. */
  const snapshots = new Map<string, string>();
  let failing: 'auth' | 'quota' | null = null;
  let unfiltered = false;
  let port = 0;
  let serial = 0;
  const jwt = `${b64url({ alg: 'none' })}.${b64url({ exp: Math.floor(Date.now() / 1000) + 24 * 3600 })}.standin`;
  const routerAccess = (): { url: string; jwt: string } => ({ url: `https://127.0.0.1:${port}`, jwt });

  const notFound = (what: string): ServerError => new ServerError(Status.NOT_FOUND, what);
  const sandboxOf = (id: string): StandinSandbox => {
    const s = sandboxes.get(id);
    if (!s) throw notFound(`Sandbox ${id} not found`);
    return s;
  };
  const running = (taskId: string): StandinSandbox => {
    const s = [...sandboxes.values()].find((x) => x.taskId === taskId);
    if (!s) throw notFound(`Task ${taskId} not found`);
    if (s.result) throw new ServerError(Status.FAILED_PRECONDITION, `Task ${taskId} has finished`);
    return s;
  };
  const execOf = (execId: string): Exec => {
    const e = execs.get(execId);
    if (!e || e.sandbox.vanished) throw notFound(`Exec ${execId} not found`);
    return e;
  };
  const changed = (e: Exec): void => {
    for (const f of [...e.changed]) f();
  };
  /** Resolves at the exec's next change, or rejects when the call is cancelled. */
  const nextChange = (e: Exec, signal: AbortSignal): Promise<void> =>
    new Promise((resolve, reject) => {
      const done = (): void => {
        e.changed.delete(done);
        signal.removeEventListener('abort', done);
        if (signal.aborted) reject(new ServerError(Status.CANCELLED, 'cancelled'));
        else resolve();
      };
      e.changed.add(done);
      signal.addEventListener('abort', done, { once: true });
    });

  /** Ends a sandbox's commands; `vanished` ones answer NOT_FOUND from then on. */
  const end = (s: StandinSandbox, result: GenericResult | 'vanished'): void => {
    if (s.timer) clearTimeout(s.timer);
    if (result === 'vanished') {
      s.vanished = true;
      sandboxes.delete(s.id);
    } else s.result ??= result;
    boxes.delete(s.id);
    if (!s.box.gone) s.box.destroy();
    for (const e of execs.values()) if (e.sandbox === s) changed(e);
  };

  // ---- the file helper (/__modal/.bin/modal-sandbox-fs-tools), run in the stand-in ----
  const ERROR_KINDS: Record<BoxFileError, string> = { file_not_found: 'NotFound', is_directory: 'IsDirectory', permission_denied: 'PermissionDenied', invalid_path: 'NotDirectory' };
  const finish = (e: Exec, exit: { code?: number; signal?: number }): void => {
    e.exit ??= exit;
    changed(e);
  };
  const fsTool = (e: Exec, argument: string | undefined): void => {
    const fail = (kind: string, message: string): void => {
      e.err.push(Buffer.from(JSON.stringify({ error_kind: kind, message, detail: '' })));
      finish(e, { code: 1 });
    };
    const attempt = (op: () => void): void => {
      try {
        op();
        finish(e, { code: 0 });
      } catch (err) {
        if (err instanceof BoxFileFailure) fail(ERROR_KINDS[err.code], err.message);
        else fail('Other', err instanceof Error ? err.message : String(err));
      }
    };
    let command: Record<string, { path?: string; parents?: boolean }>;
    try {
      command = JSON.parse(argument ?? '') as typeof command;
    } catch {
      return fail('InvalidArgument', 'the command is not JSON');
    }
    const [op, args] = Object.entries(command)[0] ?? [];
    const target = args?.path ?? '';
    const box = e.sandbox.box;
    if (op === 'WriteFile') uploads.push(e.sandbox.id);
    if (op === 'WriteFile') e.onStdinClosed = () => attempt(() => box.writeFile(target, Buffer.concat(e.stdin)));
    else if (op === 'ReadFile') setImmediate(() => attempt(() => e.out.push(box.readFile(target))));
    else if (op === 'MakeDirectory') setImmediate(() => attempt(() => box.makeDir(target)));
    else setImmediate(() => fail('NotSupported', `the stand-in does not do ${String(op)}`));
  };

  // ---- control plane ----
  const controlPlane: Record<string, Handler> = {
    authTokenGet: (_req, ctx) => {
      if (ctx.metadata.get('x-modal-token-id') !== TOKEN_ID || ctx.metadata.get('x-modal-token-secret') !== TOKEN_SECRET) {
        throw new ServerError(Status.UNAUTHENTICATED, 'Token ID or secret is invalid');
      }
      return { token: jwt };
    },
    appGetOrCreate: (req) => {
      const name = (req as { appName: string }).appName;
      if (!apps.has(name)) apps.set(name, `ap-${++serial}`);
      return { appId: apps.get(name) };
    },
    environmentGetOrCreate: () => ({ environmentId: 'en-standin', metadata: { name: 'main', settings: { imageBuilderVersion: '2024.10', webhookSuffix: '' } } }),
    imageGetOrCreate: () => {
      const imageId = `im-${++serial}`;
      images.add(imageId);
      return { imageId, result: { status: 1 } };
    },
    imageFromId: (req) => {
      const imageId = (req as { imageId: string }).imageId;
      if (!images.has(imageId)) throw notFound(`Image ${imageId} not found`);
      return { imageId };
    },
    sandboxCreateV2: (req) => {
      if (failing === 'quota') throw new ServerError(Status.RESOURCE_EXHAUSTED, 'Workspace has reached its limit of concurrent sandboxes');
      const r = req as { appId: string; definition?: { workdir?: string; timeoutSecs?: number; imageId?: string }; tags: Tag[]; secretSources: Array<{ env?: { contents: Record<string, string> } }> };
      const imageId = r.definition?.imageId ?? '';
      if (imageId !== '' && !images.has(imageId)) throw notFound(`Image ${imageId} not found`);
      const id = `sb-v2-${Date.now().toString(36)}${++serial}`;
      const box = new LocalBox({ home: HOME, baseDir, id: id.replace(/[^a-z0-9-]/gi, '') });
      // An image of a filesystem snapshot: the sandbox starts with the files it saved.
      const saved = snapshots.get(imageId);
      if (saved !== undefined) {
        box.copyFilesFrom(saved);
        forks.push(id);
      }
      const workdir = r.definition?.workdir ?? '/';
      if (workdir !== '/') box.makeDir(workdir);
      const s: StandinSandbox = {
        id, taskId: `ta-${serial}`, appId: r.appId, box, tags: r.tags, createdAt: Date.now() / 1000, workdir, vanished: false,
        env: Object.assign({}, ...r.secretSources.map((x) => x.env?.contents ?? {})) as Record<string, string>,
      };
      const secs = r.definition?.timeoutSecs || 300;
      s.timer = setTimeout(() => end(s, { status: TIMEOUT }), secs * 1000);
      s.timer.unref();
      sandboxes.set(id, s);
      boxes.set(id, box);
      return { sandboxId: id, taskId: s.taskId, commandRouterAccess: routerAccess() };
    },
    sandboxGetTaskIdV2: (req) => {
      const s = sandboxOf((req as { sandboxId: string }).sandboxId);
      return s.result ? { taskResult: s.result } : { taskId: s.taskId };
    },
    sandboxGetCommandRouterAccess: (req) => {
      sandboxOf((req as { sandboxId: string }).sandboxId);
      return routerAccess();
    },
    sandboxWaitV2: async (req, ctx) => {
      const r = req as { sandboxId: string; timeout: number };
      const s = sandboxOf(r.sandboxId);
      const until = Date.now() + Math.min(r.timeout, 10) * 1000;
      while (!s.result && !s.vanished && Date.now() < until && !ctx.signal.aborted) await new Promise((f) => setTimeout(f, 50));
      if (s.vanished) throw notFound(`Sandbox ${s.id} not found`);
      return s.result ? { result: s.result, metadata: { appId: s.appId } } : {};
    },
    sandboxTerminateV2: (req) => {
      const s = sandboxOf((req as { sandboxId: string }).sandboxId);
      const existing = s.result;
      end(s, { status: TERMINATED });
      return existing ? { existingResult: existing } : {};
    },
    sandboxListV2: (req) => {
      const r = req as { appId: string; beforeTimestamp: number; includeFinished: boolean; tags: Tag[] };
      const found = [...sandboxes.values()]
        .filter((s) => unfiltered || ((!r.appId || s.appId === r.appId) && (r.includeFinished || !s.result)))
        .filter((s) => unfiltered || r.tags.every((t) => s.tags.some((u) => u.tagName === t.tagName && u.tagValue === t.tagValue)))
        .filter((s) => !r.beforeTimestamp || s.createdAt < r.beforeTimestamp)
        .sort((a, b) => b.createdAt - a.createdAt);
      return { sandboxes: found.map((s) => ({ id: s.id, createdAt: s.createdAt, appId: s.appId, tags: s.tags })) };
    },
    sandboxTagsGetV2: (req) => ({ tags: sandboxOf((req as { sandboxId: string }).sandboxId).tags }),
    sandboxTagsSetV2: (req) => {
      const r = req as { sandboxId: string; tags: Tag[] };
      sandboxOf(r.sandboxId).tags = r.tags;
      return {};
    },
  };

  // ---- the sandbox's command router ----
  type ExecStart = { taskId: string; execId: string; commandArgs: string[]; stdoutConfig: number; stderrConfig: number; timeoutSecs?: number; workdir?: string; env: Record<string, string>; secretSources: Array<{ env?: { contents: Record<string, string> } }> };
  const commandRouter: Record<string, Handler> = {
    // Sandbox.snapshotFilesystem: the running sandbox's files saved as a new image (one that has finished is refused, FAILED_PRECONDITION).
    taskSnapshotFilesystem: (req) => {
      const sandbox = running((req as { taskId: string }).taskId);
      const imageId = `im-${++serial}`;
      const dir = path.join(baseDir, `snapshot-${imageId}`);
      sandbox.box.saveFiles(dir);
      images.add(imageId);
      snapshots.set(imageId, dir);
      return { imageId };
    },
    taskExecStart: (req) => {
      const r = req as ExecStart;
      const sandbox = running(r.taskId);
      if (execs.has(r.execId)) throw new ServerError(Status.ALREADY_EXISTS, `Exec ${r.execId} already exists`);
      const e: Exec = { sandbox, out: [], err: [], stdin: [], stdinClosed: false, changed: new Set() };
      execs.set(r.execId, e);
      if (r.commandArgs[0] === FS_TOOLS) {
        fsTool(e, r.commandArgs[1]);
        return {};
      }
      const take = (into: Buffer[] | undefined) => (chunk: Buffer) => {
        into?.push(chunk);
        changed(e);
      };
      const env = Object.assign({}, sandbox.env, ...r.secretSources.map((x) => x.env?.contents ?? {}), r.env) as Record<string, string>;
      // The exec ends when its command does; what it left running lives on, as in a shared
      // container (a box's processes would otherwise all end with its first one).
      const statusFile = `/tmp/.standin-exit-${r.execId.replace(/[^\w-]/g, '')}`;
      // The box's daemon ends a command's process group with it: the launcher, its leader,
      // stays while anything else in its group does (never the box's other commands).
      const launcher = [
        `"$@"; echo $? > ${statusFile}`,
        'g=$$; while :; do o=; for f in /proc/[0-9]*/stat; do [ "$f" = "/proc/$g/stat" ] && continue; read -r s 2>/dev/null < "$f" || continue; s=${s##*) }; set -- $s; [ "$3" = "$g" ] && { o=1; break; }; done; [ -z "$o" ] && break; sleep 0.1; done',
      ].join('; ');
      const args = r.commandArgs;
      const proc = sandbox.box.run(args[args.length - 1] ?? 'true', {
        shell: ['bash', '-c', launcher, 'standin', ...args.slice(0, -1)],
        cwd: r.workdir || sandbox.workdir,
        env,
        onStdout: take(r.stdoutConfig === 1 ? e.out : undefined),
        onStderr: take(r.stderrConfig === 2 ? e.out : r.stderrConfig === 1 ? e.err : undefined),
      });
      e.proc = proc;
      const status = path.join(sandbox.box.dir, statusFile);
      const exitCode = (): number | undefined => {
        try {
          const text = fs.readFileSync(status, 'utf8').trim();
          return text === '' ? undefined : Number(text);
        } catch {
          return undefined;
        }
      };
      // Usually the box ends with the command (its output all read by then); when something it
      // left holds the box open, the exit counts once its output has had a moment to arrive.
      let seenAt = 0;
      const watch = setInterval(() => {
        const code = exitCode();
        if (code === undefined) return;
        seenAt ||= Date.now();
        if (Date.now() - seenAt >= 100) finish(e, { code });
      }, 20);
      const timer = r.timeoutSecs ? setTimeout(() => proc.kill(), r.timeoutSecs * 1000) : undefined;
      void proc.done.then(() => {
        clearInterval(watch);
        if (timer) clearTimeout(timer);
        const code = exitCode();
        finish(e, code === undefined ? { signal: 9 } : { code });
      });
      return {};
    },
    taskExecStdioRead: async function* (req: unknown, ctx: CallContext) {
      const r = req as { execId: string; offset: number; fileDescriptor: number };
      const e = execOf(r.execId);
      let offset = Number(r.offset);
      for (;;) {
        if (e.sandbox.vanished) throw notFound(`Task ${e.sandbox.taskId} not found`);
        const all = Buffer.concat(r.fileDescriptor === 0 ? e.out : e.err);
        if (all.length > offset) {
          yield { data: all.subarray(offset) };
          offset = all.length;
          continue;
        }
        if (e.exit) return;
        await nextChange(e, ctx.signal);
      }
    } as Handler,
    taskExecWait: async (req, ctx) => {
      const e = execOf((req as { execId: string }).execId);
      for (;;) {
        if (e.sandbox.vanished) throw notFound(`Task ${e.sandbox.taskId} not found`);
        if (e.exit) return e.exit;
        await nextChange(e, ctx.signal);
      }
    },
    taskExecPoll: (req) => execOf((req as { execId: string }).execId).exit ?? {},
    taskExecStdinWriteStream: async (req) => {
      let e: Exec | undefined;
      for await (const part of req as AsyncIterable<{ start?: { execId: string }; data?: Uint8Array; end?: object }>) {
        if (part.start) e = execOf(part.start.execId);
        else if (!e) throw new ServerError(Status.INVALID_ARGUMENT, 'the stream did not start with start');
        else if (part.data) e.stdin.push(Buffer.from(part.data));
        else if (part.end) closeStdin(e);
      }
      return {};
    },
    taskExecStdinWrite: (req) => {
      const r = req as { execId: string; data: Uint8Array; eof: boolean };
      const e = execOf(r.execId);
      if (r.data.length) e.stdin.push(Buffer.from(r.data));
      if (r.eof) closeStdin(e);
      return {};
    },
    taskExecStdinStatus: (req) => {
      const e = execOf((req as { execId: string }).execId);
      return { numBytesWritten: e.stdin.reduce((n, b) => n + b.length, 0), closed: e.stdinClosed };
    },
  };
  const closeStdin = (e: Exec): void => {
    if (e.stdinClosed) return;
    e.stdinClosed = true;
    e.onStdinClosed?.();
  };

  const serve = (definition: ServiceDefinition, handlers: Record<string, Handler>, checkAuth: (ctx: CallContext, method: string) => void): Record<string, Handler> =>
    Object.fromEntries(
      Object.entries(definition.methods).map(([key, method]) => {
        const handler = handlers[key];
        const guard = (ctx: CallContext): void => {
          requests.push(method.name);
          if (!handler) throw new ServerError(Status.UNIMPLEMENTED, `${method.name} is not implemented by the stand-in`);
          checkAuth(ctx, method.name);
        };
        const wrapped: Handler = method.responseStream
          ? async function* (req: unknown, ctx: CallContext) {
              guard(ctx);
              yield* handler!(req, ctx) as AsyncIterable<unknown>;
            }
          : async (req: unknown, ctx: CallContext) => {
              guard(ctx);
              return await handler!(req, ctx);
            };
        return [key, wrapped];
      }),
    );
  const refused = (): ServerError => new ServerError(Status.UNAUTHENTICATED, 'Token ID or secret is invalid');
  const server = createServer();
  server.add(
    client as unknown as ServiceDefinitionArg,
    serve(client, controlPlane, (ctx, method) => {
      if (failing === 'auth') throw refused();
      if (method !== 'AuthTokenGet' && ctx.metadata.get('x-modal-auth-token') !== jwt) throw refused();
    }) as never,
  );
  server.add(
    router as unknown as ServiceDefinitionArg,
    serve(router, commandRouter, (ctx) => {
      if (failing === 'auth' || ctx.metadata.get('authorization') !== `Bearer ${jwt}`) throw refused();
    }) as never,
  );
  port = await server.listen('127.0.0.1:0');

  return {
    provider: 'modal',
    env: {
      MODAL_SERVER_URL: `http://127.0.0.1:${port}`,
      MODAL_TOKEN_ID: TOKEN_ID,
      MODAL_TOKEN_SECRET: TOKEN_SECRET,
      // The SDK reads ~/.modal.toml at load; a profile there must not mix into the tests.
      MODAL_CONFIG_PATH: path.join(baseDir, 'no-modal.toml'),
    },
    boxes,
    requests,
    uploads,
    forks,
    vanish(id) {
      const s = sandboxes.get(id);
      if (s) end(s, 'vanished');
    },
    fail(kind) {
      failing = kind;
    },
    ignoreListFilter(on) {
      unfiltered = on;
    },
    relabel(id, labels) {
      const s = sandboxes.get(id);
      if (s) s.tags = Object.entries(labels).map(([tagName, tagValue]) => ({ tagName, tagValue }));
    },
    async close() {
      for (const s of [...sandboxes.values()]) end(s, 'vanished');
      server.forceShutdown();
      fs.rmSync(baseDir, { recursive: true, force: true });
    },
  };
}

/** The stand-in as the provider table opens it (registry.ts, testing/standins.ts). */
export { startModalStandin as startStandin };
