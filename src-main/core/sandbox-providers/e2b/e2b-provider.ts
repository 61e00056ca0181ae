// E2B (SPEC §18) over its official SDK, `e2b`, loaded on first use. A sandbox's TTL is
// absolute, so it is created to pause (not die) at its end and each command pushes the end
// out: together that is an idle timeout that keeps the files. envd ends only a command's own
// process at its deadline, and `kill` signals only that pid; it starts each command in its
// own process group, so a timeout or a cancel here ends the group (background children too).

import type * as E2bSdk from 'e2b';
import type { Sandbox as E2bSandbox } from 'e2b';
import type {
  ProviderCredentials, ProviderSandbox, SandboxExecOptions, SandboxExecResult, SandboxFileDownload, SandboxFileError, SandboxFileUpload, SandboxInfo, SandboxProvider, SandboxSpec,
} from '../provider';
import { byteGroups } from '../../text/byte-groups';
import { shQuote } from '../../text/shell-quote';
import { SandboxProviderError, credential, missingCredentials, providerText, requireDeepdesksSandbox } from '../provider';
import { SANDBOX_PROVIDER_TABLE } from '../../process/sandbox-provider-table';

type Sdk = typeof E2bSdk;
type SandboxClass = typeof E2bSandbox;

const USER_HOME = '/home/user';
const WORKDIR = `${USER_HOME}/workspace`;
const DEFAULT_TEMPLATE = 'base';
const DEFAULT_IDLE_MIN = 60;
/** The SDK's own deadline on a command, past ours, in case this process cannot end it. */
const DEADLINE_SLACK_MS = 30_000;
/** How long an ended command's stream may take to close before it is let go. */
const END_GRACE_MS = 5_000;
const DOWNLOADS_AT_ONCE = 8;
/** A chmod command line's paths, well under ARG_MAX. */
const CHMOD_ARGS_BYTES = 64 * 1024;

interface Client {
  sdk: Sdk;
  Sandbox: SandboxClass;
}

interface Context {
  client: () => Promise<Client>;
  apiUrl: string;
  sandboxUrl: string;
  idleMs: (spec?: SandboxSpec) => number;
}

