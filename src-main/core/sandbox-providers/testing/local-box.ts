// What the providers' stand-ins (for tests only) keep a sandbox in: a "box" on this machine.
// A box is a few folders that appear at fixed absolute paths inside it (its home, /tmp), and
// its commands run in one bubblewrap held for the box's life (its daemon's: started with its
// first command, as a provider's daemon lives in its sandbox) with the system read-only, only
// the box's folders writable, no network and its own process namespace — so a command in a box
// can neither see the person's files nor reach a service on 127.0.0.1, as in a real provider's
// sandbox. Each command is a process group of its own there, ended whole when it ends or is killed.
// File operations (the providers' file APIs) resolve paths as the box sees them: a symlink
// is followed inside the box, never to this machine's file of that name.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { findBwrap } from '../../sandbox/bwrap';

export interface LocalBoxOptions {
  /** The box's home: the absolute path where its writable folder appears (`/home/daytona`). */
  home: string;
  /** Where boxes are kept on this machine (default a new temp folder). */
  baseDir?: string;
  id?: string;
}

export interface BoxRunOptions {
  /** An absolute path in the box (default its home). */
  cwd?: string;
  env?: Record<string, string>;
  stdin?: Uint8Array | string;
  /** The shell that runs `command` (default `bash -c`); `['sh', '-c']` etc. */
  shell?: readonly string[];
  /** `stdin`: `shell` alone runs, reading `command` from its stdin (as Daytona's daemon runs a plain execute); default after `shell`. */
  commandOn?: 'argv' | 'stdin';
  onStdout?: (chunk: Buffer) => void;
  onStderr?: (chunk: Buffer) => void;
}

export interface BoxProcess {
  /** The command's number in its box (a provider's pid for it). */
  pid: number;
  /** Resolves when the command and what it started have ended. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Ends the command's whole tree (its process group). */
  kill(): void;
  /** Sends `signal` to the command's process group. */
  signal(signal: NodeJS.Signals): void;
  stdout: Buffer[];
  stderr: Buffer[];
}

export type BoxFileError = 'file_not_found' | 'permission_denied' | 'is_directory' | 'invalid_path';

export class BoxFileFailure extends Error {
  constructor(readonly code: BoxFileError, message: string) {
    super(message);
  }
}

const DAEMON_LINE = z.union([
  z.strictObject({ id: z.number().int().positive(), fd: z.union([z.literal(1), z.literal(2)]), data: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/) }),
  z.strictObject({ id: z.number().int().positive(), code: z.number().int().nullable(), signal: z.string().regex(/^SIG[A-Z0-9]+$/).nullable() }),
]);

/** One line of the daemon's, or undefined when it is not of its form. */
export function daemonLine(line: string): { id: number; fd: 1 | 2; data: string } | { id: number; code: number | null; signal: NodeJS.Signals | null } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  const m = DAEMON_LINE.safeParse(parsed);
  if (!m.success) return undefined;
  return 'fd' in m.data ? m.data : { id: m.data.id, code: m.data.code, signal: m.data.signal as NodeJS.Signals | null };
}

/** Ends the daemon's bubblewrap, and with it everything in the box's namespaces. */
function killDaemon(daemon: BoxDaemon): void {
  const { child } = daemon;
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Ended meanwhile.
  }
}

interface BoxDaemon {
  child: ChildProcess;
  commands: Map<number, { out: (c: Buffer) => void; err: (c: Buffer) => void; end: (r: { code: number | null; signal: NodeJS.Signals | null }) => void }>;
  send(message: object): void;
}

/** Where the daemon's Node (this process's own binary) appears in the box. */
const DAEMON_NODE = '/.deepdesk-standin/node';

/**
 * The daemon's program, run by Node inside the box: JSON lines in (`run`, `signal`), JSON lines
 * out (`{id, fd, data}` output in base64, `{id, code, signal}` at the end). Each command is the
 * leader of its own process group; when it exits, the group is killed (what it left running goes
 * with it, as when each command had its own process namespace), then its end is said once its
 * output is closed.
 */
