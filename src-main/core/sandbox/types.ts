// The sandbox's public types (SPEC §7), as agreed with the terminal/modes side of the app.

export type SandboxKind = 'bubblewrap' | 'seatbelt';

export type SandboxAvailability =
  | { available: true; kind: SandboxKind }
  | { available: false; reason: string }; // e.g. "bubblewrap (bwrap) is not installed"

export interface SandboxPolicy {
  /** Real absolute path of the project folder (writable). */
  projectDir: string;
  /** Deepdesk's data folder (never readable inside). */
  dataDir: string;
  /** Extra absolute paths the settings protect (never writable). */
  protectedPaths?: string[];
  /** Domains the folder allows network access to; empty = no network. */
  allowedDomains?: string[];
}

export interface CommandSpec {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

export interface PreparedCommand extends CommandSpec {
  /** After the command ended: one line starting `[Sandbox blocked` naming what was blocked, or undefined. */
  blockedLine(output: string, exitCode: number | null): Promise<string | undefined>;
  /** Frees per-run resources (temp dirs, proxies). */
  dispose(): Promise<void>;
}

export interface PrepareOptions {
  /**
   * A process that outlives any one step (an MCP server, SPEC §10): no write layer and no
   * checkpoint attribution, so its writes land in the folder as it makes them; a temp folder
   * of its own for its whole life. What git would run later is still undone when it ends;
   * a protected path that was missing and appeared meanwhile is left (it may be the person's).
   */
  longLived?: boolean;
}

export interface Sandbox {
  readonly kind: SandboxKind;
  readonly policy: SandboxPolicy;
  prepare(spec: CommandSpec, options?: PrepareOptions): Promise<PreparedCommand>;
}
