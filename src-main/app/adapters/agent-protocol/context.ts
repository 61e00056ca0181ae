// What the Agent Protocol's routes are given by the host (SPEC §19): the host's own services.
// A protocol run is a host run (app/host/runs.ts), started through the same check as `deepdesk run`'s;
// a protocol thread is a Deepdesk thread. The routes translate; they own no second run path.

import type Database from 'better-sqlite3';
import type { AgentEvent } from '../../../core/agent/types';
import type { HostRuns } from '../../host/runs';
import type { RunEnd, StartRunParams } from '../../session/run-requests';
import type { HostConnection } from '../../base/host-service';

/** The graph every Deepdesk thread runs: the `deepdesk` assistant's graph id (and its name). */
export const DEEPDESK_GRAPH_ID = 'deepdesk';

export interface ProtocolContext {
  dataDir: string;
  db: Database.Database;
  /** The host's runs: attach, decide, stop, list (start only through `start`). */
  runs: HostRuns;
  /** Starts a host run as the socket's `runs.start` does (refused while the thread works in a window or an editor). */
  start(connection: HostConnection, params: StartRunParams): Promise<{ threadId: string }>;
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

/** What a protocol run hears of the host run it follows. */
export interface RunFollower {
  event(seq: number, event: AgentEvent): void;
  approval(): void;
  end(end: RunEnd): void;
}

export interface FollowingConnection extends HostConnection {
  /** It hears nothing more. */
  close(): void;
}

/** A connection to the host's runs through which a protocol run follows one; it answers nothing (a run's approvals are its interrupts). */
export function followingConnection(id: string, follower: RunFollower): FollowingConnection {
  const closers: Array<() => void> = [];
  let closed = false;
  return {
    id,
    client: 'agent-protocol',
    get closed() {
      return closed;
    },
    send: (event, payload) => {
      if (closed) return;
      const p = payload as { seq?: number; event?: AgentEvent };
      if (event === 'run.event' && p.seq !== undefined && p.event !== undefined) follower.event(p.seq, p.event);
      else if (event === 'run.approval') follower.approval();
      else if (event === 'run.end') follower.end(payload as RunEnd);
    },
    ask: () => Promise.reject(new Error('an Agent Protocol run answers nothing')),
    onClose: (listener) => closers.push(listener),
    close: () => {
      if (closed) return;
      closed = true;
      for (const close of closers) close();
    },
  };
}
