// Starting the agent host for a data folder: `deepdesk host` of the build this code runs
// from, in a session of its own, its output appended to host.log, left running when the
// client that started it goes (core/process/spawn.ts's `host` role); and the start lock
// that makes clients racing to start it start one.

import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fchmodSync, openSync, readFileSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { HostPaths } from '../../app/host/paths';
import { isProcessAlive } from '../../core/process/process-tree';
import { spawnPipe } from '../../core/process/spawn';

export interface HostLaunch {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/** host.log starts over past this (each start appends a few lines; a chatty host must not fill the disk). */
const MAX_LOG_BYTES = 4 * 1024 * 1024;

/**
 * out/main/cli.js only exports `main` (bin/deepdesk.mjs runs it, and bin/ is not in every
 * install): this runs it with the arguments after its path.
 */
// An ES module, as the `deepdesk` bin is: a CommonJS eval would leave a global `require` that
// resolves from the host's working folder, and libraries that probe for one (the Daytona SDK)
// would load their dependencies from there.
// V8's compile cache as bin/deepdesk.mjs keeps it (Node 22.1+): a host starts faster.
const RUN_ENTRY = `import module from 'node:module';
import { pathToFileURL } from 'node:url';
module.enableCompileCache?.();
const [entry, ...argv] = process.argv.slice(1);
const { main } = await import(pathToFileURL(entry).href);
process.exitCode = await main(argv);`;

/**
 * V8's young generation in the host is held to 4 MB a half (8 MB in all). Left to itself V8
 * grows it to 16 MB a half while the host starts (its modules, a big folder's watch and first
 * snapshot keep many objects alive a moment), and keeps all 32 MB until its memory reducer
 * runs, seconds to minutes later: on a 100,000-file folder that was ~30 MB of the window's
 * memory 3 s after ready (issue 66). The host is a long-lived server: smaller scavenges
 * cost it nothing a person waits for (the first snapshot of that folder was as quick).
 */
export const HOST_V8_FLAGS: readonly string[] = ['--max-semi-space-size=4'];

export function defaultHostLaunch(dataDir: string, env: NodeJS.ProcessEnv = process.env): HostLaunch {
  return {
    file: process.execPath,
    args: [...HOST_V8_FLAGS, '--input-type=module', '-e', RUN_ENTRY, cliEntry(), 'host', '--data-dir', dataDir],
    // The agent host is Deepdesk itself: it gets Deepdesk's environment, its keys included
    // (what the host starts gets child-env.ts's). Under Electron, its binary runs the CLI as plain Node.
    env: process.versions.electron !== undefined ? { ...env, ELECTRON_RUN_AS_NODE: '1' } : { ...env },
  };
}

/** `out/main/cli.js` of the build this code runs from (it may sit in out/main or out/main/chunks, or be the sources under test). */
export function cliEntry(): string {
  for (let dir = import.meta.dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const entry = join(dir, 'out', 'main', 'cli.js');
    if (existsSync(entry)) return entry;
  }
  throw new Error("deepdesk's command-line entry (out/main/cli.js) is missing; run `npm run build`");
}

export interface LaunchedHost {
  /** Settles when the process ends: whether it exited 0, and how it ended in words. */
  ended: Promise<{ ok: boolean; how: string }>;
}

/** Starts the host detached, its stdout and stderr appended to host.log (0600). */
export function launchHost(launch: HostLaunch, paths: HostPaths): LaunchedHost {
  const fd = openSync(paths.log, sizeOf(paths.log) > MAX_LOG_BYTES ? 'w' : 'a', 0o600);
  let child: ChildProcess;
  try {
    fchmodSync(fd, 0o600);
    child = spawnPipe({ role: 'host', file: launch.file, args: launch.args, env: launch.env, cwd: paths.dir, stdio: ['ignore', fd, fd], detached: true });
  } finally {
    closeSync(fd);
  }
  const ended = new Promise<{ ok: boolean; how: string }>((resolve) => {
    child.once('error', (err) => resolve({ ok: false, how: `it could not be started: ${err.message}` }));
    child.once('exit', (code, signal) => resolve({ ok: code === 0, how: signal !== null ? `it was ended by ${signal}` : `it exited with status ${code ?? '?'}` }));
  });
  child.unref();
  return { ended };
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** A lock older than this, or whose writer is dead, was left by a client that died starting a host. */
const STALE_LOCK_MS = 30_000;

/** `start.lock`: created exclusively by the one client that starts the host, removed once it answers. */
export class StartLock {
  private mine: string | undefined;

  constructor(private readonly path: string) {}

  get held(): boolean {
    return this.mine !== undefined;
  }

  /** Whether this call took it. */
  take(): boolean {
    if (this.mine !== undefined) return true;
    const content = `${process.pid} ${randomBytes(6).toString('hex')}\n`;
    let fd: number;
    try {
      fd = openSync(this.path, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
    try {
      writeSync(fd, content);
    } finally {
      closeSync(fd);
    }
    this.mine = content;
    return true;
  }

  /** Removes another's lock when it is stale; whether it did. */
  removeIfStale(): boolean {
    const seen = this.read();
    if (seen === undefined) return false;
    const pid = Number(seen.content.split(' ')[0]);
    const dead = Number.isInteger(pid) && pid > 0 && !isProcessAlive(pid);
    if (!dead && Date.now() - seen.mtimeMs < STALE_LOCK_MS) return false;
    // Looked at again just before: another client may have replaced it meanwhile.
    if (this.read()?.content !== seen.content) return false;
    rmSync(this.path, { force: true });
    return true;
  }

  release(): void {
    if (this.mine === undefined) return;
    if (this.read()?.content === this.mine) rmSync(this.path, { force: true });
    this.mine = undefined;
  }

  private read(): { content: string; mtimeMs: number } | undefined {
    try {
      const { mtimeMs } = statSync(this.path);
      return { content: readFileSync(this.path, 'utf8'), mtimeMs };
    } catch {
      return undefined;
    }
  }
}

/** The last `lines` lines of a log file ('' when there is none). */
export function logTail(path: string, lines: number): string {
  let text: string;
  try {
    const fd = openSync(path, 'r');
    try {
      const size = statSync(path).size;
      const length = Math.min(size, 16 * 1024);
      const buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, size - length);
      text = buffer.toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
  return text.split('\n').filter((line) => line.trim() !== '').slice(-lines).join('\n');
}
