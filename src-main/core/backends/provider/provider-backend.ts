// ProviderBackend (SPEC §18): one sandbox of a provider (Daytona, Modal, E2B, Deno) as the
// script backend (script/script-backend.ts) at a ProviderPlace, whose file tools are POSIX
// scripts run through the provider's execute with contents through its upload and download
// (script/posix-scripts.ts), plus the agent's commands in the workdir. The results are the
// FilesystemBackend's, message for message, with the workdir at `/`. A provider's failure is the
// result's `error`, in its plain words.

import type { ExecuteOptions, ExecuteResult, ShellBackend } from '../protocol';
import { ScriptBackend, WHOLE_DOWNLOAD_BYTES } from '../script/script-backend';
import { DEFAULT_EXECUTE_TIMEOUT_S } from '../filesystem/local-shell';
import { exportLines } from '../remote/remote-exec';
import { SandboxProviderError, type ProviderSandbox } from '../../sandbox-providers/provider';
import { terminalToText } from '../../text/ansi';
import { DEFAULT_MAX_OUTPUT_BYTES, capText } from '../../process/output-cap';
import { CANCELLED_BEFORE_START, CANCELLED_NOTE, composeOutput, TIMEOUT_EXIT_CODE, timeoutNote } from '../../process/pty-exec';
import { NON_INTERACTIVE_ENV } from '../../process/shell-env';
import { ProviderPlace } from './provider-place';

export { WHOLE_DOWNLOAD_BYTES };

export class ProviderBackend extends ScriptBackend implements ShellBackend {
  readonly id: string;

  constructor(readonly sandbox: ProviderSandbox) {
    super(new ProviderPlace(sandbox));
    this.id = `${sandbox.provider}:${sandbox.id}`;
  }

  /** Runs a command in the workdir, with LocalShellBackend's result conventions (SPEC §3 execute). */
  async execute(command: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    if (options.signal?.aborted) return CANCELLED_BEFORE_START;
    const timeoutS = options.timeoutS ?? DEFAULT_EXECUTE_TIMEOUT_S;
    const script = [...exportLines({ ...NON_INTERACTIVE_ENV, ...options.env }), command].join('\n');
    try {
      const r = await this.sandbox.execute(script, {
        cwd: this.sandbox.workdir,
        timeoutMs: timeoutS * 1000,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onData ? { onOutput: options.onData } : {}),
      });
      const capped = capText(terminalToText(r.output), DEFAULT_MAX_OUTPUT_BYTES);
      if (r.timedOut) return { output: composeOutput(capped.text, timeoutNote(timeoutS)), exitCode: TIMEOUT_EXIT_CODE, truncated: capped.truncated, timedOut: true };
      if (r.exitCode === null) return { output: composeOutput(capped.text, CANCELLED_NOTE), exitCode: null, truncated: capped.truncated };
      return { output: composeOutput(capped.text, undefined), exitCode: r.exitCode, truncated: capped.truncated };
    } catch (err) {
      if (!(err instanceof SandboxProviderError)) throw err;
      return { output: `Error: ${err.message}`, exitCode: 1, truncated: false };
    }
  }
}
