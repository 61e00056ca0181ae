// What a protocol the agent host serves beside its own methods is to the host (app/adapters/:
// an editor's agent over ACP, SPEC §14; the Agent Protocol, SPEC §19): the host hands it its
// parts, it answers socket methods of its own and says whether work goes on in it. The host
// never imports an adapter: whoever starts the host (cli/host-command.ts) hands them in.

import type Database from 'better-sqlite3';
import type { z } from 'zod';
import type { HostConnection } from '../base/host-service';
import type { AgentProtocolStatus } from '../contract';
import type { ProtocolListenRequest } from '../contract/protocol-listen';
import type { FileSecretStore } from '../settings/file-secret-store';
import type { ThreadStore } from '../threads/thread-store';
import type { HostRuns } from './runs';

/** One method of the host's socket: its params' schema (a client is another process), and its answer. */
export interface HostMethod {
  params: z.ZodType;
  handle(connection: HostConnection, params: unknown): unknown;
}

/** A method whose handler takes what its schema gives. */
export function hostMethod<S extends z.ZodType>(params: S, handle: (connection: HostConnection, params: z.output<S>) => unknown): HostMethod {
  return { params, handle: (connection, checked) => handle(connection, checked as z.output<S>) };
}

/** The host's own parts an adapter works with: one data folder, database, keys and set of runs for every client. */
export interface HostParts {
  dataDir: string;
  db: Database.Database;
  env: NodeJS.ProcessEnv;
  version: string;
  secrets: FileSecretStore;
  runs: HostRuns;
  threads: ThreadStore;
  log(line: string): void;
  /** `host --reviewer` (SPEC §23): under each session's own flags. */
  reviewer?: string;
}

export interface HostAdapter {
  /** The socket methods it answers, by name. */
  methods: Record<string, HostMethod>;
  /** Whether work goes on in it: the host does not stop for idleness then. */
  busy(): boolean;
  /** Whether the thread works in it (an editor's session): a thread never has two runs. */
  working?(threadId: string): boolean;
  /** Stops the thread when it works in it; false when it does not. */
  stop?(threadId: string): Promise<boolean>;
  /** This host serves the data folder's socket now: what another host left going is that dead host's. */
  serving?(): void;
  close(): Promise<void>;
}

/** The Agent Protocol: besides its methods, a listener the host starts itself (agent-host.ts), and what Settings shows of it. */
export interface ProtocolAdapter extends HostAdapter {
  /** Listens as asked until the host stops; its URL. */
  listen(request: ProtocolListenRequest): Promise<string>;
  status(): AgentProtocolStatus;
  rotateKey(): AgentProtocolStatus;
}

/** The adapters a host serves, each made from the host's parts. */
export interface HostAdapters {
  editors?: (host: HostParts) => HostAdapter;
  protocol?: (host: HostParts) => ProtocolAdapter;
}
