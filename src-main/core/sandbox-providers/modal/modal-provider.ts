// Modal (SPEC §18) over its official SDK, `modal` (gRPC to MODAL_SERVER_URL). Modal has no
// stop-and-resume (terminate is the end) and no call that kills a running command, so a
// command runs under a small wrapper: its tree is one process group under `timeout` (the
// backstop when this process is gone), and a cancel file written through the file API makes
// a watcher in the sandbox end that group at once (timeouts and aborts).

import { randomUUID } from 'node:crypto';
import type { App, ModalClient, Sandbox } from 'modal';
import type {
  ProviderCredentials, ProviderSandbox, SandboxExecOptions, SandboxExecResult, SandboxFileDownload, SandboxFileError, SandboxFileUpload, SandboxInfo, SandboxProvider, SandboxSpec,
} from '../provider';
import { credential, missingCredentials, requireDeepdesksSandbox, SandboxProviderError } from '../provider';
import { SANDBOX_PROVIDER_TABLE } from '../../process/sandbox-provider-table';
import { modalFileError, modalProviderError } from './modal-errors';
import { byteGroups } from '../../text/byte-groups';

const APP_NAME = 'deepdesk';
const DEFAULT_IMAGE = 'debian:bookworm-slim';
/** Modal runs a sandbox's commands as root. */
export const MODAL_WORKDIR = '/root/workspace';
/** Modal's longest sandbox lifetime; without one it ends a sandbox after 5 minutes. */
const SANDBOX_LIFETIME_MS = 24 * 3600_000;
/** Files in flight at once in an upload or download (the SDK has no batch call). */
const FILES_AT_ONCE = 8;
/** How long an ended command may take to report its end before `execute` returns anyway. */
const END_GRACE_MS = 10_000;
/** A limit on one `chmod` command line (paths only, never contents). */
const CHMOD_ARGS_BYTES = 64 * 1024;

// $1 cancel file, $2 seconds, $3 the command. `timeout` leads the command's process group
// (background children included); the watcher kills that group once the cancel file appears.
const WRAPPER = [
  'f=$1; timeout -s KILL "$2" bash -c "$3" </dev/null 2>&1 & p=$!',
  // The watcher's sleep ends with it: a stray sleep would keep the exec's processes alive after the command.
  '(trap \'kill "$s" 2>/dev/null; exit 0\' TERM; while [ ! -e "$f" ]; do sleep 0.2 & s=$!; wait "$s"; done; kill -KILL -- -"$p" 2>/dev/null || kill -KILL "$p") </dev/null >/dev/null 2>&1 & w=$!',
  'wait "$p"; s=$?; kill "$w" 2>/dev/null; rm -f "$f"; exit "$s"',
].join('\n');

const SILENT = { debug() {}, info() {}, warn() {}, error() {} };

/** What a sandbox is made with: the spec's sizes and idle timeout, the longest lifetime, the workdir, Deepdesk's tag. */
function createParams(spec: SandboxSpec): NonNullable<Parameters<ModalClient['sandboxes']['create']>[2]> {
  return {
    ...(spec.cpu ? { cpu: spec.cpu } : {}),
    ...(spec.memoryGiB ? { memoryMiB: Math.round(spec.memoryGiB * 1024) } : {}),
    ...(spec.idleTimeoutMin ? { idleTimeoutMs: Math.round(spec.idleTimeoutMin * 60) * 1000 } : {}),
    timeoutMs: SANDBOX_LIFETIME_MS,
    workdir: MODAL_WORKDIR,
    tags: { ...spec.labels, deepdesk: '1' },
  };
}

