// Finds every process a command started and kills them all. A pty child is a session
// leader, so its pid is also its process group and session id; descendants that left the
// group (setsid) or were orphaned are still found through their parent chain or through a
// marker variable in their environment (/proc/<pid>/environ, Linux only).
import { querySync } from './spawn';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** The variable that marks every process a command or a supervised process starts, so that all of them can be found. */
export const EXEC_MARKER_VAR = 'DEEPDESK_EXEC_ID';

/** A fresh `NAME=VALUE` marker for one process tree. */
export function newTreeMarker(): string {
  return `${EXEC_MARKER_VAR}=${randomBytes(8).toString('hex')}`;
}

export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** Session id; -1 where the platform does not tell. */
  sid: number;
  /** One-letter state as in ps ('R', 'S', 'Z', ...). */
  state: string;
  /** Whether the environment holds the marker asked for. */
  marked: boolean;
}

export interface KillTreeOptions {
  /** `NAME=VALUE` placed in the command's environment; processes carrying it are part of the tree. */
  marker?: string;
  /** Wait this long after SIGTERM before SIGKILL. Default 1000 ms. */
  graceMs?: number;
  /**
   * SIGHUP instead of SIGTERM, as a closed terminal sends, to the root (a shell) only after what
   * runs in it has gone: an interactive shell ignores SIGTERM and would otherwise only meet
   * SIGKILL, which skips its EXIT traps and history (and the locks its rc files took).
   */
  hangUp?: boolean;
  /** The root has exited and was reaped: its pid may be someone else's now; only its group, session and marked processes count. */
  rootReaped?: boolean;
  /**
   * The root's start or earlier (startTicksNow, read before it started): every process of its
   * tree started at or after it, so the environment of one started before is not read for the
   * marker (the costly part of a scan).
   */
  rootStart?: number;
  /**
   * Where pid allocation stood just before the root was started (pidMark): every process of
   * its tree got a pid given out since, so a scan reads only those (none when no pid was given
   * out since: the usual end of a hook).
   */
  before?: PidMark;
}

/** The last pid given out in this pid namespace, and the forks since boot (Linux). */
export interface PidMark {
  lastPid: number;
  forks: number;
}

const HAS_PROC = (() => {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
})();

/**
 * /proc is this process's pid namespace's (its pids are ours) and tells where pid allocation
 * stands; otherwise no scan is narrowed.
 */
const PIDS_IN_ORDER = (() => {
  if (!HAS_PROC) return false;
  try {
    return readlinkSync('/proc/self') === String(process.pid) && readPidMark() !== undefined && pidMax() !== undefined;
  } catch {
    return false;
  }
})();

function pidMax(): number | undefined {
  const max = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8').trim());
  return Number.isInteger(max) && max > 0 ? max : undefined;
}

function readPidMark(): PidMark | undefined {
  const lastPid = Number(readFileSync('/proc/sys/kernel/ns_last_pid', 'utf8').trim());
  const forks = Number(/^processes (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1] ?? NaN);
  return Number.isInteger(lastPid) && Number.isInteger(forks) ? { lastPid, forks } : undefined;
}

/** Where pid allocation stands now (read it just before starting a tree's root); undefined where the platform does not tell. */
export function pidMark(): PidMark | undefined {
  if (!PIDS_IN_ORDER) return undefined;
  try {
    return readPidMark();
  } catch {
    return undefined;
  }
}

/**
 * The pids given out from the root's on (the root's included), or undefined when that cannot
 * be told (a scan then reads every process). The kernel gives pids out in turn, wrapping at
 * pid_max; while fewer processes were forked since `before` (threads included, on the whole
 * machine) than it takes to come round again, every process started after the root has a pid
 * on the arc from the root's to the last one given out. `none`: no pid was given out after
 * the root's.
 */
function pidsFromRoot(rootPid: number, before: PidMark | undefined): { has: (pid: number) => boolean; none: boolean } | undefined {
  if (before === undefined || !PIDS_IN_ORDER) return undefined;
  let now: PidMark | undefined;
  let max: number | undefined;
  try {
    now = readPidMark();
    max = pidMax();
  } catch {
    return undefined;
  }
  // Pids below 300 are not handed out again after a wrap; a margin of as many more.
  if (now === undefined || max === undefined || now.forks - before.forks >= max - 600) return undefined;
  const onArc = (from: number, to: number, pid: number): boolean => (to >= from ? pid > from && pid <= to : pid > from || pid <= to);
  // The root's pid was given out after the mark, or the mark is not this root's.
  if (!onArc(before.lastPid, now.lastPid, rootPid)) return undefined;
  return { has: (pid) => pid === rootPid || onArc(rootPid, now.lastPid, pid), none: now.lastPid === rootPid };
}

