// The window's shared terminal: one persistent interactive shell in a pty, in the project
// folder. The person types into it; the agent's commands run in it one at a time (see
// shell-integration.ts for how they are typed in and how their boundaries are marked);
// everything it prints is mirrored live, markers removed, with flow control.
//
// The shell's state is followed from its markers: R (prompt shown) makes it idle, B (a
// command line starts) busy. An agent command is typed in only at an idle prompt, after a
// Ctrl-C when the person may have left text on the line.
//
// Nothing waits on the shell forever: every state but a running program has a deadline,
// a Ctrl-C that brought no prompt is sent again, a typed line the shell dropped (readline
// can miss a Ctrl-C that lands while it handles typing, and leave the old text in front of
// ours) is noticed and typed in again, and a command without a timeout that cannot be
// started within `startTimeoutMs` is answered as not run.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve as resolvePath } from 'node:path';
import * as pty from 'node-pty';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../../core/backends/output-cap';
import { isProcessAlive, killProcessTree, listProcesses, sendSignal } from '../../core/backends/process-tree';
import type { ExecuteResult } from '../../core/backends/protocol';
import { resolveShell } from '../../core/backends/pty-exec';
import { buildCommandEnv, sanitizeEnv } from '../../core/backends/shell-env';
import {
  AgentCommand, LINE_LOST_NOTE, NOT_RUN_CANCELLED_NOTE, SHELL_EXITED_NOTE, TERMINAL_CLOSED_NOTE, type TerminalRunOptions,
} from './agent-command';
import { terminalDebug as debug } from './debug-log';
import { type Marker, MarkerParser } from './markers';
import { type MirrorListener, type MirrorSubscribeOptions, OutputMirror, type OutputMirrorOptions } from './output-mirror';
import {
  type ShellKind, TERMINAL_ID_VAR, USER_ENV_VAR, commandLine, execMarker, handoffFileName, integrationScript,
} from './shell-integration';
import { foregroundProcessGroup } from './tty-foreground';

export type { TerminalRunOptions } from './agent-command';

export interface SharedTerminalOptions {
  rootDir: string;
  cols?: number;
  rows?: number;
  /** bash (the default when installed) or a POSIX sh. */
  shell?: string;
  /** Extra variables for the shell (and so for every command). */
  env?: Record<string, string>;
  /** An agent command's result is cut (head and tail kept) past this many bytes. Default 100,000. */
  maxOutputBytes?: number;
  mirror?: Omit<OutputMirrorOptions, 'pause' | 'resume'>;
  /** How long the shell may take to show its first prompt. Default 20 s. */
  startupTimeoutMs?: number;
  /**
   * A command without a timeout that waited this long for the terminal (from the moment it
   * was next in line) without starting is answered as not run. Default 120 s.
   */
  startTimeoutMs?: number;
}

/** idle: at its prompt; entered: the person pressed Enter, not yet known what it started. */
type ShellState = 'dead' | 'starting' | 'idle' | 'entered' | 'busy' | 'clearing' | 'sent' | 'returning';
/** Whether the person may have left text on the prompt line. */
type LineState = 'clean' | 'clean-at-prompt' | 'dirty';