export function createModalProvider(credentials: ProviderCredentials): SandboxProvider {
  const tokenId = credential(credentials, 'MODAL_TOKEN_ID');
  const tokenSecret = credential(credentials, 'MODAL_TOKEN_SECRET');
  if (!tokenId || !tokenSecret) throw missingCredentials('modal', ['MODAL_TOKEN_ID', 'MODAL_TOKEN_SECRET']);
  // The SDK takes its server only from MODAL_SERVER_URL (or ~/.modal.toml); this names it in messages.
  const serverUrl = credentials.env.MODAL_SERVER_URL || 'https://api.modal.com';
  const environment = credential(credentials, 'MODAL_ENVIRONMENT');
  const fail = (err: unknown, sandboxId?: string): SandboxProviderError => modalProviderError(err, { serverUrl, sandboxId });

  let client: Promise<ModalClient> | undefined;
  const modal = (): Promise<ModalClient> => {
    client ??= import('modal').then(({ ModalClient }) => new ModalClient({ tokenId, tokenSecret, environment, logger: SILENT }));
    return client;
  };
  const app = (mc: ModalClient): Promise<App> => mc.apps.fromName(APP_NAME, { createIfMissing: true });

  /** Runs `op`, mapping every failure; an abort ends the wait with the signal's reason. */
  const call = async <T>(op: () => Promise<T>, signal: AbortSignal | undefined, sandboxId?: string): Promise<T> => {
    signal?.throwIfAborted();
    const run = op().catch((err: unknown) => {
      throw fail(err, sandboxId);
    });
    if (!signal) return run;
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason as Error);
      signal.addEventListener('abort', onAbort, { once: true });
      run.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  };

  /** Deepdesk's sandbox by id (attach, stop, remove): another's (no deepdesk tag) is refused before anything is done to it. */
  const ours = async (mc: ModalClient, id: string): Promise<Sandbox> => {
    const sb = await mc.sandboxes.fromId(id);
    requireDeepdesksSandbox('modal', id, await sb.getTags());
    return sb;
  };

  /** A running sandbox of Deepdesk's, or `gone` when it has ended (Modal cannot start it again). */
  const running = async (mc: ModalClient, id: string): Promise<Sandbox> => {
    const sb = await ours(mc, id);
    if ((await sb.poll()) !== null) throw new SandboxProviderError(`The Modal sandbox ${id} has ended (stopped or timed out); Modal cannot start it again.`, 'gone', 'modal');
    return sb;
  };

  const provider: SandboxProvider = {
    name: 'modal',
    capabilities: SANDBOX_PROVIDER_TABLE.modal.capabilities,

    create: (spec: SandboxSpec, signal?: AbortSignal) =>
      call(async () => {
        const mc = await modal();
        const image = spec.image?.startsWith('im-') ? await mc.images.fromId(spec.image) : mc.images.fromRegistry(spec.image || DEFAULT_IMAGE);
        const sb = await mc.sandboxes.create(await app(mc), image, createParams(spec));
        await sb.filesystem.makeDirectory(MODAL_WORKDIR, { createParents: true });
        return sandbox(sb);
      }, signal),

    // A fork of the files, not of the processes: Sandbox.snapshotFilesystem makes an Image of the
    // running sandbox's filesystem, and each fork is a new sandbox of that image (made with `spec`).
    fork: (id: string, count: number, spec: SandboxSpec, signal?: AbortSignal) =>
      call(async () => {
        const mc = await modal();
        const source = await running(mc, id);
        const image = await source.snapshotFilesystem();
        const made: Sandbox[] = [];
        try {
          for (let i = 0; i < count; i++) {
            signal?.throwIfAborted();
            made.push(await mc.sandboxes.create(await app(mc), image, createParams(spec)));
          }
        } catch (err) {
          await Promise.all(made.map((sb) => sb.terminate().catch(() => undefined)));
          throw err;
        }
        return made.map(sandbox);
      }, signal, id),

    attach: (id: string, signal?: AbortSignal) => call(async () => sandbox(await running(await modal(), id)), signal, id),

    list: (signal?: AbortSignal) =>
      call(async () => {
        const mc = await modal();
        const { appId } = await app(mc);
        const found: SandboxInfo[] = [];
        for await (const sb of mc.sandboxes.list({ appId, tags: { deepdesk: '1' } })) {
          const labels = await sb.getTags();
          if (labels.deepdesk !== '1') continue; // asked by tag, checked here too
          found.push({ id: sb.sandboxId, provider: 'modal', state: 'running', labels });
        }
        return found;
      }, signal),

    // Modal has no stopped state: a stopped sandbox is terminated, as a removed one is.
    stop: (id: string, signal?: AbortSignal) => provider.remove(id, signal),

    remove: (id: string, signal?: AbortSignal) =>
      call(async () => {
        const sb = await ours(await modal(), id);
        await sb.terminate();
      }, signal, id),
  };

  function sandbox(sb: Sandbox): ProviderSandbox {
    const id = sb.sandboxId;
    return {
      id,
      provider: 'modal',
      workdir: MODAL_WORKDIR,
      execute: (command, options) => execute(sb, command, options).catch((err: unknown) => {
        throw err instanceof SandboxProviderError ? err : fail(err, id);
      }),
      upload: (files, signal) => call(() => upload(sb, files, signal), signal, id),
      download: (paths, signal) => call(() => download(sb, paths, signal), signal, id),
      close: async () => sb.detach(),
    };
  }

  async function execute(sb: Sandbox, command: string, options: SandboxExecOptions): Promise<SandboxExecResult> {
    options.signal?.throwIfAborted();
    const cancelFile = `/tmp/.deepdesk-cancel-${randomUUID()}`;
    // The sandbox's own `timeout` is the backstop for when this process is gone: ours comes first.
    const seconds = (options.timeoutMs / 1000 + 2).toFixed(3);
    const started = Date.now();
    const p = await sb.exec(['bash', '-c', WRAPPER, 'deepdesk', cancelFile, seconds, command], {
      workdir: options.cwd ?? MODAL_WORKDIR,
      mode: 'text',
      stdout: 'pipe',
      stderr: 'ignore',
      // The service's own kill, a little after ours, for when the wrapper could not run.
      timeoutMs: (Math.ceil(options.timeoutMs / 1000) + 30) * 1000,
    });
    let output = '';
    let ending: 'timeout' | 'abort' | undefined;
    let giveUp: () => void = () => undefined;
    const gaveUp = new Promise<'gave-up'>((resolve) => (giveUp = () => resolve('gave-up')));
    const end = (why: 'timeout' | 'abort'): void => {
      if (ending) return;
      ending = why;
      sb.filesystem.writeBytes(new Uint8Array(), cancelFile).catch(() => undefined);
      setTimeout(giveUp, END_GRACE_MS).unref();
    };
    const timer = setTimeout(() => end('timeout'), options.timeoutMs);
    const onAbort = (): void => end('abort');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    const reader = p.stdout.getReader();
    try {
      const read = (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return 'ended' as const;
          output += value;
          options.onOutput?.(value);
        }
      })();
      read.catch(() => undefined);
      if ((await Promise.race([read, gaveUp])) === 'gave-up') void reader.cancel().catch(() => undefined);
      const code = ending ? await Promise.race([p.wait().catch(() => null), gaveUp.then(() => null)]) : await p.wait();
      if (ending === 'abort') return { output, exitCode: null, timedOut: false };
      const overran = (code === 137 || code === 124) && Date.now() - started >= options.timeoutMs;
      if (ending === 'timeout' || overran) return { output, exitCode: 124, timedOut: true };
      // A command killed from outside may be the sandbox ending under it.
      if (code === 137) await running(await modal(), sb.sandboxId);
      return { output, exitCode: code, timedOut: false };
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      giveUp();
    }
  }

  async function upload(sb: Sandbox, files: readonly SandboxFileUpload[], signal?: AbortSignal): Promise<Array<{ path: string; error?: SandboxFileError }>> {
    const results = await eachFile(files, signal, async (f) => {
      try {
        await sb.filesystem.writeBytes(f.content, f.path);
        return { path: f.path };
      } catch (err) {
        return { path: f.path, error: modalFileError(err) };
      }
    });
    const byMode = new Map<number, string[]>();
    files.forEach((f, i) => {
      if (f.mode !== undefined && !results[i]!.error) byMode.set(f.mode & 0o7777, [...(byMode.get(f.mode & 0o7777) ?? []), f.path]);
    });
    for (const [mode, paths] of byMode) {
      for (const group of byteGroups(paths, CHMOD_ARGS_BYTES, (p) => p.length + 1)) {
        const p = await sb.exec(['chmod', mode.toString(8), '--', ...group], { stdout: 'ignore', stderr: 'pipe' });
        const code = await p.wait();
        if (code !== 0) throw new SandboxProviderError(`Modal could not set file modes (chmod exited ${code}).`, 'failed', 'modal');
      }
    }
    return results;
  }

  async function download(sb: Sandbox, paths: readonly string[], signal?: AbortSignal): Promise<SandboxFileDownload[]> {
    return eachFile(paths, signal, async (path) => {
      try {
        return { path, content: await sb.filesystem.readBytes(path) };
      } catch (err) {
        return { path, error: modalFileError(err) };
      }
    });
  }

  return provider;
}

/** Runs `op` over `items`, a few at a time, keeping their order. */
async function eachFile<T, R>(items: readonly T[], signal: AbortSignal | undefined, op: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      signal?.throwIfAborted();
      const i = next++;
      results[i] = await op(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(FILES_AT_ONCE, items.length) }, worker));
  return results;
}

