// Daytona (SPEC §18) over its official SDK, @daytonaio/sdk. A command runs in a session of its
// own: the toolbox's plain `/process/execute` neither streams nor can be cancelled, while a
// session's command streams its output and deleting the session ends its whole process tree
// (the daemon signals the session shell's process group and every descendant) — which is how
// a timeout and a cancel end background children too. A short script (`oneCall`: the file
// tools', bring-back's) goes through the plain execute, one call: it starts nothing to end, and
// the daemon kills its process group at its timeout.

import { randomUUID } from 'node:crypto';
import type { Daytona, Sandbox } from '@daytonaio/sdk';
import type {
  ProviderCredentials, ProviderSandbox, SandboxExecOptions, SandboxExecResult, SandboxFileDownload, SandboxFileError, SandboxFileUpload, SandboxInfo, SandboxProvider,
  SandboxSpec,
} from '../provider';
import { SandboxProviderError, credential, missingCredentials, providerText, requireDeepdesksSandbox } from '../provider';
import { SANDBOX_PROVIDER_TABLE } from '../../process/sandbox-provider-table';
import { shQuote } from '../../text/shell-quote';
import { byteGroups } from '../../text/byte-groups';
import { sleep as delay } from '../../models/retry';

const DEFAULT_API_URL = 'https://app.daytona.io/api';
/** The label the SDK adds to every sandbox it creates: not Deepdesk's. */
const SDK_LABEL = 'code-toolbox-language';
/** Seconds the SDK waits for a sandbox to be started (an image may be built first). */
const START_TIMEOUT_S = 300;
/** Bytes per bulk upload call (its multipart body is held in memory). */
const UPLOAD_BATCH_BYTES = 64 * 1024 * 1024;
/** Length of one chmod command line, well below any ARG_MAX. */
const CHMOD_LINE = 64 * 1024;
const GONE_STATES = new Set(['destroyed', 'destroying', 'error', 'build_failed']);