const KILL_GRACE_MS = 1000;
/** After a timeout or abort, how long to wait for the command's end marker. */
const STOP_WAIT_MS = 4000;
/** How long a marker split across chunks may be held back. */
const HOLD_MS = 2000;
/** After the person's Enter: how long to wait for B or R before looking at the foreground group. */
const ENTER_SETTLE_MS = 1000;
/** After Ctrl-C or an end marker: how long to wait for the next prompt marker. */
const PROMPT_WAIT_MS = 1500;
/** Ctrl-Cs sent to clear the line before going on without seeing a prompt. */
const CLEAR_ATTEMPTS = 2;
/** A typed command line that has not started, with the shell silent in the foreground this many polls: lost. */
const SENT_SILENT_POLLS_AFTER_PROMPT = 3;
const SENT_SILENT_POLLS = 5;
/** How often a lost command line is typed in again before the command is given up. */
const MAX_RETYPES = 2;
const DEFAULT_START_TIMEOUT_MS = 120_000;
/** A "busy" shell seen in the foreground this many polls in a row lost its prompt marker. */
const BUSY_POLL_MS = 1000;
const BUSY_POLLS_TO_IDLE = 5;
// eslint-disable-next-line no-control-regex -- a paste is inserted, not run, whatever newlines it holds
const BRACKETED_PASTE = /\x1b\[200~[\s\S]*?\x1b\[201~/g;

export class SharedTerminal {
  readonly rootDir: string;
  /** Not secret: tags every process started in this terminal. */
  readonly terminalId = randomBytes(6).toString('hex');
  private readonly options: SharedTerminalOptions;
  private readonly mirror: OutputMirror;
  private readonly maxOutputBytes: number;
  private cols: number;
  private rows: number;
  private proc: pty.IPty | undefined;
  private shellPid = 0;
  private kind: ShellKind = 'bash';
  private parser: MarkerParser | undefined;
  private state: ShellState = 'dead';
  private line: LineState = 'clean';
  private typedWhileClearing = false;
  /** The person typed while the shell was not at an idle prompt (typeahead, or input to a program). */
  private typedWhileBusy = false;
  private busyMarkers = false;
  private generation = 0;
  private starting: Promise<void> | undefined;
  private onStarted: (() => void) | undefined;
  /** True once the startup file has defined our functions (the H marker). */
  private integrationLoaded = false;
  private onIntegrationLoaded: (() => void) | undefined;
  private pendingInput = '';
  private handoffDir: string | undefined;
  private rcPath: string | undefined;
  private environment: Promise<{ shellEnv: Record<string, string>; commandEnv: Record<string, string> }> | undefined;
  private readonly queue: AgentCommand[] = [];
  private active: AgentCommand | undefined;
  /** Commands given up on while the shell had them: should one start late, it is killed. */
  private readonly abandoned = new Set<number>();
  private nextId = 0;
  private stateTimer: NodeJS.Timeout | undefined;
  private holdTimer: NodeJS.Timeout | undefined;
  private busyPoll: NodeJS.Timeout | undefined;
  private shellInForeground = 0;
  /** Watches a typed command line until it starts. */
  private sentPoll: NodeJS.Timeout | undefined;
  /** A prompt came after the active command's line was typed, and no command line started since. */
  private promptSinceSent = false;
  /** Pty output came since the last poll. */
  private outputSincePoll = false;
  /** The shell went to a new line after the last Ctrl-C sent to clear the line. */
  private newLineSinceCtrlC = false;
  private disposed = false;

  constructor(options: SharedTerminalOptions) {
    this.options = options;
    this.rootDir = realRoot(options.rootDir);
    this.cols = options.cols ?? 120;
    this.rows = options.rows ?? 30;
    this.maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    this.mirror = new OutputMirror({
      ...options.mirror,
      pause: () => this.proc?.pause(),
      resume: () => this.proc?.resume(),
    });
  }

  /** The shell's pid while it runs. */
  get pid(): number | undefined {
    return this.proc && this.state !== 'dead' ? this.shellPid : undefined;
  }

  /** True while flow control holds the pty. */
  get paused(): boolean {
    return this.mirror.paused;
  }

  get unacknowledged(): number {
    return this.mirror.unacknowledged;
  }

  /** Starts the shell unless it runs; resolves once it shows its prompt (or gave up trying). */
  start(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    if (this.starting) return this.starting;
    if (this.proc && this.state !== 'dead') return Promise.resolve();
    this.starting = this.spawnShell()
      .catch((err: unknown) => {
        const message = err instanceof Error ? err.message : String(err);
        this.failQueue(`[Could not start the terminal's shell: ${message}]`, 127);
      })
      .finally(() => {
        this.starting = undefined;
        this.pump();
      });
    return this.starting;
  }

  /** Runs an agent command in the shell, after those queued before it. */
  run(command: string, options: TerminalRunOptions = {}): Promise<ExecuteResult> {
    const cmd = new AgentCommand(++this.nextId, command, options, this.maxOutputBytes);
    if (this.disposed) cmd.failed(TERMINAL_CLOSED_NOTE);
    else if (options.signal?.aborted) cmd.failed(NOT_RUN_CANCELLED_NOTE);
    if (cmd.settled) return cmd.result;
    const signal = options.signal;
    if (signal) {
      const onAbort = (): void => this.stopCommand(cmd, 'abort');
      signal.addEventListener('abort', onAbort, { once: true });
      void cmd.result.then(() => signal.removeEventListener('abort', onAbort));
    }
    this.queue.push(cmd);
    this.pump();
    return cmd.result;
  }

  /** The person's keystrokes, passed to the pty as they are. */
  write(data: string): void {
    if (this.disposed || data.length === 0) return;
    debug('write', this.state, { data });
    const typed = data.replace(BRACKETED_PASTE, '');
    if (this.state === 'clearing') this.typedWhileClearing = true;
    else if (this.state !== 'idle') this.typedWhileBusy = true;
    this.line = /[\r\n]$/.test(typed) ? 'clean-at-prompt' : 'dirty';
    if (!this.proc || this.state === 'dead' || this.state === 'starting') {
      if (this.proc && this.state === 'starting') this.proc.write(data);
      else {
        this.pendingInput += data;
        void this.start();
      }
      return;
    }
    this.proc.write(data);
    if (this.state === 'idle' && /[\r\n]/.test(typed)) this.setState('entered', ENTER_SETTLE_MS, () => this.settleEnter());
  }

  resize(cols: number, rows: number): void {
    if (!Number.isInteger(cols) || !Number.isInteger(rows) || cols < 1 || rows < 1) return;
    this.cols = cols;
    this.rows = rows;
    if (this.proc && this.state !== 'dead') {
      try {
        this.proc.resize(cols, rows);
      } catch {
        // the pty is closing
      }
    }
  }

  /** Live output, markers removed; `acks: true` for a window that will call ack(). */
  onData(listener: MirrorListener, options?: MirrorSubscribeOptions): () => void {
    return this.mirror.onData(listener, options);
  }

  /** The window rendered this many characters of what onData delivered. */
  ack(chars: number): void {
    this.mirror.ack(chars);
  }

  /** The recent output (up to the scrollback size) for a window that attaches now. */
  snapshot(): string {
    return this.mirror.snapshot();
  }

  /** Ends the terminal: pending commands are answered, the shell and all it started are killed. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.clearTimers();
    for (const cmd of [...this.queue.splice(0), ...(this.active ? [this.active] : [])]) cmd.failed(TERMINAL_CLOSED_NOTE);
    this.active = undefined;
    this.mirror.dispose();
    const proc = this.proc;
    const alive = proc !== undefined && this.state !== 'dead';
    this.proc = undefined;
    this.state = 'dead';
    this.onStarted?.();
    const marker = `${TERMINAL_ID_VAR}=${this.terminalId}`;
    if (alive && proc) {
      try {
        proc.resume();
      } catch {
        // already closed
      }
      // An interactive shell ignores SIGTERM; on SIGHUP it hangs up its jobs and exits.
      sendSignal(this.shellPid, 'SIGHUP');
      await killProcessTree(this.shellPid, { marker, graceMs: 300 });
    }
    // Whatever is left from this or an earlier shell (e.g. started with setsid).
    for (let round = 0; round < 3; round++) {
      const left = listProcesses(marker).find((p) => p.marked && p.pid !== process.pid);
      if (!left) break;
      await killProcessTree(left.pid, { marker, graceMs: 300 });
    }
    if (this.handoffDir) rmSync(this.handoffDir, { recursive: true, force: true });
  }

  // ---------------------------------------------------------------------------------
  // The shell

  private async spawnShell(): Promise<void> {
    const { shellEnv, commandEnv } = await (this.environment ??= this.buildEnvironment());
    if (this.disposed) return;
    const shell = this.options.shell ?? resolveShell('');
    this.kind = /bash$/.test(basename(shell)) ? 'bash' : 'sh';
    const nonce = randomBytes(16).toString('hex');
    this.handoffDir ??= mkdtempSync(join(tmpdir(), 'deepdesk-term-'));
    const rcPath = join(this.handoffDir, `rc-${this.generation}`);
    try {
      writeFileSync(
        rcPath,
        integrationScript({
          kind: this.kind, nonce, terminalId: this.terminalId, rootDir: this.rootDir, handoffDir: this.handoffDir, commandEnv,
        }),
        { mode: 0o600 },
      );
    } catch {
      // The folder was removed from under us: make a new one.
      this.handoffDir = mkdtempSync(join(tmpdir(), 'deepdesk-term-'));
      return this.spawnShell();
    }
    this.rcPath = rcPath;
    const env: Record<string, string> = { ...shellEnv, [TERMINAL_ID_VAR]: this.terminalId };
    if (this.kind === 'sh') {
      if (env.ENV) env[USER_ENV_VAR] = env.ENV;
      env.ENV = rcPath;
    }
    const args = this.kind === 'bash' ? ['--rcfile', rcPath, '-i'] : ['-i'];
    if (this.generation > 0) this.mirror.push('\r\n[shell restarted]\r\n');
    this.generation += 1;
    let proc: pty.IPty;
    try {
      proc = pty.spawn(shell, args, { name: env.TERM ?? 'xterm-256color', cols: this.cols, rows: this.rows, cwd: this.rootDir, env });
    } catch (err) {
      this.removeRcFile();
      const message = err instanceof Error ? err.message : String(err);
      this.mirror.push(`\r\n[could not start ${shell}: ${message}]\r\n`);
      this.failQueue(`[Could not start the terminal's shell (${shell}): ${message}]`, 127);
      return;
    }
    this.proc = proc;
    this.shellPid = proc.pid;
    this.parser = new MarkerParser(nonce);
    this.busyMarkers = false;
    this.line = this.pendingInput.length > 0 ? 'dirty' : 'clean';
    this.state = 'starting';
    proc.onData((chunk) => {
      if (this.proc === proc) this.onPtyData(chunk);
    });
    proc.onExit((event) => {
      if (this.proc === proc) this.onShellExit(event.exitCode, event.signal);
    });
    if (this.mirror.paused) proc.pause();
    if (this.pendingInput) {
      proc.write(this.pendingInput);
      this.pendingInput = '';
    }
    this.integrationLoaded = false;
    await new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout;
      const fallback = (): void => {
        if (this.proc !== proc || this.state !== 'starting') return resolve();
        // The person's startup files are still running (a slow ~/.bashrc): keep waiting.
        // Typing into them, or a Ctrl-C that would cut them short, would lose our functions;
        // commands meanwhile are bounded by their own start deadline.
        if (!this.integrationLoaded) {
          this.onIntegrationLoaded = () => (timer = setTimeout(fallback, PROMPT_WAIT_MS));
          return;
        }
        // Our functions exist but no prompt marker came (a startup file replaced our hooks?): carry on.
        this.state = 'idle';
        resolve();
      };
      timer = setTimeout(fallback, this.options.startupTimeoutMs ?? 20_000);
      this.onStarted = () => {
        clearTimeout(timer);
        this.onStarted = undefined;
        this.onIntegrationLoaded = undefined;
        resolve();
      };
    });
    this.removeRcFile();
  }

  private async buildEnvironment(): Promise<{ shellEnv: Record<string, string>; commandEnv: Record<string, string> }> {
    const commandEnv = await buildCommandEnv();
    const base = sanitizeEnv(process.env);
    // The person's shell gets their own environment (with the login PATH and a UTF-8 locale);
    // the non-interactive variables are exported inside agent commands only.
    const shellEnv: Record<string, string> = { ...base };
    for (const key of ['PATH', 'LANG']) {
      const value = commandEnv[key];
      if (value !== undefined) shellEnv[key] = value;
    }
    shellEnv.TERM = 'xterm-256color';
    shellEnv.COLORTERM = 'truecolor';
    Object.assign(shellEnv, this.options.env);
    const onlyInCommands: Record<string, string> = {};
    for (const [key, value] of Object.entries(commandEnv)) {
      if (shellEnv[key] !== value && !(this.options.env && key in this.options.env)) onlyInCommands[key] = value;
    }
    return { shellEnv, commandEnv: onlyInCommands };
  }

  private removeRcFile(): void {
    if (!this.rcPath) return;
    rmSync(this.rcPath, { force: true });
    this.rcPath = undefined;
  }

  private onShellExit(exitCode: number, signal: number | undefined): void {
    const wasStarting = this.state === 'starting';
    const held = this.parser?.release() ?? '';
    if (held) this.mirror.push(held);
    this.proc = undefined;
    this.state = 'dead';
    this.clearTimers();
    this.abandoned.clear();
    this.removeRcFile();
    if (this.active) {
      this.active.failed(SHELL_EXITED_NOTE);
      this.active = undefined;
    }
    const code = signal ? 128 + signal : exitCode;
    this.mirror.push(`\r\n[shell exited with code ${code}; type or run a command to restart it]\r\n`);
    this.onStarted?.();
    // A shell that dies before its first prompt would die again: answer the waiting commands.
    if (wasStarting) this.failQueue(`[The terminal's shell exited during startup with code ${code}]`, 127);
    else this.pump();
  }

  private failQueue(note: string, exitCode: number): void {
    for (const cmd of this.queue.splice(0)) cmd.failed(note, exitCode);
  }

  // ---------------------------------------------------------------------------------
  // Output and markers

  private onPtyData(chunk: string): void {
    debug('pty', this.state, { data: chunk });
    const parser = this.parser;
    if (!parser) return;
    this.outputSincePoll = true;
    if (this.state === 'clearing' && chunk.includes('\n')) this.newLineSinceCtrlC = true;
    for (const token of parser.push(chunk)) {
      if ('text' in token) this.onText(token.text);
      else this.onMarker(token.marker);
    }
    if (parser.holding) {
      this.holdTimer ??= setTimeout(() => {
        this.holdTimer = undefined;
        this.onText(parser.release());
      }, HOLD_MS);
    } else if (this.holdTimer) {
      clearTimeout(this.holdTimer);
      this.holdTimer = undefined;
    }
  }

  private onText(text: string): void {
    if (text.length === 0) return;
    this.mirror.push(text);
    this.active?.capture(text);
  }

  private onMarker(marker: Marker): void {
    debug('marker', marker.kind, marker.fields.join(';'), 'state', this.state, 'active', this.active?.id ?? '');
    switch (marker.kind) {
      case 'H':
        this.busyMarkers = marker.fields[0] === 'ps0=1';
        this.integrationLoaded = true;
        this.onIntegrationLoaded?.();
        this.onIntegrationLoaded = undefined;
        this.removeRcFile();
        return;
      case 'R':
        this.onPrompt();
        return;
      case 'B':
        this.promptSinceSent = false;
        if (!this.active && this.state !== 'starting') this.setState('busy');
        this.pump();
        return;
      case 'S': {
        const id = Number(marker.fields[0]);
        const pid = Number(marker.fields[1]);
        const cmd = this.active;
        if (cmd && cmd.id === id && cmd.phase === 'sent') {
          cmd.phase = 'running';
          this.stopWatchingSent();
          if (Number.isInteger(pid) && pid > 1) cmd.pid = pid;
          if (cmd.stopping) cmd.killing = this.killCommand(cmd.id, cmd.pid);
        } else if (this.abandoned.has(id) && Number.isInteger(pid) && pid > 1) {
          void this.killCommand(id, pid);
        }
        return;
      }
      case 'E': {
        const id = Number(marker.fields[0]);
        const status = Number(marker.fields[1]);
        const cmd = this.active;
        if (cmd && cmd.id === id) {
          this.active = undefined;
          // A stopped command is answered once everything it started is gone.
          void (cmd.killing ?? Promise.resolve()).then(() => cmd.ended(Number.isInteger(status) ? status : 1));
          // The prompt marker follows; should it not (hooks replaced), carry on anyway.
          this.setState('returning', PROMPT_WAIT_MS, () => this.onPrompt());
        } else {
          this.abandoned.delete(id);
          if (this.state === 'returning') this.setState('returning', PROMPT_WAIT_MS, () => this.onPrompt());
        }
        return;
      }
    }
  }

  private onPrompt(): void {
    // A prompt before our command's markers: the person's typeahead runs first (or the
    // shell dropped our line: watchSent finds out).
    if (this.active) {
      if (this.active.phase === 'sent') this.promptSinceSent = true;
      return;
    }
    if (this.state === 'starting') this.onStarted?.();
    if (this.state === 'clearing') {
      this.line = this.typedWhileClearing ? 'dirty' : 'clean';
      this.typedWhileClearing = false;
    } else if (this.typedWhileBusy) {
      // What was typed meanwhile may be a command line the shell reads right after this
      // prompt, or text left on the line: give it time to start, then clear the line.
      this.typedWhileBusy = false;
      this.line = 'dirty';
      this.setState('entered', ENTER_SETTLE_MS, () => this.settleEnter());
      return;
    } else if (this.line === 'clean-at-prompt') {
      this.line = 'clean';
    }
    this.setState('idle');
    this.pump();
  }

  /** The person pressed Enter and neither a command start nor a prompt followed. */
  private settleEnter(): void {
    if (this.state !== 'entered') return;
    // The shell waits in the foreground: a continuation line (PS2). Else a job runs.
    const fg = foregroundProcessGroup(this.shellPid);
    if (fg === this.shellPid) {
      this.line = 'dirty';
      this.setState('idle');
    } else {
      this.setState('busy');
    }
    this.pump();
  }

  private setState(state: ShellState, timeoutMs?: number, onTimeout?: () => void): void {
    debug('state', this.state, '->', state, timeoutMs ?? '', 'line', this.line);
    this.state = state;
    if (this.stateTimer) clearTimeout(this.stateTimer);
    this.stateTimer = undefined;
    if (timeoutMs !== undefined && onTimeout) {
      this.stateTimer = setTimeout(() => {
        this.stateTimer = undefined;
        if (this.state === state) onTimeout();
      }, timeoutMs);
    }
    if (state !== 'busy' && this.busyPoll) {
      clearInterval(this.busyPoll);
      this.busyPoll = undefined;
    }
  }

  // ---------------------------------------------------------------------------------
  // Agent commands

  /** Moves the queue on: starts the shell, clears the prompt line, types the next command. */
  private pump(): void {
    if (this.disposed) return;
    const head = this.queue[0];
    debug('pump', this.state, 'line', this.line, 'head', head?.id ?? '', 'active', this.active?.id ?? '');
    if (!head) return;
    if (!this.proc || this.state === 'dead') {
      void this.start();
      return;
    }
    if (this.starting || this.state === 'starting') return;
    // Neither the shell's startup nor another agent command counts against the timeout.
    if (this.active) return;
    if (!head.clockStarted) this.startClock(head);
    if (this.state === 'busy') {
      this.watchBusyShell();
      return;
    }
    if (this.state !== 'idle') return;
    const proc = this.proc;
    if (this.line !== 'clean') {
      this.typedWhileClearing = false;
      this.clearLine(1);
      return;
    }
    this.queue.shift();
    const { line, viaFile } = commandLine(head.id, head.command);
    if (viaFile && this.handoffDir) {
      try {
        writeFileSync(join(this.handoffDir, handoffFileName(head.id)), head.command, { mode: 0o600 });
      } catch {
        head.failed('[Could not hand the command over to the terminal]', 127);
        this.pump();
        return;
      }
    }
    this.active = head;
    head.phase = 'sent';
    this.setState('sent');
    proc.write(line);
    this.watchSent(head);
  }

  /**
   * Ctrl-C drops whatever is on the line (or a half-typed continuation); a prompt follows.
   * Only that prompt shows the line is clean: readline can miss a Ctrl-C that lands while it
   * handles the person's typing (it then stays on the line), so unless the shell at least
   * went to a new line (a prompt without its marker), it is sent again.
   */
  private clearLine(attempt: number): void {
    this.newLineSinceCtrlC = false;
    this.setState('clearing', PROMPT_WAIT_MS, () => {
      if (attempt < CLEAR_ATTEMPTS && !this.newLineSinceCtrlC) {
        this.clearLine(attempt + 1);
        return;
      }
      // Still no prompt (hooks replaced, SIGINT ignored): go on; watchSent catches a lost line.
      this.line = this.typedWhileClearing ? 'dirty' : 'clean';
      this.setState('idle');
      this.pump();
    });
    this.proc?.write('\x03');
  }

  /**
   * A typed line that has not started while the shell sits silent in the foreground was
   * dropped (or mangled into another line): it is typed in again under a new id.
   */
  private watchSent(cmd: AgentCommand): void {
    this.stopWatchingSent();
    this.promptSinceSent = false;
    let silent = 0;
    this.outputSincePoll = false;
    this.sentPoll = setInterval(() => {
      if (this.active !== cmd || cmd.phase !== 'sent' || this.state === 'dead') {
        this.stopWatchingSent();
        return;
      }
      const quiet = !this.outputSincePoll && !this.mirror.paused && !this.parser?.holding;
      this.outputSincePoll = false;
      silent = quiet && foregroundProcessGroup(this.shellPid) === this.shellPid ? silent + 1 : 0;
      if (silent >= (this.promptSinceSent ? SENT_SILENT_POLLS_AFTER_PROMPT : SENT_SILENT_POLLS)) this.lineLost(cmd);
    }, BUSY_POLL_MS);
  }

  private stopWatchingSent(): void {
    if (this.sentPoll) clearInterval(this.sentPoll);
    this.sentPoll = undefined;
  }

  private lineLost(cmd: AgentCommand): void {
    debug('lineLost', cmd.id, 'promptSinceSent', this.promptSinceSent);
    this.stopWatchingSent();
    const atFreshPrompt = this.promptSinceSent && !this.typedWhileBusy;
    this.active = undefined;
    // Should it start after all, it is killed: the new line runs it.
    this.abandoned.add(cmd.id);
    if (this.handoffDir) rmSync(join(this.handoffDir, handoffFileName(cmd.id)), { force: true });
    if (cmd.stopping) cmd.notRun(cmd.stopping);
    else if (cmd.retypes >= MAX_RETYPES) cmd.failed(LINE_LOST_NOTE, 127);
    else {
      cmd.retypes += 1;
      cmd.id = ++this.nextId;
      cmd.phase = 'queued';
      this.queue.unshift(cmd);
    }
    // A prompt with nothing typed after it: the line is clean. Else Ctrl-C clears it first.
    this.typedWhileBusy = false;
    this.line = atFreshPrompt ? 'clean' : 'dirty';
    this.setState('idle');
    this.pump();
  }

  private startClock(cmd: AgentCommand): void {
    cmd.clockStarted = true;
    if (cmd.timeoutS > 0) cmd.timers.push(setTimeout(() => this.stopCommand(cmd, 'timeout'), cmd.timeoutS * 1000));
    else {
      const startMs = this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
      cmd.timers.push(setTimeout(() => this.notStarted(cmd, startMs / 1000), startMs));
    }
  }

  /** A command without a timeout that could not be started in time: answered as not run. */
  private notStarted(cmd: AgentCommand, waitedS: number): void {
    if (cmd.settled || cmd.stopping || cmd.phase === 'running') return;
    if (cmd.phase === 'queued') {
      const at = this.queue.indexOf(cmd);
      if (at !== -1) this.queue.splice(at, 1);
      cmd.notRun('timeout', waitedS);
      this.pump();
      return;
    }
    // Typed in but not started: should it start late, it is killed.
    this.stopWatchingSent();
    if (this.active === cmd) this.active = undefined;
    this.abandoned.add(cmd.id);
    cmd.notRun('timeout', waitedS);
    this.line = 'dirty';
    this.setState('busy');
    this.pump();
  }

  private stopCommand(cmd: AgentCommand, reason: 'timeout' | 'abort'): void {
    if (cmd.settled || cmd.stopping) return;
    if (cmd.phase === 'queued') {
      const at = this.queue.indexOf(cmd);
      if (at !== -1) this.queue.splice(at, 1);
      cmd.notRun(reason);
      this.pump();
      return;
    }
    cmd.stopping = reason;
    if (cmd.phase === 'running') cmd.killing = this.killCommand(cmd.id, cmd.pid);
    // Normally the end marker settles it; should none come, it is given up on.
    cmd.timers.push(setTimeout(() => this.giveUp(cmd), KILL_GRACE_MS + STOP_WAIT_MS));
  }

  private giveUp(cmd: AgentCommand): void {
    if (cmd.settled || this.active !== cmd) return;
    this.active = undefined;
    this.abandoned.add(cmd.id);
    void (cmd.killing ?? Promise.resolve()).then(() => cmd.stopped());
    this.stopWatchingSent();
    if (this.mirror.paused) {
      // Its end marker is likely waiting behind the paused output and will move things on;
      // should it not, the shell is watched like a busy one.
      this.setState('returning', STOP_WAIT_MS, () => {
        this.line = 'dirty';
        this.setState('busy');
        this.pump();
      });
      return;
    }
    this.line = 'dirty';
    this.setState('busy');
    this.pump();
  }

  /** Kills one command's subshell and everything it started; the shell itself stays. */
  private async killCommand(id: number, pid: number | undefined): Promise<void> {
    const marker = execMarker(this.terminalId, id);
    const shellPid = this.shellPid;
    const own = pid !== undefined && listProcesses().some((p) => p.pid === pid && p.ppid === shellPid);
    if (own && pid !== undefined) {
      sendSignal(pid, 'SIGTERM');
      await killProcessTree(pid, { marker, graceMs: KILL_GRACE_MS });
      if (isProcessAlive(pid) && listProcesses().some((p) => p.pid === pid && p.ppid === shellPid)) sendSignal(pid, 'SIGKILL');
      return;
    }
    // No subshell to anchor on: whatever carries the command's marker.
    const left = listProcesses(marker).find((p) => p.marked);
    if (left) await killProcessTree(left.pid, { marker, graceMs: KILL_GRACE_MS });
  }

  /** Without a prompt marker for a while, a shell back in the foreground is taken to be idle. */
  private watchBusyShell(): void {
    if (this.busyPoll) return;
    this.shellInForeground = 0;
    this.busyPoll = setInterval(() => {
      if (this.state !== 'busy' || this.queue.length === 0 || this.mirror.paused) {
        this.shellInForeground = 0;
        if (this.state !== 'busy' || this.queue.length === 0) {
          clearInterval(this.busyPoll);
          this.busyPoll = undefined;
        }
        return;
      }
      this.shellInForeground = foregroundProcessGroup(this.shellPid) === this.shellPid ? this.shellInForeground + 1 : 0;
      if (this.shellInForeground >= BUSY_POLLS_TO_IDLE) {
        this.line = 'dirty';
        this.setState('idle');
        this.pump();
      }
    }, BUSY_POLL_MS);
  }

  private clearTimers(): void {
    if (this.stateTimer) clearTimeout(this.stateTimer);
    if (this.holdTimer) clearTimeout(this.holdTimer);
    if (this.busyPoll) clearInterval(this.busyPoll);
    if (this.sentPoll) clearInterval(this.sentPoll);
    this.stateTimer = this.holdTimer = this.busyPoll = this.sentPoll = undefined;
  }
}

function realRoot(dir: string): string {
  const resolved = resolvePath(dir);
  try {
    return realpathSync.native(resolved);
  } catch {
    return resolved;
  }
}
