// One remote folder's connection (SPEC §13): the system OpenSSH client, so the person's
// ~/.ssh/config, agent, keys, certificates and ProxyJump apply as in their terminal. Every
// call is `ssh HOST 'sh -c SCRIPT'` over the connection's own multiplexed master (ControlMaster),
// so a call costs a channel, not a handshake. Nothing is installed on the remote: the
// scripts use a POSIX shell and the usual tools.
//
// Why not a JS client (ssh2): it would not read ~/.ssh/config (Include, Match, ProxyJump,
// ProxyCommand, CertificateFile, IdentityAgent), the person's known_hosts handling or their
// agent forwarding rules the same way, and a person whose terminal `ssh box` works expects
// Deepdesk to work the same; the per-call cost over a master is a channel open (measured in
// the bench rows against a bare `ssh host true`).

import { sshEnv } from '../../process/child-env';
import { spawnPipe, spawnPiped } from '../../process/spawn';
import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { shQuote } from '../../text/shell-quote';
import { MAX_SESSION_INPUT_BYTES, SessionCallError, SessionPool, type RunResult } from './ssh-sessions';
import { sshTargetLabel, type SshTarget } from './ssh-target';
import { nonEmpty } from '../../models/create-model';

/** A POSIX shell word for `value`: single-quoted, a `'` as `'\''`. */
export interface SshConnectionOptions {
  target: SshTarget;
  /** Where the master's control socket lives (a short path: sockets have a ~100-byte limit). */
  controlDir: string;
  /**
   * The ssh command (as GIT_SSH_COMMAND is: a shell command line to which ssh's arguments
   * are added), default `ssh`; DEEPDESK_SSH_COMMAND sets it from the environment.
   */
  sshCommand?: string;
  env?: NodeJS.ProcessEnv;
}

export interface RunOptions {
  /** Written to the remote command's stdin (then closed). */
  input?: Uint8Array | string;
  signal?: AbortSignal;
  /** Ends the call (and its ssh client) after this long. */
  timeoutMs?: number;
  /** Over a channel of its own, never waiting behind other calls for a kept shell (a kill). */
  ownChannel?: boolean;
}

/** The connection failed (not the remote command): names the host; the next call tries again. */
export class SshConnectionError extends Error {
  constructor(
    message: string,
    readonly reason: 'unreachable' | 'lost' | 'host-key' | 'auth' | 'timeout',
  ) {
    super(message);
  }
}

/** ssh's own failures (exit 255 with one of these) as opposed to a remote command exiting 255. */
/** Seconds a master with no calls stays up. */
const PERSIST_S = 300;
/** How many remote shells run scripts at once (sshd allows 10 sessions per connection). */
const SHELLS = 3;

const SSH_FAILURES: Array<{ pattern: RegExp; reason: SshConnectionError['reason']; say: string }> = [
  { pattern: /REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed|host key for .* has changed|No (ED25519|RSA|ECDSA)? ?host key is known/i, reason: 'host-key', say: "refused: the host's key does not match the one known for it (or none is known)" },
  { pattern: /Permission denied|Too many authentication failures|no matching (host key type|key exchange)/i, reason: 'auth', say: 'could not log in' },
  { pattern: /Could not resolve hostname|Name or service not known|nodename nor servname/i, reason: 'unreachable', say: 'unknown host' },
  { pattern: /Connection refused|No route to host|Network is unreachable|Connection timed out|Operation timed out|connect to host/i, reason: 'unreachable', say: 'cannot connect' },
  { pattern: /Connection (closed|reset)|Broken pipe|client_loop|mux_client|Control socket|ControlSocket|kex_exchange_identification|Timeout, server .* not responding|packet_write_wait/i, reason: 'lost', say: 'lost the connection' },
];

export class SshConnection {
  readonly target: SshTarget;
  readonly label: string;
  /** This connection's master socket: its own, never another connection's (see the constructor). */
  readonly controlPath: string;
  private readonly sshCommand: string;
  /** What ssh runs with (child-env.ts sshEnv): the base allow-list and the ssh agent's socket. */
  readonly env: Record<string, string>;
  private readonly shells: SessionPool;

  constructor(options: SshConnectionOptions) {
    this.target = options.target;
    this.label = sshTargetLabel(options.target);
    mkdirSync(options.controlDir, { recursive: true, mode: 0o700 });
    checkPrivateDir(options.controlDir);
    // A master of its own, not one per destination (%C): closing a connection ends its master
    // (`-O exit`), which would cut another folder's calls to the same host; and a master still
    // exiting removes its socket path as it goes, which would take a new master's socket at
    // that path with it ("Failed to connect to new control master").
    this.controlPath = join(options.controlDir, randomBytes(8).toString('hex'));
    const from = options.env ?? process.env;
    this.env = sshEnv(from);
    this.sshCommand = options.sshCommand ?? nonEmpty(from.DEEPDESK_SSH_COMMAND) ?? 'ssh';
    this.shells = new SessionPool(() => ({ ...this.spawnArgs([...this.sshArgs(['-T']), 'exec sh']), env: this.env }), SHELLS);
  }

  /** ssh's arguments before the remote command. */
  private sshArgs(extra: string[] = []): string[] {
    const { host, user, port } = this.target;
    return [
      '-o', 'BatchMode=yes',
      '-o', 'ControlMaster=auto',
      '-o', `ControlPath=${this.controlPath}`,
      '-o', `ControlPersist=${PERSIST_S}`,
      '-o', 'ServerAliveInterval=15',
      '-o', 'ServerAliveCountMax=3',
      '-o', 'ConnectTimeout=20',
      '-o', 'LogLevel=ERROR',
      ...(port !== undefined ? ['-p', String(port)] : []),
      ...(user !== undefined ? ['-l', user] : []),
      ...extra,
      '--',
      host,
    ];
  }

