// Deno Deploy sandboxes over their official SDK (@deno/sandbox): one WebSocket per sandbox
// object, JSON-RPC for commands and files. The SDK has no command timeout and no idle
// timeout, and "session" sandboxes die with their creator's connection, so: sandboxes are
// made with a duration (reattach works) that each call extends while they are used; a
// command's timeout or cancel is Deepdesk's own, ending the command's process tree; stop
// and remove are the same (the provider deletes a stopped sandbox).

import path from 'node:path';
import type * as DenoSdk from '@deno/sandbox';
import type { Sandbox } from '@deno/sandbox';
import type {
  ProviderCredentials, ProviderSandbox, SandboxExecOptions, SandboxExecResult, SandboxFileDownload, SandboxFileError, SandboxFileUpload, SandboxInfo, SandboxProvider, SandboxSpec,
} from '../provider';
import { credential, DEEPDESK_LABEL, missingCredentials, notDeepdesksSandbox, providerText, requireDeepdesksSandbox, SandboxProviderError } from '../provider';
import { SANDBOX_PROVIDER_TABLE } from '../../process/sandbox-provider-table';

/** The sandbox user's home is /home/app; the folder's files go below it. */
export const DENO_WORKDIR = '/home/app/workspace';
/** How long a sandbox lives past its last use (the most one extension may grant). */
const LIFETIME_MIN = 30;
/** Extend when less than this is left. */
const EXTEND_BELOW_MS = 20 * 60_000;
/** After a TERM, how long the command gets before a KILL; after that, how long its status may take. */
const KILL_GRACE_MS = 2_000;
/** Output still in flight when a command's status arrives (a background child may hold the pipe). */
const OUTPUT_GRACE_MS = 1_000;
/** Files up to this size go in one message; bigger ones are streamed in chunks. */
const INLINE_MAX = 4 * 1024 * 1024;

// The command runs in its own session, so one group kill ends it and everything it started
// (background children too); TERM on the wrapper (a timeout, a cancel) does that kill.
const WRAPPER = [
  'if command -v setsid >/dev/null 2>&1; then setsid bash -c "$1" deepdesk & else bash -c "$1" deepdesk & fi',
  'p=$!',
  'trap \'kill -KILL -- -$p 2>/dev/null; kill -KILL $p 2>/dev/null; exit 143\' TERM INT HUP',
  'wait $p',
].join('\n');

type Sdk = typeof DenoSdk;

interface Connection {
  token: string;
  org?: string;
  apiEndpoint: string;
  sandboxEndpoint: (region: string) => string;
}

export function createDenoProvider(credentials: ProviderCredentials): SandboxProvider {
  const token = credential(credentials, 'DENO_DEPLOY_TOKEN');
  if (!token) throw missingCredentials('deno', ['DENO_DEPLOY_TOKEN']);
  const org = credential(credentials, 'DENO_DEPLOY_ORG');
  // Only an organization token (ddo_…) names its organization.
  if (!token.startsWith('ddo_') && !org) throw missingCredentials('deno', ['DENO_DEPLOY_ORG']);
  const env = credentials.env;
  const sandboxEndpoint = env.DENO_SANDBOX_ENDPOINT;
  const conn: Connection = {
    token,
    org,
    apiEndpoint: env.DENO_DEPLOY_ENDPOINT || 'https://console.deno.com',
    sandboxEndpoint: (region) => sandboxEndpoint || `https://${region}.${env.DENO_SANDBOX_BASE_DOMAIN || 'sandbox-api.deno.net'}`,
  };
  return new DenoProvider(conn);
}

class DenoProvider implements SandboxProvider {
  readonly name = 'deno' as const;
  readonly capabilities = SANDBOX_PROVIDER_TABLE.deno.capabilities;

  constructor(private readonly conn: Connection) {}

  private sdk(): Promise<Sdk> {
    return import('@deno/sandbox');
  }

  private options() {
    return { token: this.conn.token, org: this.conn.org, apiEndpoint: this.conn.apiEndpoint, sandboxEndpoint: this.conn.sandboxEndpoint };
  }

  async create(spec: SandboxSpec, signal?: AbortSignal): Promise<ProviderSandbox> {
    const where = { endpoint: this.conn.sandboxEndpoint('ord') };
    cancelled(signal);
    const { Sandbox } = await this.sdk();
    const sb = await denoCall(
      () =>
        Sandbox.create({
          ...this.options(),
          timeout: `${LIFETIME_MIN}m`,
          labels: { ...spec.labels, deepdesk: '1' },
          ...(spec.memoryGiB ? { memory: `${Math.round(spec.memoryGiB * 1024)}MiB` as const } : {}),
          ...(spec.image ? { root: spec.image } : {}),
        }),
      where,
    );
    const stopAt = Date.now() + LIFETIME_MIN * 60_000;
    try {
      cancelled(signal);
      await sb.fs.mkdir(DENO_WORKDIR, { recursive: true });
    } catch (err) {
      await sb.kill().catch(() => undefined);
      throw denoFailure(err, { ...where, sandboxId: sb.id });
    }
    return new DenoSandbox(sb, this.conn, stopAt);
  }