const DAEMON_SOURCE = String.raw`
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const procs = new Map();
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const killGroup = (pid, signal) => { try { process.kill(-pid, signal); } catch {} };
function run(m) {
  let dir = false;
  try { dir = fs.statSync(m.cwd).isDirectory(); } catch {}
  if (!dir) {
    send({ id: m.id, fd: 2, data: Buffer.from('cannot change to ' + m.cwd + ': No such file or directory\n').toString('base64') });
    return send({ id: m.id, code: 1, signal: null });
  }
  let ended = false;
  const end = (code, signal) => { if (!ended) { ended = true; procs.delete(m.id); send({ id: m.id, code, signal }); } };
  let c;
  try {
    c = spawn(m.argv[0], m.argv.slice(1), { cwd: m.cwd, env: m.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (e) {
    return end(127, null);
  }
  procs.set(m.id, c);
  c.stdout.on('data', (b) => send({ id: m.id, fd: 1, data: b.toString('base64') }));
  c.stderr.on('data', (b) => send({ id: m.id, fd: 2, data: b.toString('base64') }));
  c.on('error', () => end(127, null));
  c.on('exit', () => { if (c.pid) killGroup(c.pid, 'SIGKILL'); });
  c.on('close', (code, signal) => end(code, signal));
  c.stdin.on('error', () => {});
  c.stdin.end(Buffer.from(m.stdin, 'base64'));
}
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
    const m = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    if (m.op === 'run') run(m);
    else if (m.op === 'signal') { const c = procs.get(m.id); if (c && c.pid) killGroup(c.pid, m.signal); }
  }
});
process.stdin.on('end', () => process.exit(0));
`;

const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];
const MAX_LINKS = 40;

export class LocalBox {
  readonly id: string;
  readonly home: string;
  /** On this machine: the box's folder (holding `home/` and `tmp/`). */
  readonly dir: string;
  private readonly mounts: Array<{ inBox: string; host: string }>;
  private readonly live = new Set<BoxProcess>();
  private destroyed = false;
  /** The temporary folder this box made for itself (none when given a base): removed with it. */
  private readonly ownBase: string | undefined;
  private daemon: BoxDaemon | undefined;
  private nextId = 0;

  constructor(options: LocalBoxOptions) {
    if (!path.posix.isAbsolute(options.home) || options.home === '/') throw new Error('a box home is an absolute path below /');
    this.id = options.id ?? randomBytes(8).toString('hex');
    this.home = path.posix.normalize(options.home);
    const base = options.baseDir ?? fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-standin-'));
    this.ownBase = options.baseDir === undefined ? base : undefined;
    this.dir = fs.realpathSync(base) + '/' + this.id;
    fs.mkdirSync(path.join(this.dir, 'home'), { recursive: true, mode: 0o755 });
    fs.mkdirSync(path.join(this.dir, 'tmp'), { recursive: true, mode: 0o1777 });
    this.mounts = [
      { inBox: this.home, host: path.join(this.dir, 'home') },
      { inBox: '/tmp', host: path.join(this.dir, 'tmp') },
    ];
  }

  get gone(): boolean {
    return this.destroyed;
  }

  /** This machine's path of the box path `abs`, following links inside the box; throws BoxFileFailure. */
  hostPath(abs: string, options: { followLast?: boolean; forWrite?: boolean } = {}): string {
    if (!path.posix.isAbsolute(abs) || abs.includes('\0')) throw new BoxFileFailure('invalid_path', `not an absolute path: ${abs}`);
    const followLast = options.followLast ?? true;
    let parts = abs.split('/').filter((p) => p !== '' && p !== '.');
    let resolved: string[] = [];
    let links = 0;
    while (parts.length > 0) {
      const part = parts.shift()!;
      if (part === '..') {
        resolved.pop();
        continue;
      }
      const candidate = [...resolved, part];
      const host = this.mapped('/' + candidate.join('/'));
      if (host === undefined) {
        resolved = candidate;
        continue;
      }
      let st: fs.Stats | undefined;
      try {
        st = fs.lstatSync(host);
      } catch {
        st = undefined;
      }
      if (st?.isSymbolicLink() && (parts.length > 0 || followLast)) {
        if (++links > MAX_LINKS) throw new BoxFileFailure('invalid_path', `too many links: ${abs}`);
        const target = fs.readlinkSync(host);
        parts = [...target.split('/').filter((p) => p !== '' && p !== '.'), ...parts];
        if (target.startsWith('/')) resolved = [];
        continue;
      }
      resolved = candidate;
    }
    const inBox = '/' + resolved.join('/');
    const host = this.mapped(inBox);
    if (host !== undefined) return host;
    if (options.forWrite) throw new BoxFileFailure('permission_denied', `read-only in the box: ${inBox}`);
    if (SYSTEM_DIRS.some((d) => inBox === d || inBox.startsWith(d + '/'))) return inBox;
    // The box's root and the folders its mounts hang from are there (read-only), as in any sandbox: a command may start in `/`.
    if (this.mounts.some((m) => inBox === '/' || m.inBox.startsWith(inBox + '/'))) return this.dir;
    throw new BoxFileFailure('file_not_found', `no such file in the box: ${inBox}`);
  }

  private mapped(inBox: string): string | undefined {
    for (const m of this.mounts) {
      if (inBox === m.inBox) return m.host;
      if (inBox.startsWith(m.inBox + '/')) return m.host + inBox.slice(m.inBox.length);
    }
    return undefined;
  }

