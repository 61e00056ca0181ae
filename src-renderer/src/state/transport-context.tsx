// Gives every component the one transport, and a hook to listen to its events.

import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import type { EventName, EventPayload, Transport } from '../../../src-main/app/contract';

/** `gone`: the window stopped reconnecting (its server stopped or moved). */
export type ConnectionStatus = 'connecting' | 'open' | 'closed' | 'gone';

/** The contract's Transport; the connection-status part is optional (Electron never drops). */
export interface AppTransport extends Transport {
  /** Which window this is: the desktop app's (its main process shows OS notifications) or a browser's. */
  readonly kind?: 'electron' | 'web';
  readonly status?: ConnectionStatus;
  onStatus?(listener: (status: ConnectionStatus) => void): () => void;
  /** Tries to connect again now. */
  reconnect?(): void;
}

const TransportContext = createContext<AppTransport | null>(null);

export function TransportProvider({ transport, children }: { transport: AppTransport; children: ReactNode }): React.JSX.Element {
  return <TransportContext.Provider value={transport}>{children}</TransportContext.Provider>;
}

export function useTransport(): AppTransport {
  const transport = useContext(TransportContext);
  if (!transport) throw new Error('useTransport outside TransportProvider');
  return transport;
}

/** Calls `listener` for every `event`; the latest listener is used without resubscribing. */
export function useEvent<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): void {
  const transport = useTransport();
  const ref = useRef(listener);
  useEffect(() => {
    ref.current = listener;
  });
  useEffect(() => transport.on(event, (payload) => ref.current(payload)), [transport, event]);
}

/** The connection status, and a counter that increases on every reconnect (to refetch state). */
export function useConnection(): { status: ConnectionStatus; reconnects: number } {
  const transport = useTransport();
  const [status, setStatus] = useState<ConnectionStatus>(transport.status ?? 'open');
  const [reconnects, setReconnects] = useState(0);
  useEffect(() => {
    if (!transport.onStatus) return undefined;
    let previous: ConnectionStatus = transport.status ?? 'open';
    // A reconnect goes closed → connecting → open (and maybe gone between): state is refetched after it.
    let sawClose = false;
    const off = transport.onStatus((next) => {
      if (next === 'closed' || next === 'gone') sawClose = true;
      if (next === 'open' && sawClose) {
        sawClose = false;
        setReconnects((n) => n + 1);
      }
      previous = next;
      setStatus(next);
    });
    // It may have changed between the first render and this subscription.
    setStatus(previous);
    return off;
  }, [transport]);
  return { status, reconnects };
}
