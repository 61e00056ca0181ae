// The one way Deepdesk starts a child process (SPEC §7 "One containment for everything"):
// every process — a command in a pty, an MCP server, a hook, git, ssh, ripgrep, the sandbox's
// probes, the person's shell — is started here, so that one registry knows what is running
// (each with the role it plays), ends it when Deepdesk exits, and one lint rule
// (eslint.config.js) keeps `node:child_process` and `node-pty` out of every other module.
// Ptys start in spawn-pty.ts (the native module loads only where a pty is wanted).
// What a process may read, write and reach is decided by its caller's policy (the sandbox);
// what it inherits too, from the environment builders of child-env.ts and shell-env.ts. A
// caller that names no environment gets the allow-listed default (child-env.ts allowedEnv):
// never Deepdesk's environment as it is.
import { execFileSync, spawn as nodeSpawn, type ChildProcess, type ChildProcessWithoutNullStreams, type StdioOptions } from 'node:child_process';
import { allowedEnv } from './child-env';

/** What a process is for: shown in diagnostics, and decides what is ended when Deepdesk exits. */
export type ProcessRole =
  | 'command' // an agent's `execute`, local or remote (its pty)
  | 'server' // an MCP stdio server
  | 'agent' // an external agent over ACP (SPEC §22), contained like a server
  | 'installer' // npm installing an external agent into the data folder, on the person's confirmation
  | 'hook'
  | 'git'
  | 'ssh'
  | 'search' // ripgrep
  | 'probe' // the sandbox's probes
  | 'login' // the login shell asked for its PATH: left to end by itself (a signal while its profile runs can leave its locks)
  | 'shell' // the person's own shell
  | 'opener' // the system's URL opener: handed over, not ours to end
  | 'watchdog' // outlives Deepdesk on purpose, to end what a killed Deepdesk left
  | 'host'; // the agent host (SPEC §16): started by a client, serves every client, outlives the one that started it

export interface PipeSpec {
  role: ProcessRole;
  file: string;
  args: readonly string[];
  cwd?: string;
  /** The whole environment (a builder's: child-env.ts, shell-env.ts); default the allow-listed one. */
  env?: NodeJS.ProcessEnv;
  stdio?: StdioOptions;
  /** A process group of its own, so that the group is its tree (default false). */
  detached?: boolean;
}

export interface LiveProcess {
  pid: number;
  role: ProcessRole;
  file: string;
  /** Started in a group of its own: the group is signalled with it. */
  group: boolean;
}

/** Roles that are not ended when Deepdesk exits: they are handed over, or outlive it by design. */
const LEFT_RUNNING: ReadonlySet<ProcessRole> = new Set(['opener', 'watchdog', 'host', 'login']);

const live = new Map<number, LiveProcess>();
let exitHooked = false;

/** Registers a started process until `untrack` is called (spawn-pty.ts registers its ptys here). */
export function track(entry: LiveProcess): () => void {
  live.set(entry.pid, entry);
  if (!exitHooked) {
    exitHooked = true;
    // Nothing can be awaited on exit: every tree still running is signalled at once.
    process.on('exit', () => {
      for (const p of live.values()) {
        if (LEFT_RUNNING.has(p.role)) continue;
        signal(p.group ? -p.pid : p.pid, 'SIGTERM');
      }
    });
  }
  return () => {
    if (live.get(entry.pid) === entry) live.delete(entry.pid);
  };
}

function signal(pid: number, name: NodeJS.Signals): void {
  if (pid === 0 || Math.abs(pid) === 1 || Math.abs(pid) === process.pid) return;
  try {
    process.kill(pid, name);
  } catch {
    // Already gone, or not ours.
  }
}

