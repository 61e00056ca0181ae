// One supervisor for the child processes Deepdesk starts on the agent's or a folder's
// behalf (MCP stdio servers, hooks; SPEC §10–§11): contained by default, a scrubbed
// environment, the whole tree ended on stop, on quit and when Deepdesk dies.
import type { Readable, Writable } from 'node:stream';
import type { LiveCheck, SandboxPolicy } from './types';

export interface ProcessSpec {
  /** What it is for (default a server): the registry's label (spawn.ts). */
  role?: 'server' | 'hook' | 'agent';
  command: string;
  args: string[];
  cwd: string;
  /** The environment beyond the scrubbed base (an MCP entry's `env`); wins over the base. */
  env: Record<string, string>;
  /** Deepdesk's own environment, scrubbed of the app's secrets into the base (default process.env). */
  baseEnv?: NodeJS.ProcessEnv;
  /** Run inside the OS sandbox with this policy; `false` runs it as it is. */
  sandbox: SandboxPolicy | false;
  /** Lines of stderr kept for the log tail (default 200). */
  logLines?: number;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface SupervisedProcess {
  readonly pid: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** Resolves once the process has ended (whatever ended it). */
  readonly exited: Promise<ProcessExit>;
  /** The last lines of stderr, as text (terminal escapes removed). */
  logTail(): string;
  /** Called with each stderr line. Returns unsubscribe. */
  onLog(listener: (line: string) => void): () => void;
  /** Ends the whole process tree (TERM, then KILL after a grace period); resolves when it has ended. */
  stop(): Promise<void>;
  /**
   * Checks now what a sandboxed process did to git's files in its folder and undoes what git
   * would run (as its guard does on its own while it runs); what was undone and what could
   * not be is also put in its log. Before accepting anything it answered. Nothing to check
   * for an unsandboxed process. Rejects when the check could not be made.
   */
  checkEffects(): Promise<LiveCheck>;
}