/** Parses /proc/<pid>/stat; the command name may itself contain spaces and parentheses. */
function readProcStat(pid: number): (Omit<ProcessInfo, 'marked'> & { start: number; exiting: boolean }) | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' ');
  const [state, ppid, pgid, sid] = fields;
  if (state === undefined || ppid === undefined || pgid === undefined || sid === undefined) return undefined;
  // Field 9 (flags): PF_EXITING (0x4) set, PF_KTHREAD (0x200000) not: on its way out. Field 22 (starttime, clock ticks since boot) is the 20th after the name.
  return { pid, ppid: Number(ppid), pgid: Number(pgid), sid: Number(sid), state, start: Number(fields[19] ?? NaN), exiting: (Number(fields[6]) & 0x200004) === 0x4 };
}

/** When the process started, in clock ticks since boot (Linux); undefined elsewhere or once it is gone. */
export function processStartTicks(pid: number): number | undefined {
  if (!HAS_PROC) return undefined;
  const start = readProcStat(pid)?.start;
  return start !== undefined && Number.isFinite(start) ? start : undefined;
}

/**
 * Now, in processStartTicks' clock (ticks of 1/100 s since boot, as /proc/uptime counts them):
 * a process started after this call has a start at least this. Taken before a tree's root is
 * started, it stands for the root's start: reading the root's own start after the fork blocks
 * while the new process execs (up to ~1.5 ms a command), and finds nothing once it is reaped.
 */
export function startTicksNow(): number | undefined {
  if (!HAS_PROC) return undefined;
  try {
    const uptime = /^(\d+)\.(\d\d)/.exec(readFileSync('/proc/uptime', 'latin1'));
    return uptime ? Number(uptime[1]) * 100 + Number(uptime[2]) : undefined;
  } catch {
    return undefined;
  }
}

