import type { Transport } from '../../../src-main/app/contract';

/** `gone`: reconnecting failed too often in a row and stopped (the server stopped or moved); `reconnect()` tries again. */
export type ConnectionStatus = 'connecting' | 'open' | 'closed' | 'gone';

/** The contract's Transport plus what the window needs to show connection state. */
export interface ClientTransport extends Transport {
  readonly kind: 'electron' | 'web';
  readonly status: ConnectionStatus;
  /** Called on every status change; after 'open' following 'closed', refetch state (events were missed). */
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
  /** Tries to connect again now (after `gone`, or while waiting for the next attempt). */
  reconnect?(): void;
  /** Stops the transport: pending calls fail, no reconnection. */
  close(): void;
}