export function createDaytonaProvider(credentials: ProviderCredentials): SandboxProvider {
  const apiKey = credential(credentials, 'DAYTONA_API_KEY');
  if (apiKey === undefined) throw missingCredentials('daytona', ['DAYTONA_API_KEY']);
  const apiUrl = credential(credentials, 'DAYTONA_API_URL') ?? credential(credentials, 'DAYTONA_SERVER_URL') ?? DEFAULT_API_URL;
  const target = credential(credentials, 'DAYTONA_TARGET');
  let client: Promise<Daytona> | undefined;
  // Everything is passed explicitly (so the SDK's reading of the cwd's .env files cannot
  // redirect the key), and state is polled: no events socket.
  const daytona = (): Promise<Daytona> =>
    (client ??= import('@daytonaio/sdk').then((sdk) => new sdk.Daytona({ apiKey, apiUrl, target, useDeprecatedPolling: true })).catch((err: unknown) => {
      client = undefined;
      throw failure(err);
    }));

  const failure = (err: unknown, sandboxId?: string): SandboxProviderError => describeFailure(err, apiUrl, sandboxId);
  /** The call's result (untilAborted); its error said as Daytona's unless the signal aborted. */
  const called = <T>(work: Promise<T>, signal: AbortSignal | undefined, id?: string, late?: (value: T) => void): Promise<T> =>
    untilAborted(work, signal, late).catch((err: unknown) => {
      throw signal?.aborted ? err : failure(err, id);
    });

  /** An error from a call on one sandbox: `gone` when the main API no longer has it running. */
  async function sandboxFailure(err: unknown, id: string): Promise<SandboxProviderError> {
    const mapped = failure(err, id);
    if (mapped.reason === 'auth' || mapped.reason === 'credentials' || mapped.reason === 'quota' || mapped.reason === 'gone') return mapped;
    try {
      const sb = await (await daytona()).get(id);
      if (GONE_STATES.has(sb.state ?? '')) return goneError(id);
      if (sb.state !== 'started') {
        // Stopped (by `sandboxes stop`, its auto-stop, the dashboard): `attach` starts it again.
        const stopped = sb.state === 'stopped' || sb.state === 'stopping' || sb.state === 'archived';
        return new SandboxProviderError(`The Daytona sandbox ${id} is ${providerText(sb.state ?? 'not started')}, not running: ${mapped.message}`, stopped ? 'stopped' : 'failed', 'daytona');
      }
    } catch (check) {
      const checked = failure(check, id);
      if (checked.reason === 'gone') return checked;
    }
    return mapped;
  }

  /** Whether the main API still has the sandbox (a toolbox 404 may be a missing route instead). */
  async function stillThere(id: string): Promise<boolean> {
    try {
      return !GONE_STATES.has((await (await daytona()).get(id)).state ?? '');
    } catch (err) {
      return failure(err, id).reason !== 'gone';
    }
  }

  /** The workdir is `workspace` in the sandbox's working folder (the toolbox says which; else its user's home), made when missing. */
  async function open(sb: Sandbox): Promise<ProviderSandbox> {
    const base = await sb.getWorkDir().then(
      (dir) => (dir?.startsWith('/') ? shQuote(dir) : undefined),
      () => undefined,
    );
    const made = await sb.process.executeCommand(`cd -- ${base ?? '"${HOME:-/home/daytona}"'} && mkdir -p workspace && cd workspace && pwd`, undefined, undefined, 60);
    const workdir = made.result.trim().split('\n').pop() ?? '';
    if (made.exitCode !== 0 || !workdir.startsWith('/')) throw new SandboxProviderError(`Daytona could not make the workspace folder: ${providerText(made.result)}`, 'failed', 'daytona');
    return daytonaSandbox(sb, workdir, (err) => sandboxFailure(err, sb.id), () => stillThere(sb.id));
  }

  /** Deepdesk's sandbox by id (attach, stop, remove): another's is refused before anything is done to it. */
  async function get(id: string): Promise<Sandbox> {
    let sb: Sandbox;
    try {
      sb = await (await daytona()).get(id);
    } catch (err) {
      throw failure(err, id);
    }
    requireDeepdesksSandbox('daytona', id, sb.labels);
    return sb;
  }

  return {
    name: 'daytona',
    capabilities: SANDBOX_PROVIDER_TABLE.daytona.capabilities,

    async create(spec: SandboxSpec, signal?: AbortSignal): Promise<ProviderSandbox> {
      const d = await daytona();
      signal?.throwIfAborted();
      const labels = { ...spec.labels, deepdesk: '1' };
      const autoStopInterval = spec.idleTimeoutMin === undefined ? undefined : Math.max(1, Math.ceil(spec.idleTimeoutMin));
      const image = spec.image !== undefined && /[:/]/.test(spec.image) ? spec.image : undefined;
      const resources = spec.cpu !== undefined || spec.memoryGiB !== undefined ? { cpu: spec.cpu, memory: spec.memoryGiB } : undefined;
      const creating = image !== undefined
        ? d.create({ image, labels, autoStopInterval, resources }, { timeout: START_TIMEOUT_S })
        : d.create({ snapshot: spec.image, labels, autoStopInterval }, { timeout: START_TIMEOUT_S });
      const sb = await called(creating, signal, undefined, (late) => void late.delete().catch(() => undefined));
      try {
        return await open(sb);
      } catch (err) {
        throw await sandboxFailure(err, sb.id);
      }
    },

    async attach(id: string, signal?: AbortSignal): Promise<ProviderSandbox> {
      const sb = await untilAborted(get(id), signal);
      try {
        if (GONE_STATES.has(sb.state ?? '')) throw goneError(id);
        if (sb.state === 'stopping') await sb.waitUntilStopped(START_TIMEOUT_S);
        if (sb.state !== 'started') await untilAborted(sb.start(START_TIMEOUT_S), signal);
        return await open(sb);
      } catch (err) {
        if (signal?.aborted || err instanceof SandboxProviderError) throw err;
        throw await sandboxFailure(err, id);
      }
    },

    async list(signal?: AbortSignal): Promise<SandboxInfo[]> {
      const d = await daytona();
      const found: SandboxInfo[] = [];
      try {
        for await (const sb of d.list({ labels: { deepdesk: '1' } })) {
          signal?.throwIfAborted();
          // Asked by label, and checked here too: a server that ignores the filter lists others' sandboxes.
          if (sb.labels?.deepdesk !== '1') continue;
          const labels = { ...sb.labels };
          delete labels[SDK_LABEL];
          found.push({ id: sb.id, provider: 'daytona', state: stateWord(sb.state), labels, createdAt: sb.createdAt });
        }
      } catch (err) {
        if (signal?.aborted) throw err;
        throw failure(err);
      }
      return found;
    },

    async stop(id: string, signal?: AbortSignal): Promise<void> {
      const sb = await untilAborted(get(id), signal);
      if (sb.state === 'stopped' || sb.state === 'archived') return;
      await called(sb.stop(), signal, id);
    },

    async remove(id: string, signal?: AbortSignal): Promise<void> {
      const sb = await untilAborted(get(id), signal);
      await called(sb.delete(), signal, id);
    },

    // Sandbox.fork: a copy-on-write clone of a started sandbox, with its labels, env and sizes
    // (the spec is the source's). One at a time: the source is `forking` meanwhile and refuses
    // another fork (and its toolbox) until it is `started` again.
    async fork(id: string, count: number, _spec: SandboxSpec, signal?: AbortSignal): Promise<ProviderSandbox[]> {
      const source = await untilAborted(get(id), signal);
      const made: Sandbox[] = [];
      const forks: ProviderSandbox[] = [];
      try {
        for (let i = 0; i < count; i++) {
          const sb = await untilAborted(source.fork(undefined, START_TIMEOUT_S), signal, (late) => void late.delete().catch(() => undefined));
          made.push(sb);
          requireDeepdesksSandbox('daytona', sb.id, sb.labels);
          forks.push(await open(sb));
          await untilStarted(source, signal);
        }
        return forks;
      } catch (err) {
        await Promise.all(made.map((sb) => sb.delete().catch(() => undefined)));
        if (signal?.aborted || err instanceof SandboxProviderError) throw err;
        // 422: the sandbox's class cannot fork (the service forks VMs, not containers).
        if ((err as { statusCode?: number }).statusCode === 422) throw new SandboxProviderError(`Daytona does not fork the sandbox ${providerText(id)}: ${providerText((err as Error).message ?? '')}`, 'unsupported', 'daytona');
        throw failure(err, id);
      }
    },
  };
}