  readFile(abs: string): Buffer {
    this.alive();
    const host = this.hostPath(abs);
    let st: fs.Stats;
    try {
      st = fs.statSync(host);
    } catch (err) {
      throw fileFailure(err, abs);
    }
    if (st.isDirectory()) throw new BoxFileFailure('is_directory', `is a directory: ${abs}`);
    try {
      return fs.readFileSync(host);
    } catch (err) {
      throw fileFailure(err, abs);
    }
  }

  /** Writes a file, making its parents (as the providers' upload calls do). */
  writeFile(abs: string, content: Uint8Array | string, mode?: number): void {
    this.alive();
    const host = this.hostPath(abs, { forWrite: true });
    try {
      if (fs.statSync(host, { throwIfNoEntry: false })?.isDirectory()) throw new BoxFileFailure('is_directory', `is a directory: ${abs}`);
      this.makeParents(path.posix.dirname(abs));
      fs.writeFileSync(host, content);
      if (mode !== undefined) fs.chmodSync(host, mode & 0o777);
    } catch (err) {
      throw fileFailure(err, abs);
    }
  }

  makeDir(abs: string): void {
    this.alive();
    this.makeParents(abs);
  }

  private makeParents(absDir: string): void {
    const parts = absDir.split('/').filter(Boolean);
    for (let i = 1; i <= parts.length; i++) {
      const sub = '/' + parts.slice(0, i).join('/');
      const host = this.hostPathOrUndefined(sub);
      if (host === undefined) continue;
      const st = fs.statSync(host, { throwIfNoEntry: false });
      if (st === undefined) fs.mkdirSync(host);
      else if (!st.isDirectory()) throw new BoxFileFailure('invalid_path', `not a directory: ${sub}`);
    }
  }

  private hostPathOrUndefined(abs: string): string | undefined {
    try {
      return this.hostPath(abs, { forWrite: true });
    } catch {
      return undefined;
    }
  }

  stat(abs: string): fs.Stats | undefined {
    try {
      return fs.lstatSync(this.hostPath(abs, { followLast: false }));
    } catch {
      return undefined;
    }
  }

  remove(abs: string): void {
    this.alive();
    fs.rmSync(this.hostPath(abs, { followLast: false, forWrite: true }), { recursive: true, force: true });
  }

  /**
   * Runs `command` in the box (see the top of this file): through the box's daemon, started with
   * the box's first command, as a provider's sandbox runs commands through the daemon inside it.
   */
  run(command: string, options: BoxRunOptions = {}): BoxProcess {
    this.alive();
    const daemon = (this.daemon ??= this.startDaemon());
    const cwd = options.cwd ?? this.home;
    const env = { PATH: '/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin', HOME: this.home, LANG: 'C.UTF-8', ...options.env };
    const id = ++this.nextId;
    let resolveDone!: (r: { code: number | null; signal: NodeJS.Signals | null }) => void;
    const proc: BoxProcess = {
      pid: id,
      stdout: [],
      stderr: [],
      kill: () => proc.signal('SIGKILL'),
      signal: (signal: NodeJS.Signals) => {
        if (daemon.commands.has(id)) daemon.send({ op: 'signal', id, signal });
      },
      done: new Promise((resolve) => (resolveDone = resolve)),
    };
    daemon.commands.set(id, {
      out: (c) => {
        proc.stdout.push(c);
        options.onStdout?.(c);
      },
      err: (c) => {
        proc.stderr.push(c);
        options.onStderr?.(c);
      },
      end: (r) => resolveDone(r),
    });
    const onStdin = options.commandOn === 'stdin';
    const stdin = Buffer.from(onStdin ? command : (options.stdin ?? '')).toString('base64');
    daemon.send({ op: 'run', id, argv: [...(options.shell ?? ['bash', '-c']), ...(onStdin ? [] : [command])], cwd, env, stdin });
    this.live.add(proc);
    void proc.done.then(() => this.live.delete(proc));
    return proc;
  }

