// What the Agent Protocol's routes are given by the host (SPEC §19): the host's own services.
// A protocol run is a host run (app/host/runs.ts), started through the same check as `deepdesk run`'s;
// a protocol thread is a Deepdesk thread. The routes translate; they own no second run path.

import type Database from 'better-sqlite3';
import type { HostRuns } from '../../host/runs';

/** The graph every Deepdesk thread runs: the `deepdesk` assistant's graph id (and its name). */
export const DEEPDESK_GRAPH_ID = 'deepdesk';

export interface ProtocolContext {
  dataDir: string;
  db: Database.Database;
  /** The host's runs, started as the socket's `runs.start` starts them (refused while the thread works in a window or an editor). */
  runs: HostRuns;
  /** The host's `--folder`: a run's folder when `config.configurable.folder` names none. */
  defaultFolder: string | undefined;
  /** The host's environment: what a protocol run's commands and hooks inherit, its keys and base URLs. */
  env: NodeJS.ProcessEnv;
  /**
   * Whether runs may work in `folder` (absolute: a run's request is checked for it) over the protocol: one the person has opened in
   * Deepdesk before, or the host's `--folder`. Undefined when allowed, else the line saying how to allow it.
   */
  folderRefusal(folder: string): string | undefined;
  /** This build's version, for `/info`. */
  version: string;
  log(line: string): void;
}

/** A thread's state as the protocol reports it (the reference's thread `status`). */
export type ProtocolThreadStatus = 'idle' | 'busy' | 'interrupted' | 'error';

/** One pending interrupt, as the reference lists it in a thread's `interrupts` and a state's tasks. */
export interface ProtocolInterrupt {
  id: string;
  value: unknown;
}

/** What the thread routes ask of the run side (protocol-runs.ts owns the runs). */
export interface ThreadActivity {
  status(threadId: string): ProtocolThreadStatus;
  /** The thread's pending interrupts (an approval waiting), oldest first. */
  interrupts(threadId: string): ProtocolInterrupt[];
  /** Cancels what goes on the thread (its delete then proceeds). */
  cancelAll(threadId: string): Promise<void>;
}
