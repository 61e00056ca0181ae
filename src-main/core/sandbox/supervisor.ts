// Starts and ends the long-lived processes Deepdesk runs on a folder's behalf (MCP stdio
// servers; SPEC §10): inside the OS sandbox unless told otherwise (and never silently
// outside it), with an environment scrubbed of the app's secrets, and with no orphans —
// stop() ends the whole tree, stopAllProcesses() ends every one on quit, the registry of
// spawn.ts signals what is left on exit, and when Deepdesk is killed outright bubblewrap's
// --die-with-parent and pid namespace end a sandboxed tree while the watchdog
// (watchdog.ts) ends an unsandboxed one. While a sandboxed one runs, its guard
// (git-guard.ts) keeps what it could plant for the person's git undone, and its effects are
// checked again before anything it answers is accepted (checkEffects) and at its end.
import type { ChildProcess } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { spawnPipe } from '../process/spawn';
import { EXEC_MARKER_VAR, killProcessTree, newTreeMarker, pidMark, startTicksNow, type KillTreeOptions, type PidMark } from '../process/process-tree';
import { createSandbox, detectSandbox } from './index';
import { realPathOf } from '../fs/real-path';
import type { CommandSpec, LiveCheck, PreparedCommand } from './types';
import { startGitGuard, type GitGuard } from './git-guard';
import { LogTail } from '../process/log-tail';
import { buildServerEnv } from '../process/server-env';
import { watchProcessGroup } from '../process/watchdog';
import type { ProcessExit, ProcessSpec, SupervisedProcess } from './supervisor-types';

export type { ProcessExit, SupervisedProcess } from './supervisor-types';

const DEFAULT_LOG_LINES = 200;
/** After its stdin closed, how long a process may take to exit by itself before it is signalled (MCP's stdio shutdown). */
const STDIN_CLOSE_GRACE_MS = 500;
/** Between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 1000;
/** After the process exited, how long its pipes may stay open (a straggler holding them is killed first). */
const PIPES_CLOSE_WAIT_MS = 1000;

/** The sandbox was asked for and this machine has none: the process was not started. */
export class SandboxUnavailableError extends Error {
  override readonly name = 'SandboxUnavailableError';
}

const live = new Set<Supervised>();

export async function startProcess(spec: ProcessSpec): Promise<SupervisedProcess> {
  const marker = newTreeMarker();
  const env = { ...(await buildServerEnv(spec.baseEnv)), ...spec.env, [EXEC_MARKER_VAR]: marker.slice(EXEC_MARKER_VAR.length + 1) };
  let command: CommandSpec = { file: spec.command, args: spec.args, cwd: spec.cwd, env };
  let prepared: PreparedCommand | undefined;
  let diesWithDeepdesk = false;
  if (spec.sandbox !== false) {
    const sandbox = await createSandbox(spec.sandbox);
    if (!sandbox) {
      const availability = await detectSandbox();
      const reason = availability.available ? 'the sandbox could not be made' : availability.reason;
      throw new SandboxUnavailableError(`no sandbox here (${reason}); set "sandbox": false in its entry to run it unsandboxed`);
    }
    prepared = await sandbox.prepare(command, { longLived: true });
    command = prepared;
    diesWithDeepdesk = sandbox.kind === 'bubblewrap';
  }
  const log = new LogTail(spec.logLines ?? DEFAULT_LOG_LINES);
  const checkEffects = reportingCheck(prepared, log);
  let guard: GitGuard | undefined;
  let child: ChildProcess;
  let before: PidMark | undefined;
  let rootStart: number | undefined;
  try {
    // Watching before it starts: nothing it does goes unseen.
    if (prepared?.checkNow && spec.sandbox !== false) {
      const writableOutside = prepared.env.TMPDIR !== undefined ? [realPathOf(prepared.env.TMPDIR)] : [];
      guard = await startGitGuard({ folder: realPathOf(spec.sandbox.projectDir), check: checkEffects, report: (line) => log.note(line), writableOutside });
    }
    before = pidMark();
    rootStart = startTicksNow();
    child = await spawnChild(command, spec.command, spec.role ?? 'server');
  } catch (err) {
    await guard?.close();
    await prepared?.dispose();
    throw err;
  }
  const pid = child.pid as number;
  // A process of its own group (detached), so that the group is the tree; registered
  // before anything else can go wrong.
  const release = diesWithDeepdesk ? () => undefined : watchProcessGroup(pid, marker);
  const tree: TreeOf = { marker, ...(rootStart !== undefined ? { rootStart } : {}), ...(before !== undefined ? { before } : {}) };
  const supervised = new Supervised(child, pid, tree, log, checkEffects, async () => {
    release();
    await guard?.close();
    // Once more at its end, saying what it finds; then the sandbox's own check after the run.
    await checkEffects().catch((err: unknown) => log.note(`deepdesk: git's files could not be checked at its end (${err instanceof Error ? err.message : String(err)})`));
    await prepared?.dispose();
  });
  live.add(supervised);
  void supervised.exited.then(() => live.delete(supervised));
  return supervised;
}