/** Waits until the sandbox is `started` again (after a fork), as the SDK's own waits poll. */
async function untilStarted(sb: Sandbox, signal: AbortSignal | undefined): Promise<void> {
  const until = Date.now() + START_TIMEOUT_S * 1000;
  for (;;) {
    await untilAborted(sb.refreshData(), signal);
    if (sb.state === 'started') return;
    if (GONE_STATES.has(sb.state ?? '')) throw goneError(sb.id);
    if (Date.now() > until) throw new SandboxProviderError(`The Daytona sandbox ${sb.id} did not start again after a fork (it is ${providerText(sb.state ?? 'unknown')}).`, 'timeout', 'daytona');
    await delay(100);
  }
}

function daytonaSandbox(sb: Sandbox, workdir: string, sandboxFailure: (err: unknown) => Promise<SandboxProviderError>, stillThere: () => Promise<boolean>): ProviderSandbox {
  /** Whether the toolbox has sessions (each command one, so it streams and can be ended early). */
  let sessions = true;
  /** One command through the toolbox's plain execute: its group is killed at the timeout (a 408, output lost); a cancel stops waiting. */
  const executePlain = async (command: string, options: SandboxExecOptions): Promise<SandboxExecResult> => {
    const seconds = Math.max(1, Math.ceil(options.timeoutMs / 1000));
    // The daemon's shell reads this from its stdin (one shell per call, ended with it): when it is
    // bash, the command runs in it; else bash (or sh) takes its place, found with no fork
    // (`command -v` is a builtin). Either way its stdin is closed, as in a local run.
    const wrapped = [
      `S=${shQuote(command)}`,
      `cd ${shQuote(options.cwd ?? workdir)} || exit 1`,
      'if [ -n "${BASH_VERSION-}" ]; then eval "$S" < /dev/null; exit; fi',
      'if command -v bash >/dev/null 2>&1; then exec bash -c "$S" < /dev/null; else exec sh -c "$S" < /dev/null; fi',
    ].join('\n');
    try {
      const r = await untilAborted(sb.process.executeCommand(wrapped, undefined, undefined, seconds), options.signal);
      if (r.result) options.onOutput?.(r.result);
      return { output: r.result ?? '', exitCode: r.exitCode, timedOut: false };
    } catch (err) {
      if (options.signal?.aborted) return { output: '', exitCode: null, timedOut: false };
      const e = err as { statusCode?: number; name?: string };
      if (e.statusCode === 408 || e.name === 'DaytonaProcessExecutionTimeoutError') return { output: '', exitCode: 124, timedOut: true };
      throw err;
    }
  };
  return {
    id: sb.id,
    provider: 'daytona',
    workdir,

    async execute(command: string, options: SandboxExecOptions): Promise<SandboxExecResult> {
      if (options.signal?.aborted) return { output: '', exitCode: null, timedOut: false };
      const session = `deepdesk-${randomUUID()}`;
      let output = '';
      const take = (text: string): void => {
        output += text;
        options.onOutput?.(text);
      };
      // The session's shell reads the command from a file; a shell of its own keeps `exit`
      // and syntax errors inside it, and stdin is closed as in a local run (a session
      // command's stdin stays open for input otherwise).
      const wrapped = `cd ${shQuote(options.cwd ?? workdir)} && "$(command -v bash || command -v sh)" -c ${shQuote(command)} < /dev/null`;
      let timer: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      const ended = new Promise<'timeout' | 'abort'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), options.timeoutMs);
        onAbort = () => resolve('abort');
        options.signal?.addEventListener('abort', onAbort, { once: true });
      });
      let sessionOpen = false;
      try {
        // A short script (the file tools', bring-back's): the toolbox's one-shot execute, one call
        // where a session costs its making, the command, the polls of its state and its deletion.
        if (!sessions || (options.oneCall === true && options.onOutput === undefined)) return await executePlain(command, options);
        try {
          await sb.process.createSession(session);
        } catch (err) {
          // A toolbox without sessions (an older daemon, a minimal server): the plain call,
          // which cannot stream or be cancelled but ends the command's group at its timeout.
          if (!sessionsMissing(err) || !(await stillThere())) throw err;
          sessions = false;
          return await executePlain(command, options);
        }
        sessionOpen = true;
        const { cmdId } = await sb.process.executeSessionCommand(session, { command: wrapped, runAsync: true });
        if (cmdId === undefined) throw new Error('Daytona started the command without an id.');
        // Output follows over the logs WebSocket while the exit code is polled.
        const follow: { state: 'open' | 'ok' | 'failed' } = { state: 'open' };
        const streamed = sb.process.getSessionCommandLogs(session, cmdId, take, take).then(
          () => void (follow.state = 'ok'),
          () => void (follow.state = 'failed'),
        );
        let first: 'tick' | 'timeout' | 'abort' = 'tick';
        let exitCode: number | undefined;
        while (first === 'tick') {
          const cmd = await sb.process.getSessionCommand(session, cmdId);
          if (cmd.exitCode !== undefined && cmd.exitCode !== null) {
            exitCode = cmd.exitCode;
            break;
          }
          const waits: Array<Promise<'tick' | 'timeout' | 'abort'>> = [ended, delay(follow.state === 'open' ? 250 : 100).then(() => 'tick' as const)];
          if (follow.state === 'open') waits.push(streamed.then(() => 'tick' as const));
          first = await Promise.race(waits);
        }
        if (exitCode !== undefined) {
          if (follow.state === 'open') await Promise.race([streamed, delay(1_000)]);
          // The stored log is the whole output even when the stream failed or closed early.
          const full = combined(await sb.process.getSessionCommandLogs(session, cmdId));
          if (full.length > output.length && full.startsWith(output)) options.onOutput?.(full.slice(output.length));
          return { output: full.length >= output.length ? full : output, exitCode, timedOut: false };
        }
        // Deleting the session is what ends the command's whole tree.
        sessionOpen = false;
        await sb.process.deleteSession(session);
        return first === 'timeout' ? { output, exitCode: 124, timedOut: true } : { output, exitCode: null, timedOut: false };
      } catch (err) {
        throw await sandboxFailure(err);
      } finally {
        clearTimeout(timer);
        if (onAbort) options.signal?.removeEventListener('abort', onAbort);
        // Also ends what the command left running in the background.
        if (sessionOpen) await sb.process.deleteSession(session).catch(() => undefined);
      }
    },

    async upload(files: readonly SandboxFileUpload[], signal?: AbortSignal): Promise<Array<{ path: string; error?: SandboxFileError }>> {
      const results = new Map<SandboxFileUpload, SandboxFileError | undefined>();
      const valid = files.filter((f) => {
        if (f.path.startsWith('/') && !f.path.includes('\0')) return true;
        results.set(f, 'invalid_path');
        return false;
      });
      try {
        for (const batch of byteGroups(valid, UPLOAD_BATCH_BYTES, (f) => f.content.byteLength)) {
          signal?.throwIfAborted();
          const errors = await uploadBatch(sb, batch);
          batch.forEach((f) => results.set(f, errors.get(f.path)));
        }
        const modes = new Map<number, string[]>();
        for (const f of valid) if (f.mode !== undefined && results.get(f) === undefined) modes.set(f.mode & 0o7777, [...(modes.get(f.mode & 0o7777) ?? []), f.path]);
        for (const [mode, paths] of modes) {
          for (const line of chmodLines(mode, paths)) {
            signal?.throwIfAborted();
            await sb.process.executeCommand(line, undefined, undefined, 120);
          }
        }
      } catch (err) {
        if (signal?.aborted) throw err;
        throw await sandboxFailure(err);
      }
      return files.map((f) => {
        const error = results.get(f);
        return error === undefined ? { path: f.path } : { path: f.path, error };
      });
    },

    async download(paths: readonly string[], signal?: AbortSignal): Promise<SandboxFileDownload[]> {
      if (paths.length === 0) return [];
      signal?.throwIfAborted();
      const asked = [...new Set(paths.filter((p) => p.startsWith('/') && !p.includes('\0')))];
      let got: Awaited<ReturnType<Sandbox['fs']['downloadFiles']>> = [];
      try {
        if (asked.length > 0) got = await sb.fs.downloadFiles(asked.map((source) => ({ source })));
      } catch (err) {
        throw await sandboxFailure(err);
      }
      const bySource = new Map(got.map((r) => [r.source, r]));
      return paths.map((p) => {
        const r = bySource.get(p);
        if (r === undefined) return { path: p, error: 'invalid_path' as const };
        if (r.result !== undefined && typeof r.result !== 'string' && r.error === undefined) return { path: p, content: new Uint8Array(r.result) };
        return { path: p, error: downloadError(r.errorDetails?.code, r.errorDetails?.statusCode, r.errorDetails?.message ?? r.error ?? '') };
      });
    },

    async close(): Promise<void> {
      // Nothing is held per sandbox: state is polled and every command's session is deleted.
    },
  };
}

