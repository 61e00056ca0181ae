// The sandbox's public types (SPEC §7), as agreed with the terminal/modes side of the app.

import type { StepAttribution } from '../process/attribution';
import type { StatusReport } from '../process/status-report';

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
  /**
   * Folders the command may read (never write) even inside a hidden folder: a trusted
   * plugin's own folder, for the server or hook it runs from there (its scripts, its
   * modules). The rest of the hidden folder stays hidden.
   */
  readablePaths?: string[];
  /**
   * Folders the process may read and write even inside a hidden folder: an external agent's
   * own private login folder (SPEC §22), kept in the data folder. The rest of the hidden
   * folder stays hidden.
   */
  writablePaths?: string[];
  /**
   * Local ports the process reaches inside the sandbox's own network, each forwarded to a Unix
   * socket outside (an external agent's metering proxy on its model endpoint, SPEC §22). The
   * socket's folder must be this process's alone (a `deepdesk-proxy-` run folder, run-folders.ts:
   * shown read-only to this command, hidden from every other). bubblewrap only.
   */
  forwards?: Array<{ port: number; socket: string }>;
  /**
   * A `/tmp` of its own (bubblewrap): the host's entries read-only as before, and a new name
   * in it the process's alone, gone when it ends (an external agent's process tree makes its
   * sockets there: Claude Code's sandbox bridge does, whatever TMPDIR says).
   */
  privateTmp?: boolean;
}

/** A write a command made in its layer (SPEC §23 (5)): its virtual path, and the file's text now and after (null: absent). */
export interface LayerWrite {
  path: string;
  contents(): { before: string | null; after: string | null };
  /** Its other names in the folder: the virtual paths that lead to it through a link (it is judged on each). */
  names?(): readonly string[];
}

/** Reviews a layer's writes before it is applied: the virtual paths refused, each with why (for the blocked line). */
export type ReviewLayer = (writes: readonly LayerWrite[]) => Promise<ReadonlyMap<string, string>>;

export interface CommandSpec {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

export interface PreparedCommand extends CommandSpec {
  /** Its launch runs the command under the status report asked for (PrepareOptions.report). */
  reports?: true;
  /** After the command ended: one line starting `[Sandbox blocked` naming what was blocked, or undefined. */
  blockedLine(output: string, exitCode: number | null): Promise<string | undefined>;
  /** Frees per-run resources: its proxies at once; a command's folders (TMPDIR, write layer) in the background (run-folders.ts removeRunFolderLater), a long-lived process's at once. */
  dispose(): Promise<void>;
  /**
   * The launch failed before the command started, because a path this run hides (a socket in
   * /tmp, scanned when it was prepared) vanished before the sandbox could cover it: the
   * sandbox's own error, alone, naming such a path that is gone now. Prepared again (a fresh
   * scan), the command can be launched once more.
   */
  launchRaced?(output: string, exitCode: number | null): boolean;
  /**
   * A long-lived process only (sandbox/live-guard.ts): checks git's surface in the folder now,
   * against what it was before the process started, and undoes what the process could have
   * planted. Rejects when the check could not be made.
   */
  checkNow?(): Promise<LiveCheck>;
}

/** What one check of a running process's effects found. */
export interface LiveCheck {
  /** One `[Sandbox blocked …]` line naming what was undone, when something was. */
  blockedLine?: string;
  /** What was found and could not be undone (paths as shown): nothing it names may be trusted. */
  unremoved: string[];
}

export interface PrepareOptions {
  /**
   * A process that outlives any one step (an MCP server, SPEC §10): no write layer and no
   * checkpoint attribution, so its writes land in the folder as it makes them; a temp folder
   * of its own for its whole life. Every existing repository is read-only to it, whole, and
   * what git would run later is undone while it runs (checkNow) and when it ends; a protected
   * path that was missing and appeared meanwhile is left (it may be the person's).
   */
  longLived?: boolean;
  /**
   * The checkpoint step the command belongs to: its layer is applied through it (or, without a
   * layer, it is told the command's writes cannot be observed). Not for a long-lived process.
   */
  attribution?: StepAttribution;
  /**
   * A command run in a pty (pty-exec.ts): the launch's own shell, outside the sandbox, runs
   * it (stdin from /dev/null unless the pty is its input), reports its status on the pty and
   * waits for the nonce before it exits (process/status-report.ts). Not for a long-lived process.
   */
  report?: StatusReport;
  /** Reviews the layer's writes before it is applied (layer-review.ts); without one, what passed its checks is applied. */
  reviewLayer?: ReviewLayer;
}

export interface Sandbox {
  readonly kind: SandboxKind;
  readonly policy: SandboxPolicy;
  prepare(spec: CommandSpec, options?: PrepareOptions): Promise<PreparedCommand>;
}