export function createE2bProvider(credentials: ProviderCredentials): SandboxProvider {
  const apiKey = credential(credentials, 'E2B_API_KEY');
  if (!apiKey) throw missingCredentials('e2b', ['E2B_API_KEY']);
  const env = credentials.env;
  const domain = credential(credentials, 'E2B_DOMAIN');
  const apiUrl = env.E2B_API_URL || undefined;
  const sandboxUrl = env.E2B_SANDBOX_URL || undefined;
  let loading: Promise<Client> | undefined;
  const ctx: Context = {
    client: () =>
      (loading ??= import('e2b').then((sdk) => ({ sdk, Sandbox: new sdk.E2B({ apiKey, apiUrl, sandboxUrl, domain }).Sandbox }))),
    apiUrl: apiUrl ?? `https://api.${domain ?? 'e2b.app'}`,
    sandboxUrl: sandboxUrl ?? `https://sandbox.${domain ?? 'e2b.app'}`,
    idleMs: (spec) => (spec?.idleTimeoutMin ?? DEFAULT_IDLE_MIN) * 60_000,
  };

  const api = async <T>(signal: AbortSignal | undefined, id: string | undefined, call: (c: Client) => Promise<T>): Promise<T> => {
    const c = await ctx.client();
    try {
      return await call(c);
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      throw providerError(c.sdk, err, ctx.apiUrl, id);
    }
  };

  /** Refuses, before anything is done to it, a sandbox of the account that is not Deepdesk's (attach, stop, remove). */
  const ours = async (signal: AbortSignal | undefined, id: string): Promise<void> => {
    const info = await api(signal, id, ({ Sandbox }) => Sandbox.getInfo(id, { signal }));
    requireDeepdesksSandbox('e2b', id, info.metadata);
  };

  return {
    name: 'e2b',
    capabilities: SANDBOX_PROVIDER_TABLE.e2b.capabilities,

    async create(spec, signal) {
      const idleMs = ctx.idleMs(spec);
      const sb = await api(signal, undefined, ({ Sandbox }) =>
        Sandbox.create(spec.image ?? DEFAULT_TEMPLATE, { metadata: { ...spec.labels, deepdesk: '1' }, timeoutMs: idleMs, lifecycle: { onTimeout: 'pause' }, signal }));
      const sandbox = new E2bProviderSandbox(await ctx.client(), sb, ctx, idleMs);
      try {
        await sb.files.makeDir(WORKDIR, { signal });
      } catch (err) {
        await sb.kill().catch(() => undefined);
        if (signal?.aborted) throw signal.reason;
        throw await sandbox.failure(err);
      }
      return sandbox;
    },

    async attach(id, signal) {
      await ours(signal, id);
      const idleMs = ctx.idleMs();
      const sb = await api(signal, id, ({ Sandbox }) => Sandbox.connect(id, { timeoutMs: idleMs, signal }));
      return new E2bProviderSandbox(await ctx.client(), sb, ctx, idleMs);
    },

    async list(signal) {
      return api(signal, undefined, async ({ Sandbox }) => {
        const pager = Sandbox.list({ query: { metadata: { deepdesk: '1' }, state: ['running', 'paused'] } });
        const found: SandboxInfo[] = [];
        while (pager.hasNext) {
          for (const info of await pager.nextItems({ signal })) {
            if (info.metadata?.deepdesk !== '1') continue; // asked by metadata, checked here too
            found.push({ id: info.sandboxId, provider: 'e2b', state: info.state === 'paused' ? 'stopped' : info.state, labels: { ...info.metadata }, createdAt: info.startedAt.toISOString() });
          }
        }
        return found;
      });
    },

    async stop(id, signal) {
      await ours(signal, id);
      await api(signal, id, ({ Sandbox }) => Sandbox.pause(id, { signal }));
    },

    async remove(id, signal) {
      await ours(signal, id);
      const removed = await api(signal, id, ({ Sandbox }) => Sandbox.kill(id, { signal }));
      if (!removed) throw gone(id);
    },

    // Sandbox.fork: the running sandbox is checkpointed in place once and `count` sandboxes boot
    // from it, each with the source's files and metadata and its own TTL (the idle timeout, as
    // `create` gives); each fork succeeds or fails on its own, so those made go when one failed.
    async fork(id, count, spec, signal) {
      await ours(signal, id);
      const idleMs = ctx.idleMs(spec);
      const results = await api(signal, id, ({ Sandbox }) => Sandbox.fork(id, { count, timeoutMs: idleMs, signal }));
      const c = await ctx.client();
      const made = results.filter((r): r is E2bSandbox => !(r instanceof Error));
      const failed = results.find((r): r is Error => r instanceof Error);
      if (failed !== undefined || made.length !== count) {
        await Promise.all(made.map((sb) => sb.kill().catch(() => undefined)));
        throw failed !== undefined ? providerError(c.sdk, failed, ctx.apiUrl) : new SandboxProviderError(`E2B made ${made.length} of the ${count} forks of sandbox ${id}.`, 'failed', 'e2b');
      }
      return made.map((sb) => new E2bProviderSandbox(c, sb, ctx, idleMs));
    },
  };
}

class E2bProviderSandbox implements ProviderSandbox {
  readonly provider = 'e2b' as const;
  readonly workdir = WORKDIR;
  readonly id: string;
  /** When the sandbox pauses unless a command pushes it out (its TTL, from now at create/attach). */
  private endsAt: number;

  constructor(
    private readonly client: Client,
    private readonly sb: E2bSandbox,
    private readonly ctx: Context,
    private readonly idleMs: number,
  ) {
    this.id = sb.sandboxId;
    this.endsAt = Date.now() + idleMs;
  }