/** Ends every supervised process (Deepdesk is quitting). */
export async function stopAllProcesses(): Promise<void> {
  await Promise.all([...live].map((p) => p.stop()));
}

/** The supervised processes still running (for tests and diagnostics). */
export function liveProcessCount(): number {
  return live.size;
}

/** The sandbox's check of a running process, putting what it found in the process's log (once per finding). */
function reportingCheck(prepared: PreparedCommand | undefined, log: LogTail): () => Promise<LiveCheck> {
  const checkNow = prepared?.checkNow;
  if (!checkNow) return () => Promise.resolve({ unremoved: [] });
  let reported: LiveCheck | undefined;
  return async () => {
    const found = await checkNow();
    if (found !== reported) {
      reported = found;
      if (found.blockedLine !== undefined) log.note(`deepdesk: ${found.blockedLine}`);
      if (found.unremoved.length > 0) log.note(`deepdesk: could not undo what git would run outside the sandbox: ${found.unremoved.join(', ')}`);
    }
    return found;
  };
}

function spawnChild(command: CommandSpec, name: string, role: 'server' | 'hook' | 'agent'): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawnPipe({ role, file: command.file, args: command.args, cwd: command.cwd, env: command.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    } catch (err) {
      reject(new Error(`could not start ${name}: ${err instanceof Error ? err.message : String(err)}`));
      return;
    }
    child.once('spawn', () => resolve(child));
    child.once('error', (err) => reject(new Error(`could not start ${name}: ${err.message}`)));
  });
}

/** How a supervised process's tree is found: its marker, its start and the pids given out before it (process-tree.ts). */
type TreeOf = Pick<KillTreeOptions, 'rootStart' | 'before'> & { marker: string };

class Supervised implements SupervisedProcess {
  readonly stdin;
  readonly stdout;
  readonly exited: Promise<ProcessExit>;
  private running = true;
  private stopping: Promise<void> | undefined;

  constructor(
    child: ChildProcess,
    readonly pid: number,
    private readonly tree: TreeOf,
    private readonly log: LogTail,
    readonly checkEffects: () => Promise<LiveCheck>,
    cleanUp: () => Promise<void>,
  ) {
    if (!child.stdin || !child.stdout || !child.stderr) throw new Error('a supervised process needs its three pipes');
    this.stdin = child.stdin;
    this.stdout = child.stdout;
    // A write after the process ended must not throw out of the event loop.
    child.stdin.on('error', () => undefined);
    child.stderr.on('data', (chunk: Buffer) => log.push(chunk));
    child.stderr.on('end', () => log.end());
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    this.exited = new Promise<ProcessExit>((resolve) => {
      child.once('exit', (code, signal) => {
        this.running = false;
        void (async () => {
          // What it left behind (children of an unsandboxed process) goes with it.
          await killProcessTree(pid, { ...tree, graceMs: KILL_GRACE_MS, rootReaped: true });
          await Promise.race([closed, delay(PIPES_CLOSE_WAIT_MS, undefined, { ref: false })]);
          await cleanUp().catch(() => undefined);
          resolve({ code, signal });
        })();
      });
    });
  }

  logTail(): string {
    return this.log.text();
  }

  onLog(listener: (line: string) => void): () => void {
    return this.log.onLine(listener);
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.running) {
        // MCP's stdio shutdown: close its input first, then signals.
        this.stdin.end();
        const ended = await Promise.race([this.exited.then(() => true), delay(STDIN_CLOSE_GRACE_MS, undefined, { ref: false }).then(() => false)]);
        // Ended by itself, its tree may still be going (children that left its session, a sandbox's
        // pid namespace the kernel is still tearing down): stop() resolves once they are gone too.
        await killProcessTree(this.pid, { ...this.tree, graceMs: KILL_GRACE_MS, rootReaped: ended || !this.running });
      }
      await this.exited;
    })();
    return this.stopping;
  }
}