  async attach(id: string, signal?: AbortSignal): Promise<ProviderSandbox> {
    const sb = await this.connect(id, signal);
    const box = new DenoSandbox(sb, this.conn, 0);
    try {
      await box.keepAlive();
    } catch (err) {
      await sb.close().catch(() => undefined);
      throw err;
    }
    return box;
  }

  async list(signal?: AbortSignal): Promise<SandboxInfo[]> {
    cancelled(signal);
    const { Client } = await this.sdk();
    try {
      const found = await new Client(this.options()).sandboxes.list({ labels: { deepdesk: '1' } });
      // A stopped Deno sandbox is deleted: it stays in the account's history, but is no sandbox to use.
      return found
        .filter((s) => s.status !== 'stopped' && s.labels?.deepdesk === '1')
        .map((s) => ({ id: s.id, provider: 'deno' as const, state: s.status, labels: { ...s.labels }, createdAt: s.createdAt.toISOString() }));
    } catch (err) {
      throw denoFailure(err, { endpoint: this.conn.apiEndpoint });
    }
  }

  async stop(id: string, signal?: AbortSignal): Promise<void> {
    const sb = await this.connect(id, signal);
    try {
      await sb.kill();
    } catch (err) {
      await sb.close().catch(() => undefined);
      throw denoFailure(err, { endpoint: this.endpointOf(id), sandboxId: id });
    }
  }

  remove(id: string, signal?: AbortSignal): Promise<void> {
    return this.stop(id, signal);
  }

  private endpointOf(id: string): string {
    return this.conn.sandboxEndpoint(/^sbx_([a-z]{3})_/.exec(id)?.[1] ?? 'ord');
  }

  /** Deepdesk's sandbox by id (attach, stop, remove): another's is refused before it is connected to. */
  private async connect(id: string, signal?: AbortSignal): Promise<Sandbox> {
    cancelled(signal);
    const { Client, Sandbox } = await this.sdk();
    // Deno's API finds a sandbox's labels only by listing: Deepdesk's are asked for by label and checked here too.
    const listed = await denoCall(() => new Client(this.options()).sandboxes.list({ labels: { [DEEPDESK_LABEL.key]: DEEPDESK_LABEL.value } }), { endpoint: this.conn.apiEndpoint });
    const found = listed.find((s) => s.id === id);
    if (found === undefined) {
      // Not among Deepdesk's: another's sandbox (refused), or none (connecting says it is gone).
      cancelled(signal);
      const any = await new Client(this.options()).sandboxes.list().catch(() => undefined);
      if (any?.some((s) => s.id === id && s.status !== 'stopped')) throw notDeepdesksSandbox('deno', id);
      if (any === undefined) throw notDeepdesksSandbox('deno', id);
    } else {
      requireDeepdesksSandbox('deno', id, found.labels);
    }
    cancelled(signal);
    return denoCall(() => Sandbox.connect(id, this.options()), { endpoint: this.endpointOf(id), sandboxId: id });
  }
}

class DenoSandbox implements ProviderSandbox {
  readonly provider = 'deno' as const;
  readonly workdir = DENO_WORKDIR;

  constructor(
    private readonly sb: Sandbox,
    private readonly conn: Connection,
    /** When the provider will delete the sandbox unless it is extended (ms since the epoch). */
    private stopAt: number,
  ) {}

  get id(): string {
    return this.sb.id;
  }

  private where() {
    return { endpoint: this.conn.sandboxEndpoint(/^sbx_([a-z]{3})_/.exec(this.sb.id)?.[1] ?? 'ord'), sandboxId: this.sb.id };
  }

  /** Moves the sandbox's end past the coming work (a sandbox with a duration ends then, used or not). */
  async keepAlive(): Promise<void> {
    if (this.stopAt - Date.now() > EXTEND_BELOW_MS) return;
    this.stopAt = (await denoCall(() => this.sb.extendTimeout(`${LIFETIME_MIN}m`), this.where())).getTime();
  }

