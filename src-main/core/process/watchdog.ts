// Ends processes Deepdesk started when Deepdesk itself is killed (SIGKILL, a crash) and had
// no chance to stop them. bubblewrap does this by itself (--die-with-parent and its pid
// namespace); a process outside it (unsandboxed, or under Seatbelt, which has neither) is
// registered here. One small helper process per Deepdesk, in a session of its own, reads
// a pipe from Deepdesk: `+ PGID MARKER` registers a process group (and, on Linux, every
// process carrying the marker variable, which catches those that left the group), `- PGID`
// lets it go. When the pipe closes (Deepdesk is gone, whatever ended it) it sends SIGTERM
// to all of them, then SIGKILL after a grace period, and exits.
import type { ChildProcess } from 'node:child_process';
import { spawnPipe } from './spawn';
import type { Writable } from 'node:stream';

const GRACE_MS = 1000;

const WATCHDOG_SCRIPT = `
const fs = require('fs');
const groups = new Map();
let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  let at;
  while ((at = buffered.indexOf('\\n')) !== -1) {
    const [op, id, marker] = buffered.slice(0, at).split(' ');
    buffered = buffered.slice(at + 1);
    const pgid = Number(id);
    if (!(pgid > 1)) continue;
    if (op === '+') groups.set(pgid, marker || '');
    else if (op === '-') groups.delete(pgid);
  }
});
function marked() {
  const markers = [...groups.values()].filter(Boolean).map((m) => m + '\\0');
  const pids = [];
  if (markers.length === 0) return pids;
  let names = [];
  try { names = fs.readdirSync('/proc'); } catch { return pids; }
  for (const name of names) {
    if (!/^\\d+$/.test(name)) continue;
    try {
      const env = fs.readFileSync('/proc/' + name + '/environ');
      if (markers.some((m) => env.includes(m))) pids.push(Number(name));
    } catch {}
  }
  return pids;
}
function signal(sig) {
  for (const pgid of groups.keys()) { try { process.kill(-pgid, sig); } catch {} }
  for (const pid of marked()) { if (pid !== process.pid) { try { process.kill(pid, sig); } catch {} } }
}
let ending = false;
function end() {
  if (ending) return;
  ending = true;
  if (groups.size === 0) process.exit(0);
  signal('SIGTERM');
  setTimeout(() => { signal('SIGKILL'); process.exit(0); }, ${GRACE_MS});
}
process.stdin.on('end', end);
process.stdin.on('error', end);
`;

let watchdog: { child: ChildProcess; pipe: Writable } | undefined;

function ensureWatchdog(): Writable | undefined {
  if (watchdog && watchdog.child.exitCode === null && watchdog.child.signalCode === null) return watchdog.pipe;
  let child: ChildProcess;
  try {
    // Its own session: a signal to Deepdesk's process group (Ctrl-C in a terminal) must not end it first.
    child = spawnPipe({ role: 'watchdog', file: process.execPath, args: ['-e', WATCHDOG_SCRIPT], detached: true, stdio: ['pipe', 'ignore', 'ignore'], env: { ELECTRON_RUN_AS_NODE: '1' } });
  } catch {
    return undefined;
  }
  const pipe = child.stdin;
  if (!pipe) return undefined;
  child.on('error', () => {
    if (watchdog?.child === child) watchdog = undefined;
  });
  pipe.on('error', () => undefined);
  // Neither the helper nor its pipe keeps Deepdesk running.
  child.unref();
  (pipe as Writable & { unref?: () => void }).unref?.();
  watchdog = { child, pipe };
  return pipe;
}

/** Has the process group `pgid` (and processes carrying `marker`, `NAME=VALUE`) ended if Deepdesk dies. Returns the release. */
export function watchProcessGroup(pgid: number, marker: string): () => void {
  const pipe = ensureWatchdog();
  if (!pipe) return () => undefined;
  pipe.write(`+ ${pgid} ${marker}\n`);
  return () => {
    if (!pipe.destroyed) pipe.write(`- ${pgid}\n`);
  };
}