  /**
   * The box's daemon: one bubblewrap for the box's life (its folders bound, the system read-only,
   * every namespace its own, so no network) holding a small Node program that starts each
   * command in a process group of its own, streams its output and ends the group when the
   * command ends (what it left behind goes with it) or is killed. A bubblewrap per command would
   * cost its namespaces' set-up every time (tens of milliseconds on a loaded machine), which no
   * provider's daemon does.
   */
  private startDaemon(): BoxDaemon {
    const bwrap = findBwrap();
    if (!bwrap) throw new Error('bubblewrap is needed for a stand-in sandbox');
    const node = fs.realpathSync(process.execPath);
    const args = [
      '--unshare-all',
      '--die-with-parent',
      ...SYSTEM_DIRS.flatMap((d) => ['--ro-bind-try', d, d]),
      '--ro-bind', node, DAEMON_NODE,
      '--proc', '/proc',
      '--dev', '/dev',
      ...this.mounts.flatMap((m) => ['--bind', m.host, m.inBox]),
      '--hostname', 'sandbox',
      '--chdir', '/',
      DAEMON_NODE, '-e', DAEMON_SOURCE,
    ];
    // This process's binary may be Electron's: as Node, then.
    const child = spawn(bwrap, args, { env: { PATH: '/usr/bin:/bin', ELECTRON_RUN_AS_NODE: '1' }, detached: true, stdio: ['pipe', 'pipe', 'ignore'] });
    const daemon: BoxDaemon = {
      child,
      commands: new Map(),
      send: (message) => {
        if (child.stdin?.writable) child.stdin.write(JSON.stringify(message) + '\n');
      },
    };
    child.stdin!.on('error', () => undefined);
    const ended = (): void => {
      if (this.daemon === daemon) this.daemon = undefined;
      for (const command of daemon.commands.values()) command.end({ code: null, signal: 'SIGKILL' });
      daemon.commands.clear();
    };
    let pending = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (text: string) => {
      pending += text;
      // No line of the daemon's is longer than a chunk of output in base64.
      if (pending.length > 16 * 1024 * 1024) return void (killDaemon(daemon), ended());
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        // The daemon lives in the box, where a command can reach it: its lines are data, and one
        // that is not of its form ends the daemon (every command it ran ends killed).
        const m = daemonLine(line);
        if (m === undefined) return void (killDaemon(daemon), ended());
        const command = daemon.commands.get(m.id);
        if (!command) continue;
        if ('fd' in m) (m.fd === 1 ? command.out : command.err)(Buffer.from(m.data, 'base64'));
        else {
          daemon.commands.delete(m.id);
          command.end({ code: m.code, signal: m.signal });
        }
      }
    });
    child.on('close', ended);
    child.on('error', ended);
    return daemon;
  }

  private stopDaemon(): void {
    const daemon = this.daemon;
    if (!daemon) return;
    this.daemon = undefined;
    killDaemon(daemon);
  }

  /** Runs to the end (or `timeoutMs`, ending the tree) and collects the output. */
  async exec(command: string, options: BoxRunOptions & { timeoutMs?: number } = {}): Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }> {
    const p = this.run(command, options);
    let timedOut = false;
    const timer = options.timeoutMs ? setTimeout(() => ((timedOut = true), p.kill()), options.timeoutMs) : undefined;
    const { code } = await p.done;
    if (timer) clearTimeout(timer);
    return { code: timedOut ? null : code, stdout: Buffer.concat(p.stdout).toString('utf8'), stderr: Buffer.concat(p.stderr).toString('utf8'), timedOut };
  }

  /** Ends every running command and the box's daemon, with whatever they started (a stopped sandbox keeps its files). */
  stopAll(): void {
    this.stopDaemon();
  }

  /**
   * The files of the box whose folder is `from` (another box's `dir`, or a copy saved by
   * `saveFiles`) become this box's: a provider's fork or filesystem snapshot, as far as files go
   * (modes and symlinks kept; sockets and fifos, which no snapshot carries, left out).
   */
  copyFilesFrom(from: string): void {
    this.alive();
    for (const mount of this.mounts) {
      const part = path.basename(mount.host);
      fs.rmSync(mount.host, { recursive: true, force: true });
      fs.cpSync(path.join(from, part), mount.host, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true, filter: (src) => copyable(src) });
    }
  }

  /** Copies the box's files to `to` on this machine (a snapshot `copyFilesFrom(to)` restores). */
  saveFiles(to: string): void {
    this.alive();
    fs.mkdirSync(to, { recursive: true });
    for (const mount of this.mounts) fs.cpSync(mount.host, path.join(to, path.basename(mount.host)), { recursive: true, verbatimSymlinks: true, preserveTimestamps: true, filter: (src) => copyable(src) });
  }

  /** Ends every command and removes the box's files. */
  destroy(): void {
    this.stopDaemon();
    this.destroyed = true;
    fs.rmSync(this.ownBase ?? this.dir, { recursive: true, force: true });
  }

  private alive(): void {
    if (this.destroyed) throw new BoxFileFailure('file_not_found', 'the sandbox is gone');
  }
}

function copyable(src: string): boolean {
  const st = fs.lstatSync(src, { throwIfNoEntry: false });
  return st !== undefined && (st.isFile() || st.isDirectory() || st.isSymbolicLink());
}

function fileFailure(err: unknown, abs: string): Error {
  if (err instanceof BoxFileFailure) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new BoxFileFailure('file_not_found', `no such file: ${abs}`);
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return new BoxFileFailure('permission_denied', `permission denied: ${abs}`);
  if (code === 'EISDIR') return new BoxFileFailure('is_directory', `is a directory: ${abs}`);
  return new BoxFileFailure('invalid_path', `${code ?? 'failed'}: ${abs}`);
}
