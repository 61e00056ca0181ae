import type { Transport } from '../../../src-main/app/contract';

export type ConnectionStatus = 'connecting' | 'open' | 'closed';

/** The contract's Transport plus what the window needs to show connection state. */
export interface ClientTransport extends Transport {
  readonly kind: 'electron' | 'web';
  readonly status: ConnectionStatus;
  /** Called on every status change; after 'open' following 'closed', refetch state (events were missed). */
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
  /** Stops the transport: pending calls fail, no reconnection. */
  close(): void;
}
