// Another agent's terminals (ACP `terminal/*`): each a command run through the thread's
// `execute` (sandboxed, mirrored in the Terminal), its output kept for the agent to read.
import { RequestError } from '@agentclientprotocol/sdk';
import type { ExecuteOptions, ExecuteResult } from '../backends/protocol';

interface Terminal {
  output: string;
  exit?: { exitCode: number | null; signal: string | null };
  done: Promise<void>;
  abort: AbortController;
}

export class AgentTerminals {
  private readonly open = new Map<string, Terminal>();
  private count = 0;

  /** A new terminal's id (its request is decided on under it before it runs). */
  newId(): string {
    return `term_${++this.count}`;
  }

  /** Runs `line` through `execute` as terminal `id`. */
  create(id: string, line: string, env: Record<string, string>, execute: (command: string, options: ExecuteOptions) => Promise<ExecuteResult>): string {
    const abort = new AbortController();
    const terminal: Terminal = { output: '', abort, done: Promise.resolve() };
    terminal.done = execute(line, { signal: abort.signal, onData: (chunk) => (terminal.output += chunk), ...(Object.keys(env).length > 0 ? { env } : {}) })
      .then((result) => {
        terminal.output = result.output;
        terminal.exit = { exitCode: result.exitCode, signal: null };
      })
      .catch((err: unknown) => {
        terminal.output += `\n${err instanceof Error ? err.message : String(err)}`;
        terminal.exit = { exitCode: null, signal: null };
      });
    this.open.set(id, terminal);
    return id;
  }

  output(id: string): { output: string; truncated: boolean; exitStatus?: Terminal['exit'] } {
    const t = this.get(id);
    return { output: t.output, truncated: false, ...(t.exit ? { exitStatus: t.exit } : {}) };
  }

  async waitForExit(id: string): Promise<NonNullable<Terminal['exit']>> {
    const t = this.get(id);
    await t.done;
    return t.exit ?? { exitCode: null, signal: null };
  }

  async kill(id: string): Promise<Record<string, never>> {
    const t = this.get(id);
    t.abort.abort();
    await t.done;
    return {};
  }

  release(id: string): Record<string, never> {
    this.open.get(id)?.abort.abort();
    this.open.delete(id);
    return {};
  }

  /** Every command still running is stopped (the agent is). */
  abortAll(): void {
    for (const t of this.open.values()) t.abort.abort();
  }

  private get(id: string): Terminal {
    const t = this.open.get(id);
    if (!t) throw RequestError.invalidParams(undefined, `no terminal ${id}`);
    return t;
  }
}