  async execute(command: string, options: SandboxExecOptions): Promise<SandboxExecResult> {
    if (options.signal?.aborted) return { output: '', exitCode: null, timedOut: false };
    await this.keepAlive();
    const child = await denoCall(() => this.sb.spawn('bash', { args: ['-c', WRAPPER, 'deepdesk', command], cwd: options.cwd ?? DENO_WORKDIR, stdout: 'piped', stderr: 'piped' }), this.where());
    let output = '';
    const readers = [child.stdout, child.stderr].flatMap((s) => (s ? [s.getReader()] : []));
    const pumps = readers.map(async (reader) => {
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read();
        const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
        if (text) {
          output += text;
          options.onOutput?.(text);
        }
        if (done) return;
      }
    });
    const pumped = Promise.all(pumps).catch(() => undefined);

    let timedOut = false;
    let ending: NodeJS.Timeout | undefined;
    let settle: (() => void) | undefined;
    const forcedEnd = new Promise<void>((resolve) => (settle = resolve));
    const end = (): void => {
      if (ending) return;
      void child.kill('SIGTERM').catch(() => undefined);
      ending = setTimeout(() => {
        void child.kill('SIGKILL').catch(() => undefined);
        ending = setTimeout(() => settle?.(), KILL_GRACE_MS);
      }, KILL_GRACE_MS);
    };
    const timer = setTimeout(() => ((timedOut = true), end()), options.timeoutMs);
    options.signal?.addEventListener('abort', end, { once: true });
    try {
      // A sandbox that ends mid-run closes the connection: the status rejects.
      await Promise.race([child.status, forcedEnd]);
      await within(pumped, OUTPUT_GRACE_MS);
    } catch (err) {
      throw denoFailure(err, this.where());
    } finally {
      clearTimeout(timer);
      clearTimeout(ending);
      options.signal?.removeEventListener('abort', end);
      for (const reader of readers) void reader.cancel().catch(() => undefined);
    }
    if (options.signal?.aborted && !timedOut) return { output, exitCode: null, timedOut: false };
    if (timedOut) return { output, exitCode: 124, timedOut: true };
    return { output, exitCode: (await child.status).code, timedOut: false };
  }

  async upload(files: readonly SandboxFileUpload[], signal?: AbortSignal): Promise<Array<{ path: string; error?: SandboxFileError }>> {
    cancelled(signal);
    await this.keepAlive();
    const fsApi = this.sb.fs;
    // Parents first (once each), then every file at once: the requests share one connection.
    const parents = [...new Set(files.filter((f) => path.posix.isAbsolute(f.path)).map((f) => path.posix.dirname(f.path)))];
    const parentErrors = new Map<string, unknown>();
    await Promise.all(parents.map((dir) => fsApi.mkdir(dir, { recursive: true }).catch((err: unknown) => void parentErrors.set(dir, err))));
    return Promise.all(
      files.map(async (f) => {
        if (!path.posix.isAbsolute(f.path)) return { path: f.path, error: 'invalid_path' as const };
        const parentError = parentErrors.get(path.posix.dirname(f.path));
        try {
          if (parentError !== undefined) throw parentError;
          const content = f.content.length > INLINE_MAX ? chunked(f.content) : (f.content as Uint8Array<ArrayBuffer>);
          await fsApi.writeFile(f.path, content, f.mode === undefined ? undefined : { mode: f.mode });
          return { path: f.path };
        } catch (err) {
          return { path: f.path, error: this.fileError(err) };
        }
      }),
    );
  }

  async download(paths: readonly string[], signal?: AbortSignal): Promise<SandboxFileDownload[]> {
    cancelled(signal);
    await this.keepAlive();
    return Promise.all(
      paths.map(async (p): Promise<SandboxFileDownload> => {
        if (!path.posix.isAbsolute(p)) return { path: p, error: 'invalid_path' };
        try {
          return { path: p, content: await this.sb.fs.readFile(p) };
        } catch (err) {
          return { path: p, error: this.fileError(err) };
        }
      }),
    );
  }

  /** A file's own failure, or a SandboxProviderError thrown for a failure of the sandbox or the service. */
  private fileError(err: unknown): SandboxFileError {
    const kind = fileErrorOf(err);
    if (kind) return kind;
    throw denoFailure(err, this.where());
  }

  async close(): Promise<void> {
    await this.sb.close().catch(() => undefined);
  }
}

/** Waits for `work`, at most `ms`. */
async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function chunked(content: Uint8Array): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= content.length) return controller.close();
      controller.enqueue(content.subarray(offset, (offset += 64 * 1024)));
    },
  });
}

function cancelled(signal?: AbortSignal): void {
  if (signal?.aborted) throw new SandboxProviderError('Cancelled.', 'failed', 'deno');
}

