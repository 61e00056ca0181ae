// `execute` in the editor's terminal (ACP terminal/*): terminal/create, wait_for_exit (or
// kill on a timeout or a cancel), output, release — with the §3 result: the same output
// text (ANSI stripped, capped head and tail), status notes and exit codes as our own pty.
//
// Used only where the session has no sandbox (SPEC §7): a command that would run sandboxed
// here must not run unsandboxed in the editor, and nothing says what the editor's terminal
// contains. Without a sandbox the command runs unsandboxed either way, and it has asked
// the person first (§7) whichever terminal runs it.

import { constants } from 'node:os';
import type { EnvVariable, TerminalExitStatus } from '@agentclientprotocol/sdk';
import { terminalToText } from '../../../core/text/ansi';
import { DEFAULT_EXECUTE_TIMEOUT_S } from '../../../core/backends/filesystem/local-shell';
import { capText, DEFAULT_MAX_OUTPUT_BYTES } from '../../../core/process/output-cap';
import type { ExecuteOptions, ExecuteResult } from '../../../core/backends/protocol';
import { CANCELLED_NOTE, composeOutput, resolveShell, TIMEOUT_EXIT_CODE, timeoutNote } from '../../../core/process/pty-exec';
import { NON_INTERACTIVE_ENV } from '../../../core/process/shell-env';
import { traceparentEnv } from '../../../core/process/traceparent';

/** The editor's terminal as the ACP SDK's TerminalHandle offers it. */
export interface EditorTerminal {
  waitForExit(): Promise<TerminalExitStatus>;
  currentOutput(): Promise<{ output: string; truncated: boolean }>;
  kill(): Promise<unknown>;
  release(): Promise<unknown>;
}

export type CreateEditorTerminal = (params: { command: string; args: string[]; cwd: string; env: EnvVariable[]; outputByteLimit: number }) => Promise<EditorTerminal>;

export type CommandRunner = (command: string, options?: ExecuteOptions) => Promise<ExecuteResult>;

export function editorTerminalRunner(create: CreateEditorTerminal, cwd: string, maxOutputBytes = DEFAULT_MAX_OUTPUT_BYTES): CommandRunner {
  return async (command, options = {}) => {
    const timeoutS = options.timeoutS ?? DEFAULT_EXECUTE_TIMEOUT_S;
    const env = Object.entries({ ...NON_INTERACTIVE_ENV, ...traceparentEnv(options.traceparent) }).map(([name, value]) => ({ name, value }));
    const terminal = await create({ command: resolveShell(), args: ['-c', command], cwd, env, outputByteLimit: maxOutputBytes });
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      const ended = await Promise.race([
        terminal.waitForExit().then((exit) => ({ kind: 'exit' as const, exit })),
        new Promise<{ kind: 'timeout' }>((done) => (timer = setTimeout(() => done({ kind: 'timeout' }), timeoutS * 1000))),
        new Promise<{ kind: 'abort' }>((done) => {
          onAbort = () => done({ kind: 'abort' });
          if (options.signal?.aborted) onAbort();
          else options.signal?.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
      if (ended.kind !== 'exit') await terminal.kill().catch(() => undefined);
      const out = await terminal.currentOutput();
      const capped = capText(terminalToText(out.output), maxOutputBytes);
      const truncated = capped.truncated || out.truncated;
      if (ended.kind === 'timeout') return { output: composeOutput(capped.text, timeoutNote(timeoutS)), exitCode: TIMEOUT_EXIT_CODE, truncated, timedOut: true, sandboxed: false };
      if (ended.kind === 'abort') return { output: composeOutput(capped.text, CANCELLED_NOTE), exitCode: null, truncated, sandboxed: false };
      const { exitCode, signal } = ended.exit;
      const code = exitCode ?? (signal ? 128 + signalNumber(signal) : null);
      return { output: composeOutput(capped.text, undefined), exitCode: code, truncated, sandboxed: false };
    } finally {
      clearTimeout(timer);
      if (onAbort) options.signal?.removeEventListener('abort', onAbort);
      await terminal.release().catch(() => undefined);
    }
  };
}

/** A signal's number (0 for a name the editor sent that this platform does not know). */
function signalNumber(name: string): number {
  const signals: Record<string, number> = constants.signals;
  return Object.hasOwn(signals, name) ? signals[name]! : 0;
}