  /** The process to start for ssh with these arguments (through `sh -c` when the command has options of its own). */
  spawnArgs(args: string[]): { file: string; args: string[] } {
    if (/^[A-Za-z0-9_./-]+$/.test(this.sshCommand)) return { file: this.sshCommand, args };
    return { file: '/bin/sh', args: ['-c', `${this.sshCommand} "$@"`, 'ssh', ...args] };
  }

  /** The full argv (file, args) that runs `script` with `sh -c` on the remote; `tty` asks for a pty. */
  commandLine(script: string, options: { tty?: boolean } = {}): { file: string; args: string[] } {
    return this.spawnArgs([...this.sshArgs(options.tty ? ['-tt'] : ['-T']), `exec sh -c ${shQuote(script)}`]);
  }

  /** Runs a POSIX shell script on the remote; rejects with SshConnectionError when ssh itself failed. */
  run(script: string, options: RunOptions = {}): Promise<RunResult> {
    const input = typeof options.input === 'string' ? Buffer.from(options.input, 'utf8') : options.input;
    if (options.ownChannel === true || (input !== undefined && input.length > MAX_SESSION_INPUT_BYTES)) return this.runOnChannel(script, options);
    return this.runInShell(script, { ...options, ...(input !== undefined ? { input } : {}) });
  }

  /** In one of the kept remote shells (a small input carried in the script). */
  private async runInShell(script: string, options: RunOptions): Promise<RunResult> {
    try {
      const input = options.input as Uint8Array | undefined;
      return await this.shells.run({ script, ...(input !== undefined ? { input } : {}), ...(options.signal ? { signal: options.signal } : {}), ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) });
    } catch (err) {
      if (!(err instanceof SessionCallError)) throw err;
      const failure = err.failure;
      if (failure.kind === 'no-input') return this.runOnChannel(script, options);
      if (failure.kind === 'aborted') throw failure.reason instanceof Error ? failure.reason : new Error('aborted');
      if (failure.kind === 'timeout') throw this.timedOut(options.timeoutMs);
      const end = failure.end;
      throw this.failureOf(end.stderr, end.signal) ?? new SshConnectionError(`lost the connection (${this.label}): ${lastLine(end.stderr) || `the remote shell ended (exit ${end.code ?? '?'})`}`, 'lost');
    }
  }

  private timedOut(timeoutMs: number | undefined): SshConnectionError {
    return new SshConnectionError(`${this.label} did not answer within ${Math.round((timeoutMs ?? 0) / 1000)} s`, 'timeout');
  }

  /** Over a channel of its own, with `input` on its stdin. */
  private runOnChannel(script: string, options: RunOptions): Promise<RunResult> {
    const { file, args } = this.commandLine(script);
    return new Promise((resolve, reject) => {
      if (options.signal?.aborted) {
        reject(options.signal.reason instanceof Error ? options.signal.reason : new Error('aborted'));
        return;
      }
      const child = spawnPiped({ role: 'ssh', file, args, env: this.env });
      const out: Buffer[] = [];
      let err = '';
      let timedOut = false;
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
      const stop = () => child.kill('SIGTERM');
      const timer = options.timeoutMs !== undefined ? setTimeout(() => ((timedOut = true), stop()), options.timeoutMs) : undefined;
      options.signal?.addEventListener('abort', stop, { once: true });
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(new SshConnectionError(`cannot run ssh for ${this.label}: ${error.message}`, 'unreachable'));
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', stop);
        if (options.signal?.aborted) {
          reject(options.signal.reason instanceof Error ? options.signal.reason : new Error('aborted'));
          return;
        }
        if (timedOut) {
          reject(this.timedOut(options.timeoutMs));
          return;
        }
        const failure = code === 255 || signal !== null ? this.failureOf(err, signal) : undefined;
        if (failure) {
          reject(failure);
          return;
        }
        resolve({ code: code ?? 1, stdout: Buffer.concat(out), stderr: err });
      });
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.input ?? '');
    });
  }

  private failureOf(stderr: string, signal: NodeJS.Signals | null): SshConnectionError | undefined {
    const text = stderr.trim();
    for (const failure of SSH_FAILURES) {
      if (failure.pattern.test(text)) return new SshConnectionError(`${failure.say} (${this.label}): ${lastLine(text)}`, failure.reason);
    }
    if (signal !== null) return new SshConnectionError(`lost the connection (${this.label}): ssh ended by ${signal}`, 'lost');
    // Exit 255 with nothing ssh would say: the remote command's own status.
    return undefined;
  }

  /** Ends the remote shells and the master connection (best effort). */
  async close(): Promise<void> {
    this.shells.close();
    const { file, args } = this.spawnArgs([...this.sshArgs(['-O', 'exit'])]);
    await new Promise<void>((resolve) => {
      const child = spawnPipe({ role: 'ssh', file, args, env: this.env, stdio: 'ignore' });
      child.on('error', () => resolve());
      child.on('close', () => resolve());
    });
  }
}

/**
 * A control socket lets whoever reaches it run commands on the remote as the person: its
 * folder must be a real folder of the person's (a shared /tmp could hold one planted by another
 * user), and is closed to everyone else.
 */
export function checkPrivateDir(dir: string): void {
  const stat = lstatSync(dir);
  const uid = process.getuid?.();
  if (!stat.isDirectory()) throw new Error(`refusing ssh control folder ${dir}: not a folder`);
  if (uid !== undefined && stat.uid !== uid) throw new Error(`refusing ssh control folder ${dir}: it belongs to another user`);
  // The person's own folder, too open (made under a loose umask): closed now.
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

function lastLine(text: string): string {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.at(-1) ?? text;
}