/** Per-file errors of one bulk upload, by path; the daemon answers 400 `{errors, files}` when some failed. */
async function uploadBatch(sb: Sandbox, batch: readonly SandboxFileUpload[]): Promise<Map<string, SandboxFileError>> {
  const errors = new Map<string, SandboxFileError>();
  try {
    await sb.fs.uploadFiles(batch.map((f) => ({ source: Buffer.from(f.content.buffer, f.content.byteOffset, f.content.byteLength), destination: f.path })));
    return errors;
  } catch (err) {
    const report = (err as { statusCode?: number }).statusCode === 400 ? parseUploadReport((err as Error).message) : undefined;
    if (report === undefined) throw err;
    const written = new Set(report.files.map((f) => f.path));
    for (const f of batch) {
      if (written.has(f.path)) continue;
      const line = report.errors.find((e) => e.startsWith(`${f.path}: `)) ?? '';
      errors.set(f.path, uploadError(line));
    }
    return errors;
  }
}

function parseUploadReport(message: string): { errors: string[]; files: Array<{ path: string }> } | undefined {
  try {
    const data = JSON.parse(message) as { errors?: unknown; files?: unknown };
    if (!Array.isArray(data.errors)) return undefined;
    return { errors: data.errors.filter((e): e is string => typeof e === 'string'), files: Array.isArray(data.files) ? (data.files as Array<{ path: string }>) : [] };
  } catch {
    return undefined;
  }
}

