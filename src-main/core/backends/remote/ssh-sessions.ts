// Long-lived remote shells for a connection's calls (SPEC §13). A call over its own ssh
// channel pays for a channel, the person's login shell and its rc files (hundreds of
// milliseconds on a dev box whose .bashrc starts pyenv or nvm); a shell started once and fed
// scripts pays that once. Each shell runs one script at a time, its stdout and stderr caught
// in files and sent back framed by their byte counts (so binary output and output that looks
// like our frames both come back intact); calls beyond the pool's size wait their turn.
// A shell that dies, times out or whose call is aborted is dropped (the next call starts a
// fresh one), so a lost connection fails only the calls in flight.

import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawnPiped } from '../../process/spawn';
import { shQuote } from '../../text/shell-quote';

export interface RunResult {
  /** The remote script's exit status. */
  code: number;
  stdout: Buffer;
  stderr: string;
}

const READY = '@@deepdesk-ready';
const FRAME = '@@deepdesk-frame';

// The shell's set-up: a private folder for the outputs (removed when the shell ends), and
// `__dd ID SCRIPT` running SCRIPT with stdin closed, then the frame header and the outputs.
const PRELUDE = [
  'umask 077',
  'T=$(mktemp -d "${TMPDIR:-/tmp}/deepdesk-sh.XXXXXX") || exit 1',
  "trap 'rm -rf \"$T\"' EXIT",
  "trap 'exit 1' HUP INT TERM PIPE",
  '__dd() {',
  '  sh -c "$2" </dev/null >"$T/o" 2>"$T/e"',
  '  __s=$?',
  `  printf '${FRAME} %s %s %s %s\\n' "$1" "$__s" $(wc -c <"$T/o") $(wc -c <"$T/e")`,
  '  cat "$T/o" "$T/e"',
  '}',
  // Whether input can travel inside a script (base64 -d decodes it there).
  `[ "$(printf eA== | base64 -d 2>/dev/null)" = x ] && __b=1 || __b=0`,
  `printf '%s %s\\n' '${READY}' "$__b"`,
  '',
].join('\n');

export interface SessionSpawn {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

export interface SessionCall {
  script: string;
  /** The script's stdin: carried inside the command (base64) when the remote can decode it, else the call is refused as 'no-input'. */
  input?: Uint8Array;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** How a shell ended before answering: ssh's stderr and exit, for the connection to name. */
export interface SessionEnd {
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The call's outcome when the shell could not answer it. */
export type SessionFailure = { kind: 'ended'; end: SessionEnd } | { kind: 'timeout' } | { kind: 'aborted'; reason: unknown } | { kind: 'no-input' };

/** The most input carried inside a script (its base64 must stay well under Linux's 128 KiB per argument). */
export const MAX_SESSION_INPUT_BYTES = 48 * 1024;

export class SessionCallError extends Error {
  constructor(readonly failure: SessionFailure) {
    super(failure.kind);
  }
}

interface Pending {
  id: number;
  resolve(result: RunResult): void;
  reject(error: SessionCallError): void;
}

/** One remote shell: a `sh` read from our pipe, started through ssh. */
class RemoteShell {
  private readonly child: ChildProcessWithoutNullStreams;
  /** stdout not yet consumed, in arrival order (joined only as a frame needs it). */
  private chunks: Buffer[] = [];
  private buffered = 0;
  private ready = false;
  private stderr = '';
  private pending: Pending | null = null;
  /** The frame being received: its header read, its bytes still arriving. */
  private frame: { code: number; outBytes: number; errBytes: number } | null = null;
  private nextId = 1;
  ended = false;
  readonly whenEnded: Promise<SessionEnd>;
  /** Whether the shell decodes input carried in a script; rejects if it ended before starting. */
  private readonly started: Promise<boolean>;
  private markReady: (decodesBase64: boolean) => void = () => undefined;
  private failStart: (error: SessionCallError) => void = () => undefined;

  constructor(spawnAs: SessionSpawn) {
    this.started = new Promise((resolve, reject) => {
      this.markReady = resolve;
      this.failStart = reject;
    });
    this.started.catch(() => undefined);
    this.child = spawnPiped({ role: 'ssh', file: spawnAs.file, args: spawnAs.args, env: spawnAs.env });
    this.child.stdout.on('data', (chunk: Buffer) => this.take(chunk));
    this.child.stderr.on('data', (chunk: Buffer) => {
      // Kept short: only the last lines name a failure.
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-8192);
    });
    this.child.stdin.on('error', () => undefined);
    this.whenEnded = new Promise((resolve) => {
      this.child.on('error', (error) => {
        this.stderr += `\n${error.message}`;
      });
      this.child.on('close', (code, signal) => {
        this.ended = true;
        const end = { stderr: this.stderr, code, signal };
        this.failStart(new SessionCallError({ kind: 'ended', end }));
        const pending = this.pending;
        this.pending = null;
        pending?.reject(new SessionCallError({ kind: 'ended', end }));
        resolve(end);
      });
    });
    this.child.stdin.write(PRELUDE);
  }

