// One agent command as the window shows it: the command as a person would have typed it
// (a dimmed `$ command` line, control characters made visible), then its pty's output live,
// then a dimmed status line. While it runs, the person's typing goes to its pty.
import type { ExecuteResult, LiveCommand } from '../../core/backends/protocol';
import { MirroredTerminal, type OutputMirrorOptions } from './output-mirror';
import { invisiblePatternSource } from '../../core/text/invisible';

export interface CommandViewInfo {
  id: string;
  command: string;
  sandboxed: boolean;
  startedAt: string;
  running: boolean;
  exitCode?: number | null;
  timedOut?: boolean;
}

const DIM = '\x1b[2m';
const MAX_TYPED_AHEAD = 4096;
const RESET = '\x1b[0m';

export class CommandView extends MirroredTerminal {
  readonly startedAt = new Date().toISOString();
  private live: LiveCommand | undefined;
  private result: ExecuteResult | undefined;
  private sandboxedNow: boolean;
  private ended = false;
  /** Its output comes from a pty (which already ends lines with CRLF); else bare line feeds are made CRLF for the terminal. */
  private fromPty = false;
  /** The last chunk ended with a carriage return (a CRLF split between chunks is not doubled). */
  private afterCr = false;
  private sawOutput = false;
  private typedAhead = '';

  constructor(
    readonly id: string,
    readonly command: string,
    sandboxed: boolean,
    mirror?: Omit<OutputMirrorOptions, 'pause' | 'resume'>,
  ) {
    super(mirror);
    this.sandboxedNow = sandboxed;
    this.mirror.push(`${DIM}${promptLines(command)}${RESET}\r\n`);
  }

  get running(): boolean {
    return !this.ended;
  }

  info(): CommandViewInfo {
    return {
      id: this.id,
      command: this.command,
      sandboxed: this.sandboxedNow,
      startedAt: this.startedAt,
      running: !this.ended,
      ...(this.result ? { exitCode: this.result.exitCode } : {}),
      ...(this.result?.timedOut ? { timedOut: true } : {}),
    };
  }

  /** The command's pty started: typing and flow control go to it from now on. */
  attach(live: LiveCommand): void {
    if (this.ended) return;
    this.live = live;
    this.fromPty = true;
    if (this.typedAhead) live.write(this.typedAhead);
    this.typedAhead = '';
  }

  /**
   * The command's output as it comes. A pty's is shown as it is; any other (a provider's
   * sandbox, a remote command without a pty) ends its lines with bare line feeds, which a
   * terminal takes as "down, same column": they become CRLF here, the one place mirrored
   * output reaches the view, so it never staircases.
   */
  output(chunk: string): void {
    if (this.ended || chunk === '') return;
    this.sawOutput = true;
    this.mirror.push(this.fromPty ? chunk : this.asTerminalLines(chunk));
  }

  private asTerminalLines(chunk: string): string {
    const out = chunk.replace(/\r?\n/g, '\r\n');
    const joined = this.afterCr && out.startsWith('\r\n') ? out.slice(1) : out;
    this.afterCr = chunk.endsWith('\r');
    return joined;
  }

  finish(result: ExecuteResult): void {
    if (this.ended) return;
    this.ended = true;
    this.live = undefined;
    this.result = result;
    if (result.sandboxed !== undefined) this.sandboxedNow = result.sandboxed;
    // Nothing came as it ran (a provider's command that failed to start, a refusal): what it answered is shown, not only its status.
    if (!this.sawOutput && !this.fromPty && result.output !== '') this.mirror.push(this.asTerminalLines(result.output));
    this.mirror.push(`\r\n${DIM}${statusLine(result)}${RESET}\r\n`);
    this.mirror.flush();
  }

  /** The person's typing: reaches the command only while it runs (typing before its pty started is kept). */
  write(data: string): void {
    if (this.live) this.live.write(data);
    else if (!this.ended && this.typedAhead.length + data.length <= MAX_TYPED_AHEAD) this.typedAhead += data;
  }

  resize(cols: number, rows: number): void {
    this.live?.resize(cols, rows);
  }

  protected pauseOutput(): void {
    this.live?.pause();
  }

  protected resumeOutput(): void {
    this.live?.resume();
  }

  dispose(): void {
    this.live = undefined;
    this.mirror.dispose();
  }
}

function statusLine(result: ExecuteResult): string {
  if (result.timedOut) return '[timed out and was killed]';
  if (result.exitCode === null) return '[stopped]';
  return `[exit code ${result.exitCode}]`;
}

/** `$ first line`, `> next lines`, with every control, bidi and invisible character shown visibly. */
export function promptLines(command: string): string {
  return command
    .replace(/\r\n?/g, '\n')
    .replace(/\n+$/, '')
    .split('\n')
    .map((line, i) => `${i === 0 ? '$ ' : '> '}${visible(line)}`)
    .join('\r\n');
}

/** Controls, format characters, separators, default-ignorables and stray marks (core/text/invisible.ts), and spaces other than U+0020. */
const HIDDEN = new RegExp(invisiblePatternSource('\\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000'), 'gu');

function visible(line: string): string {
  return line.replace(HIDDEN, (c) => {
    const code = c.codePointAt(0)!;
    if (code < 0x20) return `^${String.fromCharCode(code + 64)}`;
    if (code === 0x7f) return '^?';
    return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
  });
}