/** A session command's whole log as one text: the raw log without its stream markers. */
function combined(logs: { output?: string; stdout?: string; stderr?: string }): string {
  // eslint-disable-next-line no-control-regex
  if (logs.output) return logs.output.replace(/\u0001\u0001\u0001|\u0002\u0002\u0002/g, '');
  return (logs.stdout ?? '') + (logs.stderr ?? '');
}

function uploadError(line: string): SandboxFileError {
  if (/permission denied|read-only file system/i.test(line)) return 'permission_denied';
  if (/is a directory/i.test(line)) return 'is_directory';
  if (/no such file/i.test(line)) return 'file_not_found';
  return 'invalid_path';
}

function downloadError(code: string | undefined, status: number | undefined, message: string): SandboxFileError {
  if (code === 'FILE_NOT_FOUND' || status === 404) return 'file_not_found';
  if (code === 'FILE_ACCESS_DENIED' || status === 403) return 'permission_denied';
  if (/directory/i.test(message)) return 'is_directory';
  return 'invalid_path';
}


function chmodLines(mode: number, paths: readonly string[]): string[] {
  const head = `chmod ${mode.toString(8).padStart(4, '0')} --`;
  return byteGroups(paths.map((p) => ' ' + shQuote(p)), CHMOD_LINE - head.length, (arg) => arg.length).map((args) => head + args.join(''));
}

