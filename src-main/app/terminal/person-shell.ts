// The person's own shell for a thread: an interactive shell in a pty, in the project folder,
// started on demand. It is theirs: not sandboxed, and the agent never types into it (its
// commands run in ptys of their own, see command-view.ts). Output goes through an
// OutputMirror (scrollback for late viewers, flow control from the window's acks).
import { randomBytes } from 'node:crypto';
import type * as pty from 'node-pty';
import { killProcessTree } from '../../core/process/process-tree';
import { spawnPty } from '../../core/process/spawn-pty';
import { resolveShell } from '../../core/process/pty-exec';
import { sanitizeEnv } from '../../core/process/shell-env';
import { MirroredTerminal, type OutputMirrorOptions } from './output-mirror';

export interface PersonShellOptions {
  rootDir: string;
  /** The environment the shell starts from (the app's). Default process.env. */
  baseEnv?: NodeJS.ProcessEnv;
  /** Extra variables (they win over baseEnv). */
  env?: Record<string, string>;
  /** Default: the user's bash or zsh, else bash, else sh. */
  shell?: string;
  /**
   * Started instead of a local shell: a remote folder's login shell over ssh
   * (remoteLoginShellCommandLine, SPEC §13); rootDir is then only the local ssh's cwd.
   */
  command?: { file: string; args: string[] };
  mirror?: Omit<OutputMirrorOptions, 'pause' | 'resume'>;
  /** Called when the shell process ended by itself (the person typed `exit`). */
  onExit?: () => void;
}

/** Tags every process started in a person's shell, so that closing it finds them all. */
const SHELL_MARKER_VAR = 'DEEPDESK_SHELL_ID';
const SHELL_EXITED_NOTE = '\r\n\x1b[2m[Your shell exited. Press Enter to start a new one.]\x1b[0m\r\n';

export class PersonShell extends MirroredTerminal {
  private readonly marker = `${SHELL_MARKER_VAR}=${randomBytes(8).toString('hex')}`;
  private proc: pty.IPty | undefined;
  private cols = 120;
  private rows = 30;
  private disposed = false;

  constructor(private readonly options: PersonShellOptions) {
    super(options.mirror);
  }

  get running(): boolean {
    return this.proc !== undefined;
  }

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  /** Starts the shell if it is not running. */
  start(): void {
    if (this.proc || this.disposed) return;
    const env: Record<string, string> = {
      ...sanitizeEnv(this.options.baseEnv ?? process.env),
      TERM: 'xterm-256color',
      COLORTERM: 'truecolor',
      ...this.options.env,
      [SHELL_MARKER_VAR]: this.marker.slice(SHELL_MARKER_VAR.length + 1),
    };
    const shell = this.options.command?.file ?? this.options.shell ?? resolveShell(env.SHELL);
    let proc: pty.IPty;
    try {
      proc = spawnPty({ role: 'shell', file: shell, args: this.options.command?.args ?? [], cols: this.cols, rows: this.rows, cwd: this.options.rootDir, env });
    } catch (err) {
      this.mirror.push(`\r\nCould not start ${shell}: ${err instanceof Error ? err.message : String(err)}\r\n`);
      return;
    }
    this.proc = proc;
    proc.onData((data) => {
      if (this.proc === proc) this.mirror.push(data);
    });
    proc.onExit(() => {
      if (this.proc !== proc) return;
      this.proc = undefined;
      if (this.disposed) return;
      this.mirror.push(SHELL_EXITED_NOTE);
      this.options.onExit?.();
    });
  }

  /** The person's typing; after the shell exited, Enter starts a new one. */
  write(data: string): void {
    if (this.disposed) return;
    if (!this.proc) {
      if (data.includes('\r')) this.start();
      return;
    }
    this.proc.write(data);
  }

  resize(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
    try {
      this.proc?.resize(cols, rows);
    } catch {
      // the pty is closing
    }
  }

  protected pauseOutput(): void {
    this.proc?.pause();
  }

  protected resumeOutput(): void {
    this.proc?.resume();
  }

  /** Ends the shell and everything started in it. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.mirror.dispose();
    const proc = this.proc;
    this.proc = undefined;
    if (!proc) return;
    // Hung up as a closed terminal is (the shell saves its history, runs its EXIT trap), SIGKILL
    // after the grace period; node-pty closes the pty once the shell is gone.
    await killProcessTree(proc.pid, { marker: this.marker, graceMs: 500, hangUp: true });
  }
}