const FILE_ERRORS: Record<string, SandboxFileError> = {
  NotFound: 'file_not_found', ENOENT: 'file_not_found',
  PermissionDenied: 'permission_denied', EACCES: 'permission_denied', EPERM: 'permission_denied', EROFS: 'permission_denied',
  IsADirectory: 'is_directory', EISDIR: 'is_directory',
  NotADirectory: 'invalid_path', ENOTDIR: 'invalid_path', AlreadyExists: 'invalid_path', EEXIST: 'invalid_path', InvalidData: 'invalid_path',
};

/** The file error a Deno file call reported (`Deno.errors.NotFound`, code ENOENT, …), if it was one. */
function fileErrorOf(err: unknown): SandboxFileError | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as { code?: unknown }).code;
  return FILE_ERRORS[err.name] ?? (typeof code === 'string' ? FILE_ERRORS[code] : undefined);
}

const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'connection refused', ENOTFOUND: 'no such host', EAI_AGAIN: 'no such host', ECONNRESET: 'connection reset',
  ETIMEDOUT: 'timed out', EHOSTUNREACH: 'host unreachable', ENETUNREACH: 'network unreachable', UND_ERR_CONNECT_TIMEOUT: 'timed out',
};


/** The network error code under an SDK error (ws errors carry it; fetch nests it in causes). */
function networkCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code in UNREACHABLE) return code;
  }
  return undefined;
}

/** Any failure of the SDK or the service, in plain words (SPEC §18). */
/** `work()`'s result; its error said as Deno Deploy's (denoFailure). */
async function denoCall<T>(work: () => Promise<T>, where: { endpoint: string; sandboxId?: string }): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw denoFailure(err, where);
  }
}

export function denoFailure(err: unknown, where: { endpoint: string; sandboxId?: string }): SandboxProviderError {
  if (err instanceof SandboxProviderError) return err;
  const fail = (message: string, reason: SandboxProviderError['reason']) => new SandboxProviderError(message, reason, 'deno');
  const gone = () => fail(`The Deno sandbox ${where.sandboxId} is gone (deleted or expired).`, 'gone');
  const e = err instanceof Error ? err : new Error(String(err));
  const netCode = networkCode(e);
  if (netCode) return fail(`Cannot reach Deno Deploy at ${where.endpoint}: ${UNREACHABLE[netCode]}.`, 'unreachable');
  if (e.name === 'InvalidTokenError') return fail('Deno Deploy refused the token (DENO_DEPLOY_TOKEN).', 'auth');
  if (e.name === 'ConnectionClosedError') return where.sandboxId ? gone() : fail(`Deno Deploy closed the connection: ${providerText(e.message)}`, 'failed');
  if (e.name === 'NetworkError') return fail(`Cannot reach Deno Deploy at ${where.endpoint}: ${providerText(e.message)}`, 'unreachable');
  if (e.name === 'TypeError' && /^Invalid sandbox ID/.test(e.message)) return fail(`There is no Deno sandbox ${providerText(where.sandboxId ?? '')}: not a Deno sandbox ID.`, 'gone');
  const status = (e as { status?: unknown }).status;
  if (typeof status === 'number') {
    const { code, message } = serverSaid(e);
    if (status === 401 || code === 'INVALID_TOKEN') return fail('Deno Deploy refused the token (DENO_DEPLOY_TOKEN).', 'auth');
    if (status === 403) return fail(`Deno Deploy does not allow this with the token (DENO_DEPLOY_TOKEN): ${message}`, 'auth');
    if (status === 404 && where.sandboxId) return gone();
    if (status === 402 || status === 429 || /QUOTA|LIMIT/i.test(code)) return fail(`Deno Deploy says the account is out of quota: ${message}`, 'quota');
    if (status === 408 || status === 504) return fail(`Deno Deploy did not answer in time: ${message}`, 'timeout');
    return fail(`Deno Deploy answered ${status}: ${message}`, 'failed');
  }
  if (e.name === 'AbortError' || e.name === 'TimeoutError') return fail(`Deno Deploy did not answer in time (${where.endpoint}).`, 'timeout');
  return fail(`Deno Deploy failed: ${providerText(e.message)}`, 'failed');
}

/** The code and message of a refusal: the SDK keeps them on the error, or (a refused delete) as the response body. */
function serverSaid(e: Error): { code: string; message: string } {
  const code = (e as { code?: unknown }).code;
  const response = (e as { response?: unknown }).response;
  if (typeof response === 'string') {
    try {
      const body = JSON.parse(response) as { code?: unknown; message?: unknown };
      return { code: String(body.code ?? ''), message: providerText(String(body.message ?? response)) };
    } catch {
      return { code: '', message: providerText(response) };
    }
  }
  return { code: typeof code === 'string' ? code : '', message: providerText(e.message) };
}