  async execute(command: string, options: SandboxExecOptions): Promise<SandboxExecResult> {
    const { signal } = options;
    if (signal?.aborted) return { output: '', exitCode: null, timedOut: false };
    await this.keepAlive(options.timeoutMs);
    let output = '';
    const take = (text: string): void => {
      output += text;
      options.onOutput?.(text);
    };
    const handle = await this.called(() => this.sb.commands.run(command, { background: true, cwd: options.cwd ?? WORKDIR, timeoutMs: options.timeoutMs + DEADLINE_SLACK_MS, onStdout: take, onStderr: take }));
    let ended: 'timeout' | 'cancel' | undefined;
    const end = (why: 'timeout' | 'cancel'): void => {
      if (ended) return;
      ended = why;
      void this.endTree(handle.pid).then(() => setTimeout(() => void handle.disconnect(), END_GRACE_MS).unref());
    };
    const timer = setTimeout(() => end('timeout'), options.timeoutMs);
    const onAbort = (): void => end('cancel');
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    let exitCode: number | null = null;
    try {
      exitCode = (await handle.wait()).exitCode;
    } catch (err) {
      if (!ended) {
        if (!(err instanceof this.client.sdk.CommandExitError)) throw await this.failure(err);
        exitCode = shellExitCode(err.exitCode, err.error);
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
    if (ended === 'timeout') return { output, exitCode: 124, timedOut: true };
    if (ended === 'cancel') return { output, exitCode: null, timedOut: false };
    return { output, exitCode, timedOut: false };
  }

  async upload(files: readonly SandboxFileUpload[], signal?: AbortSignal): Promise<Array<{ path: string; error?: SandboxFileError }>> {
    if (files.length === 0) return [];
    const results: Array<{ path: string; error?: SandboxFileError }> = files.map((f) => ({ path: f.path }));
    try {
      await this.sb.files.write(files.map((f) => ({ path: f.path, data: blob(f.content) })), { signal });
    } catch (err) {
      if (!this.isFileError(err)) throw await this.failure(err, signal);
      // envd stops a batch at its first failing file: write each again to learn which ones fail.
      for (const [i, f] of files.entries()) {
        try {
          await this.sb.files.write(f.path, blob(f.content), { signal });
        } catch (one) {
          if (!this.isFileError(one)) throw await this.failure(one, signal);
          results[i]!.error = await this.fileError(one, f.path);
        }
      }
    }
    await this.applyModes(files.filter((f, i) => f.mode !== undefined && !results[i]!.error), signal);
    return results;
  }

  async download(paths: readonly string[], signal?: AbortSignal): Promise<SandboxFileDownload[]> {
    const results: SandboxFileDownload[] = new Array(paths.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < paths.length) {
        const i = next++;
        const p = paths[i]!;
        try {
          results[i] = { path: p, content: await this.sb.files.read(p, { format: 'bytes', signal }) };
        } catch (err) {
          if (!this.isFileError(err)) throw await this.failure(err, signal);
          results[i] = { path: p, error: await this.fileError(err, p) };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(DOWNLOADS_AT_ONCE, paths.length) }, worker));
    return results;
  }

  async close(): Promise<void> {
    // The SDK holds no connection of its own between calls.
  }

  /** `work()`'s result; its error said as E2B's (failure). */
  private async called<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw await this.failure(err, signal);
    }
  }

  /** The provider's words for a failure in this sandbox; an unclear one is `gone` when the sandbox is. */
  async failure(err: unknown, signal?: AbortSignal): Promise<unknown> {
    if (signal?.aborted) return signal.reason;
    const mapped = providerError(this.client.sdk, err, this.ctx.sandboxUrl, this.id);
    // A paused sandbox's envd is not found either: asked, it is `stopped` (resumable), not gone.
    if (mapped.reason !== 'failed' && mapped.reason !== 'timeout' && mapped.reason !== 'gone') return mapped;
    try {
      const info = await this.client.Sandbox.getInfo(this.id);
      // Paused (E2B's stop): `attach` resumes it, files kept.
      if (info.state === 'paused') return new SandboxProviderError(`The E2B sandbox ${providerText(this.id)} is paused, not running: ${mapped.message}`, 'stopped', 'e2b');
      if (info.state !== 'running') return gone(this.id);
    } catch (probe) {
      if (probe instanceof this.client.sdk.SandboxNotFoundError || probe instanceof this.client.sdk.NotFoundError) return gone(this.id);
    }
    return mapped;
  }

  /** Pushes the sandbox's end past this command and one idle period after it. */
  private async keepAlive(timeoutMs: number): Promise<void> {
    const needMs = Math.max(this.idleMs, timeoutMs + 60_000);
    if (this.endsAt >= Date.now() + needMs - 60_000) return;
    await this.called(() => this.sb.setTimeout(needMs));
    this.endsAt = Date.now() + needMs;
  }

  /** Ends the command's process group (its background children too) and the command itself. */
  private async endTree(pid: number): Promise<void> {
    await Promise.allSettled([
      this.sb.commands.run(`kill -KILL -- -${pid} 2>/dev/null; true`, { timeoutMs: 10_000 }),
      this.sb.commands.kill(pid),
    ]);
  }

  private async applyModes(files: readonly SandboxFileUpload[], signal?: AbortSignal): Promise<void> {
    const byMode = new Map<number, string[]>();
    for (const f of files) byMode.set(f.mode! & 0o7777, [...(byMode.get(f.mode! & 0o7777) ?? []), f.path]);
    for (const [mode, paths] of byMode) {
      for (const batch of byteGroups(paths, CHMOD_ARGS_BYTES, (p) => Buffer.byteLength(p) + 4)) {
        await this.called(() => this.sb.commands.run(`chmod ${mode.toString(8)} -- ${batch.map(shQuote).join(' ')}`, { timeoutMs: 60_000, signal }), signal);
      }
    }
  }

  private isFileError(err: unknown): boolean {
    const { sdk } = this.client;
    return err instanceof sdk.InvalidArgumentError || (err instanceof sdk.NotFoundError && !(err instanceof sdk.SandboxNotFoundError));
  }

  private async fileError(err: unknown, path: string): Promise<SandboxFileError> {
    if (err instanceof this.client.sdk.NotFoundError) return 'file_not_found';
    const message = err instanceof Error ? err.message : '';
    if (/is a directory/i.test(message)) return 'is_directory';
    if (/permission denied/i.test(message)) return 'permission_denied';
    const info = await this.sb.files.getInfo(path).catch(() => undefined);
    return info?.type === 'dir' ? 'is_directory' : 'invalid_path';
  }
}