/** Starts a process with pipes (or inherited/ignored streams). Throws as `child_process.spawn` does. */
export function spawnPipe(spec: PipeSpec): ChildProcess {
  const child = nodeSpawn(spec.file, [...spec.args], {
    ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
    env: spec.env ?? allowedEnv(),
    stdio: spec.stdio ?? ['pipe', 'pipe', 'pipe'],
    detached: spec.detached === true && process.platform !== 'win32',
    windowsHide: true,
  });
  if (child.pid !== undefined) {
    const untrack = track({ pid: child.pid, role: spec.role, file: spec.file, group: spec.detached === true && process.platform !== 'win32' });
    child.once('exit', untrack);
    child.once('error', untrack);
  }
  return child;
}

/** spawnPipe with its three streams as pipes. */
export function spawnPiped(spec: Omit<PipeSpec, 'stdio'>): ChildProcessWithoutNullStreams {
  return spawnPipe({ ...spec, stdio: ['pipe', 'pipe', 'pipe'] }) as ChildProcessWithoutNullStreams;
}

/** Runs a short read-only query to its end, blocking (the process list where there is no /proc); its stdout, or undefined. Over before it could be tracked. */
export function querySync(file: string, args: readonly string[], timeoutMs: number): string | undefined {
  try {
    return execFileSync(file, [...args], { encoding: 'utf8', timeout: timeoutMs, windowsHide: true, env: allowedEnv() });
  } catch {
    return undefined;
  }
}

export interface RunSpec extends Omit<PipeSpec, 'stdio' | 'detached'> {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Bytes of stdout and of stderr kept each (default 64 MiB); the rest is dropped and `truncated` set. */
  maxBytes?: number;
  /** Each piece of stderr as it comes (a long run's progress). */
  onStderr?(chunk: Buffer): void;
}

export interface RunResult {
  code: number | null;
  stdout: Buffer;
  stderr: Buffer;
  timedOut: boolean;
  aborted: boolean;
  truncated: boolean;
  /** The process could not be started (not installed, not executable). */
  spawnError?: string;
}

/**
 * Runs a short-lived process to its end with its output collected: in a group of its own
 * that the timeout and the signal end whole (SIGKILL), never a shell.
 */
export function runToEnd(spec: RunSpec): Promise<RunResult> {
  const maxBytes = spec.maxBytes ?? 64 * 1024 * 1024;
  return new Promise((resolve) => {
    const empty = Buffer.alloc(0);
    if (spec.signal?.aborted) {
      resolve({ code: null, stdout: empty, stderr: empty, timedOut: false, aborted: true, truncated: false });
      return;
    }
    let child: ChildProcess;
    try {
      child = spawnPipe({ ...spec, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      resolve({ code: null, stdout: empty, stderr: empty, timedOut: false, aborted: false, truncated: false, spawnError: message });
      return;
    }
    const out = new Collector(maxBytes);
    const err = new Collector(maxBytes);
    let timedOut = false;
    let aborted = false;
    const kill = (): void => {
      if (child.pid === undefined) return;
      signal(process.platform === 'win32' ? child.pid : -child.pid, 'SIGKILL');
      signal(child.pid, 'SIGKILL');
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, spec.timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      kill();
    };
    spec.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout?.on('data', (d: Buffer) => out.push(d));
    child.stderr?.on('data', (d: Buffer) => {
      err.push(d);
      spec.onStderr?.(d);
    });
    let settled = false;
    const done = (result: RunResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };
    child.once('error', (e) => done({ code: null, stdout: empty, stderr: empty, timedOut, aborted, truncated: false, spawnError: e.message }));
    child.once('close', (code) => done({ code, stdout: out.bytes(), stderr: err.bytes(), timedOut, aborted, truncated: out.truncated || err.truncated }));
  });
}

class Collector {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    if (this.size >= this.max) {
      this.truncated = true;
      return;
    }
    const room = this.max - this.size;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (kept.length < chunk.length) this.truncated = true;
    this.chunks.push(kept);
    this.size += kept.length;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** The processes started here that are still running (diagnostics and tests). */
export function liveProcesses(): LiveProcess[] {
  return [...live.values()];
}
