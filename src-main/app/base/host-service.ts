// What the agent host's socket server (app/host/server.ts) asks of the service behind it, what
// a connected client is to that service, and the error its client is told. The server knows
// frames, authentication and idleness; the service knows threads. Here, below every floor that
// serves a client of the host (a set of candidates in the session's, the protocols above the host).

import { ContractError } from '../contract/contract-error';
import type { ProtocolListenRequest } from '../contract/protocol-listen';

/** One authenticated client on the host's socket. */
export interface HostConnection {
  /** Unique for the host's lifetime. */
  readonly id: string;
  /** What the client said it is in its hello (`run`, `attach`, `agents`, `window`…): for logs. */
  readonly client: string;
  /** Sends an event frame to this client only (dropped once it has gone). */
  send(event: string, payload: unknown): void;
  /**
   * Asks this client for what only it can do (app/host/protocol.ts AskFrame); rejects with its error,
   * or when it goes before answering. What it answers is the client's: check it.
   */
  ask(method: string, params?: unknown): Promise<unknown>;
  /** Called once when the client goes (closed, crashed, or dropped for falling behind). */
  onClose(listener: () => void): void;
  readonly closed: boolean;
}

/** An error the client is told as it is (`code` as the contract's ContractError codes). */
export class HostRequestError extends Error {
  constructor(
    message: string,
    /** `needs_settings`: the window's contract's own (it offers Open settings). */
    readonly code: 'bad_request' | 'not_found' | 'failed' | 'needs_settings' = 'failed',
  ) {
    super(message);
    this.name = 'HostRequestError';
  }
}

/** The session code's errors as the client is told them (bad usage stays bad usage). */
export function asHostError(err: unknown): Error {
  if (err instanceof ContractError) return new HostRequestError(err.message, err.code);
  return err instanceof Error ? err : new Error(String(err));
}

export interface HostService {
  /** Answers one request of a connection; throws HostRequestError (or any Error: `failed`). */
  handle(connection: HostConnection, method: string, params: unknown): Promise<unknown>;
  /** Whether work is going (runs, approvals waiting): the host does not stop for idleness then. */
  busy(): boolean;
  /**
   * Called once the host serves the data folder's socket: it is the only host of that folder
   * now, so whatever another host left going is that dead host's (see app/host/runs.ts).
   */
  serving?(): void;
  /**
   * Serves the Agent Protocol besides the socket until the host stops (`deepdesk host --listen`,
   * Settings › Agent Protocol); its URL. The host does not stop for idleness while it listens.
   */
  listenProtocol?(request: ProtocolListenRequest): Promise<string>;
  /** Ends what the service owns (runs are marked interrupted, servers stopped). */
  close(): Promise<void>;
}