  async call(script: string, input?: Uint8Array): Promise<RunResult> {
    const decodesBase64 = await this.started;
    let command = script;
    if (input !== undefined && input.length > 0) {
      if (!decodesBase64 || input.length > MAX_SESSION_INPUT_BYTES) throw new SessionCallError({ kind: 'no-input' });
      command = `printf '%s' ${Buffer.from(input).toString('base64')} | base64 -d | sh -c ${shQuote(script)}`;
    }
    return new Promise((resolve, reject) => {
      if (this.ended) {
        void this.whenEnded.then((end) => reject(new SessionCallError({ kind: 'ended', end })));
        return;
      }
      const id = this.nextId++;
      this.pending = { id, resolve, reject };
      this.child.stdin.write(`__dd ${id} ${shQuote(command)}\n`);
    });
  }

  /** An idle shell does not keep the process alive (a CLI that is done exits); a busy one does. */
  hold(on: boolean): void {
    for (const handle of [this.child, this.child.stdin, this.child.stdout, this.child.stderr] as Array<{ ref?(): void; unref?(): void }>) {
      if (on) handle.ref?.();
      else handle.unref?.();
    }
  }

  /** Ends the shell (its ssh client; the remote shell then ends on the closed channel). */
  kill(): void {
    if (!this.ended) this.child.kill('SIGTERM');
  }

  private take(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    if (!this.ready) {
      // Whatever the person's rc files print comes before the ready line and is dropped.
      const text = this.joined();
      const at = text.indexOf(`${READY} `);
      const nl = at < 0 ? -1 : text.indexOf(0x0a, at);
      if (nl < 0) return;
      this.ready = true;
      this.markReady(text.toString('latin1', at + READY.length + 1, nl) === '1');
      this.consume(nl + 1);
    }
    this.answer();
  }

  private answer(): void {
    const pending = this.pending;
    if (pending === null) return;
    if (this.frame === null) {
      const head = this.joined();
      const nl = head.indexOf(0x0a);
      if (nl < 0) return;
      const header = head.toString('latin1', 0, nl).split(/\s+/);
      if (header[0] !== FRAME || Number(header[1]) !== pending.id) {
        // Not our frame: the shell is no longer in step with us; it cannot be trusted again.
        this.stderr += '\nthe remote shell answered out of step';
        this.kill();
        return;
      }
      this.frame = { code: Number(header[2]), outBytes: Number(header[3]), errBytes: Number(header[4]) };
      this.consume(nl + 1);
    }
    const { code, outBytes, errBytes } = this.frame;
    if (this.buffered < outBytes + errBytes) return;
    const body = this.joined();
    const stdout = Buffer.from(body.subarray(0, outBytes));
    const stderr = body.toString('utf8', outBytes, outBytes + errBytes);
    this.consume(outBytes + errBytes);
    this.frame = null;
    this.pending = null;
    pending.resolve({ code, stdout, stderr });
  }

  private joined(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0] ?? Buffer.alloc(0);
  }

  private consume(bytes: number): void {
    const rest = this.joined().subarray(bytes);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
  }
}

/** A pool of remote shells for one connection. */
export class SessionPool {
  private readonly idle: RemoteShell[] = [];
  private readonly all = new Set<RemoteShell>();
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly spawnAs: () => SessionSpawn,
    private readonly size: number,
  ) {}

  async run(call: SessionCall): Promise<RunResult> {
    if (call.signal?.aborted) throw new SessionCallError({ kind: 'aborted', reason: call.signal.reason });
    const shell = await this.acquire(call.signal);
    shell.hold(true);
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    // Timing out or aborting drops the shell: the script may still be running in it.
    const stopped = new Promise<never>((_, reject) => {
      if (call.timeoutMs !== undefined) timer = setTimeout(() => reject(new SessionCallError({ kind: 'timeout' })), call.timeoutMs);
      onAbort = () => reject(new SessionCallError({ kind: 'aborted', reason: call.signal?.reason }));
      call.signal?.addEventListener('abort', onAbort, { once: true });
    });
    let keep = false;
    try {
      const result = await Promise.race([shell.call(call.script, call.input), stopped]);
      keep = true;
      return result;
    } finally {
      clearTimeout(timer);
      if (onAbort) call.signal?.removeEventListener('abort', onAbort);
      this.release(shell, !keep || shell.ended);
    }
  }

  /** Ends every shell (a call in flight fails as ended). */
  close(): void {
    for (const shell of this.all) shell.kill();
    this.all.clear();
    this.idle.length = 0;
  }

  private async acquire(signal?: AbortSignal): Promise<RemoteShell> {
    for (;;) {
      const shell = this.idle.pop();
      if (shell !== undefined) {
        if (!shell.ended) return shell;
        this.all.delete(shell);
        continue;
      }
      if (this.all.size < this.size) {
        const fresh = new RemoteShell(this.spawnAs());
        this.all.add(fresh);
        void fresh.whenEnded.then(() => this.all.delete(fresh));
        return fresh;
      }
      await new Promise<void>((resolve, reject) => {
        const wake = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          const at = this.waiting.indexOf(wake);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(new SessionCallError({ kind: 'aborted', reason: signal?.reason }));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        this.waiting.push(wake);
      });
    }
  }

  private release(shell: RemoteShell, drop: boolean): void {
    if (drop) {
      shell.kill();
      this.all.delete(shell);
    } else {
      shell.hold(false);
      this.idle.push(shell);
    }
    this.waiting.shift()?.();
  }
}