/** Any SDK failure as a SandboxProviderError in plain words; `where` is the endpoint the call went to. */
function providerError(sdk: Sdk, err: unknown, where: string, id?: string): SandboxProviderError {
  if (err instanceof SandboxProviderError) return err;
  const text = providerText(err instanceof Error ? err.message : String(err));
  if (err instanceof sdk.AuthenticationError) return new SandboxProviderError('E2B refused the API key (E2B_API_KEY).', 'auth', 'e2b');
  if (err instanceof sdk.RateLimitError) return new SandboxProviderError(`E2B says the account is out of quota: ${text}`, 'quota', 'e2b');
  if (err instanceof sdk.NotEnoughSpaceError) return new SandboxProviderError(`E2B says the sandbox is out of disk space: ${text}`, 'quota', 'e2b');
  if (id !== undefined && (err instanceof sdk.SandboxNotFoundError || (err instanceof sdk.NotFoundError && !(err instanceof sdk.FileNotFoundError)))) return gone(id);
  const network = networkFailure(err);
  if (network) return new SandboxProviderError(`Cannot reach E2B at ${where}: ${network}.`, 'unreachable', 'e2b');
  if (err instanceof sdk.ServiceBusyError) return new SandboxProviderError(`E2B is busy and did not take the request: ${text}`, 'unreachable', 'e2b');
  if (err instanceof sdk.TimeoutError) {
    // `unavailable` and a dropped stream whose health probe failed: the sandbox ended under the call.
    if (id !== undefined && /sandbox timeout|sandbox was killed|end of life/i.test(text)) return gone(id);
    return new SandboxProviderError(`E2B did not answer in time: ${text}`, 'timeout', 'e2b');
  }
  return new SandboxProviderError(`E2B failed: ${text}`, 'failed', 'e2b');
}

function gone(id: string): SandboxProviderError {
  return new SandboxProviderError(`The E2B sandbox ${providerText(id)} is gone (deleted or expired).`, 'gone', 'e2b');
}

const NETWORK_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the name could not be looked up',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  EHOSTUNREACH: 'no route to the host',
  ENETUNREACH: 'the network is unreachable',
  CERT_HAS_EXPIRED: 'its certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate is not trusted',
};

/** The socket-level reason somewhere in an error's causes (fetch wraps it as `fetch failed`). */
function networkFailure(err: unknown): string | undefined {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0) {
    const e = queue.shift();
    if (typeof e !== 'object' || e === null || seen.has(e)) continue;
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code in NETWORK_WORDS) return NETWORK_WORDS[code];
    queue.push((e as { cause?: unknown }).cause, ...((e as { errors?: unknown[] }).errors ?? []));
  }
  return undefined;
}


/** envd reports a command ended by a signal as -1 with `signal: killed`; the shell says 128+n. */
function shellExitCode(exitCode: number, error: string | undefined): number {
  if (exitCode !== -1) return exitCode;
  const signals: Record<string, number> = { hangup: 1, interrupt: 2, aborted: 6, killed: 9, 'segmentation fault': 11, 'broken pipe': 13, terminated: 15 };
  const name = /signal: ([a-z ]+)/.exec(error ?? '')?.[1]?.trim();
  return name !== undefined && name in signals ? 128 + signals[name]! : exitCode;
}

function blob(content: Uint8Array): Blob {
  return new Blob([content as Uint8Array<ArrayBuffer>]);
}