/** The toolbox answered the session call as one it does not have. */
function sessionsMissing(err: unknown): boolean {
  const status = (err as { statusCode?: number }).statusCode;
  return status === 404 || status === 405 || status === 501;
}

/** The call's result, or the signal's reason once it aborts (a result that comes later goes to `late`). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined, late?: (value: T) => void): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) late?.(value);
        else resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

function stateWord(state: string | undefined): string {
  if (state === 'started') return 'running';
  return state ?? 'unknown';
}

function goneError(id: string): SandboxProviderError {
  return new SandboxProviderError(`The Daytona sandbox ${providerText(id)} is gone (deleted or expired).`, 'gone', 'daytona');
}


/** Any SDK error in plain words, with the reason a person can act on. */
function describeFailure(err: unknown, apiUrl: string, sandboxId?: string): SandboxProviderError {
  if (err instanceof SandboxProviderError) return err;
  const e = err as { name?: string; message?: string; statusCode?: number; code?: string };
  const name = e.name ?? '';
  const message = providerText(e.message ?? String(err));
  const status = e.statusCode;
  const fail = (text: string, reason: SandboxProviderError['reason']): SandboxProviderError => new SandboxProviderError(text, reason, 'daytona');
  if (status === 401 || name === 'DaytonaAuthenticationError') return fail('Daytona refused the API key (DAYTONA_API_KEY).', 'auth');
  if (status === 403 || name === 'DaytonaAuthorizationError') return fail(`Daytona refused the API key (DAYTONA_API_KEY) for this: ${message}`, 'auth');
  if (name === 'DaytonaConnectionTimeoutError') return fail(`Daytona at ${providerText(apiUrl)} did not answer in time.`, 'timeout');
  if (name === 'DaytonaConnectionError' || (status === undefined && /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|EHOSTUNREACH|ENETUNREACH|socket hang up/.test(message))) {
    return fail(`Cannot reach Daytona at ${providerText(apiUrl)}: ${connectionWords(message)}.`, 'unreachable');
  }
  if (status === 429) return fail(`Daytona says the account is over its request limit: ${message}`, 'quota');
  if (/limit exceeded|quota/i.test(message) && (status === 400 || status === 403 || status === undefined)) return fail(`Daytona says the account is out of quota: ${message}`, 'quota');
  if (status === 404 || status === 410) return sandboxId !== undefined ? goneError(sandboxId) : fail(`Daytona found no such thing: ${message}`, 'gone');
  if (status === 408 || status === 504 || name === 'DaytonaTimeoutError') return fail(`Daytona did not answer in time: ${message}`, 'timeout');
  if (status === 502 || status === 503) return fail(`Daytona is unavailable (${status}): ${message}`, 'unreachable');
  return fail(`Daytona failed${status ? ` (${status})` : ''}: ${message}`, 'failed');
}

function connectionWords(message: string): string {
  if (/ECONNREFUSED/.test(message)) return 'connection refused';
  if (/ENOTFOUND|EAI_AGAIN/.test(message)) return 'the host was not found';
  if (/ECONNRESET|socket hang up/.test(message)) return 'the connection was dropped';
  if (/EHOSTUNREACH|ENETUNREACH/.test(message)) return 'the network is unreachable';
  return message;
}