/** An exiting process's environment went with its memory (empty, or ESRCH): it counts (a sandbox's dying pid-namespace init is nobody's child); no signal harms it. */
function environHas(pid: number, marker: string, exiting: boolean): boolean {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`);
    return environ.includes(`${marker}\0`) || (exiting && environ.length === 0);
  } catch {
    return exiting;
  }
}

/**
 * A snapshot of the processes on the machine (those we may see); the marker is looked for in
 * those started at or after `markedSince`. With `only`, the processes whose pids it takes
 * (the others are not read).
 */
export function listProcesses(marker?: string, markedSince?: number, only?: (pid: number) => boolean): ProcessInfo[] {
  if (HAS_PROC) {
    const out: ProcessInfo[] = [];
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      const pid = Number(name);
      if (only !== undefined && !only(pid)) continue;
      const stat = readProcStat(pid);
      if (!stat) continue;
      const { start, exiting, ...info } = stat;
      const candidate = marker !== undefined && (markedSince === undefined || !(start < markedSince));
      out.push({ ...info, marked: candidate && environHas(pid, marker, exiting) });
    }
    return out;
  }
  const text = querySync('ps', ['-A', '-o', 'pid=,ppid=,pgid=,stat='], 5000);
  if (text === undefined) return [];
  const out: ProcessInfo[] = [];
  for (const line of text.split('\n')) {
    const [pid, ppid, pgid, stat] = line.trim().split(/\s+/);
    if (pid === undefined || ppid === undefined || pgid === undefined || stat === undefined) continue;
    out.push({ pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid), sid: -1, state: stat.charAt(0), marked: false });
  }
  return out;
}

/** Our own process and its ancestors: never signalled, whatever a snapshot says. */
function protectedPids(processes: ProcessInfo[]): Set<number> {
  const byPid = new Map(processes.map((p) => [p.pid, p]));
  const keep = new Set<number>([0, 1]);
  let pid: number | undefined = process.pid;
  while (pid !== undefined && pid > 1 && !keep.has(pid)) {
    keep.add(pid);
    pid = byPid.get(pid)?.ppid;
  }
  return keep;
}

/**
 * The live (non-zombie) processes of the tree of the session leader `rootPid`: its process
 * group and session (which include the leader itself), everything carrying the marker, and
 * all their descendants. The root pid alone is not trusted: once reaped it may be reused.
 */
export function collectProcessTree(rootPid: number, marker?: string, rootReaped = false, rootStart?: number, before?: PidMark): number[] {
  const since = pidsFromRoot(rootPid, before);
  // No pid given out after the root's: its tree is the root alone, and it was reaped.
  if (since?.none === true && rootReaped) return [];
  const processes = listProcesses(marker, rootStart, since?.has);
  const keep = protectedPids(processes);
  const children = new Map<number, number[]>();
  for (const p of processes) {
    const list = children.get(p.ppid);
    if (list) list.push(p.pid);
    else children.set(p.ppid, [p.pid]);
  }
  const found = new Set<number>();
  const queue: number[] = [];
  const add = (pid: number): void => {
    if (found.has(pid) || keep.has(pid)) return;
    found.add(pid);
    queue.push(pid);
  };
  for (const p of processes) {
    // The root itself too: just spawned, it may not have made its own group or session yet (nor exec'd with the marker).
    if ((p.pid === rootPid && !rootReaped) || p.pgid === rootPid || p.sid === rootPid || p.marked) add(p.pid);
  }
  while (queue.length > 0) {
    const pid = queue.pop() as number;
    for (const child of children.get(pid) ?? []) add(child);
  }
  const live = new Set(processes.filter((p) => !isZombieState(p.state)).map((p) => p.pid));
  return [...found].filter((pid) => live.has(pid)).sort((a, b) => a - b);
}

function isZombieState(state: string): boolean {
  return state === 'Z' || state === 'X' || state === 'x';
}

/** True while the process exists and is not a zombie waiting to be reaped. */
export function isProcessAlive(pid: number): boolean {
  if (HAS_PROC) {
    const stat = readProcStat(pid);
    return stat !== undefined && !isZombieState(stat.state);
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** False only when no process is in the group (ESRCH); a group we may not signal exists. */
function groupExists(pgid: number): boolean {
  if (pgid <= 1) return true;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Sends a signal, ignoring processes that are already gone. Negative pid: a process group. */
export function sendSignal(pid: number, signal: NodeJS.Signals): void {
  if (pid === 0 || pid === 1 || pid === -1 || pid === process.pid || pid === -process.pid) return;
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: already gone; EPERM: not ours to kill.
  }
}

async function waitUntilDead(pids: number[], timeoutMs: number, isAlive = isProcessAlive): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let alive = pids.filter(isAlive);
  while (alive.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    alive = alive.filter(isAlive);
  }
  return alive;
}

/**
 * Kills the whole tree of `rootPid` (see collectProcessTree): SIGTERM to the group and to
 * every member, SIGKILL to whatever is still alive after the grace period, repeated for
 * processes forked meanwhile. Resolves once every member it ever found is gone (or after a few
 * seconds if the kernel cannot kill one, e.g. in uninterruptible sleep).
 */
export async function killProcessTree(rootPid: number, options: KillTreeOptions = {}): Promise<void> {
  const graceMs = options.graceMs ?? 1000;
  const members = new Map<number, number | undefined>(); // each found, with its start: a pid handed out again is someone else
  const isMember = (pid: number): boolean => isProcessAlive(pid) && processStartTicks(pid) === members.get(pid);
  const collect = (): number[] => {
    const pids = collectProcessTree(rootPid, options.marker, options.rootReaped, options.rootStart, options.before);
    for (const pid of pids) if (!members.has(pid)) members.set(pid, processStartTicks(pid));
    return pids;
  };
  let pids = collect();
  if (options.hangUp === true) {
    // A terminal closing, in order: what runs in the shell first, so that their EXIT traps end
    // before the shell's own exit hangs up the terminal's foreground group a second time; then the shell.
    const inner = pids.filter((pid) => pid !== rootPid);
    for (const pid of inner) sendSignal(pid, 'SIGHUP');
    for (const pid of inner) sendSignal(pid, 'SIGCONT');
    await waitUntilDead(inner, graceMs, isMember);
    sendSignal(rootPid, 'SIGHUP');
    await waitUntilDead(pids, graceMs, isMember);
  } else {
    sendSignal(-rootPid, 'SIGTERM');
    // Nothing of a reaped root's tree is left, so nothing can have forked since: the usual end
    // of a short-lived process (a hook) needs no second scan of /proc (~4 ms).
    if (pids.length === 0 && options.rootReaped === true) return;
    // Each process once: a second SIGTERM while a shell runs its EXIT trap ends the trap half-way.
    for (const pid of pids) if (readProcStat(pid)?.pgid !== rootPid) sendSignal(pid, 'SIGTERM');
    // Stopped processes only act on SIGTERM once continued.
    for (const pid of pids) sendSignal(pid, 'SIGCONT');
    await waitUntilDead(pids, graceMs, isMember);
  }
  for (let round = 0; round < 5; round++) {
    pids = collect();
    sendSignal(-rootPid, 'SIGKILL');
    for (const pid of pids) sendSignal(pid, 'SIGKILL');
    if ((await waitUntilDead([...members.keys()], 1000, isMember)).length === 0 && pids.length === 0) return;
  }
}

/** Kills what is left of a process group (its leader already exited): SIGTERM, then SIGKILL. */
export async function killProcessGroup(pgid: number, graceMs = 1000): Promise<void> {
  // The common end: the group is already empty. One signal-0 says so without reading every
  // process of the machine (a process whose exit was reaped is no member either).
  if (!groupExists(pgid)) return;
  const processes = listProcesses();
  const keep = protectedPids(processes);
  let pids = processes.filter((p) => p.pgid === pgid && !keep.has(p.pid) && !isZombieState(p.state)).map((p) => p.pid);
  if (pids.length === 0) return;
  sendSignal(-pgid, 'SIGTERM');
  sendSignal(-pgid, 'SIGCONT');
  pids = await waitUntilDead(pids, graceMs);
  if (pids.length === 0) return;
  sendSignal(-pgid, 'SIGKILL');
  for (const pid of pids) sendSignal(pid, 'SIGKILL');
  await waitUntilDead(pids, 1000);
}
