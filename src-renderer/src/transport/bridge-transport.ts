// The window's transport inside Electron: the preload's narrow bridge over IPC.

import type { EventName, EventPayload, MethodName, Params, Result } from '../../../src-main/app/contract';
import type { DeepdeskBridge } from '../../../src-main/app/contract';
import { decodeResponse } from './decode';
import { TransportError } from './errors';
import { createEventHub } from './event-hub';
import type { ClientTransport } from './types';

export function createBridgeTransport(bridge: DeepdeskBridge): ClientTransport {
  const hub = createEventHub();
  const unsubscribe = bridge.onEvent((frame) => hub.dispatch(frame));
  let stopped = false;
  return {
    kind: 'electron',
    get status() {
      return stopped ? 'closed' : 'open';
    },
    async call<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>> {
      if (stopped) throw new TransportError('the transport is closed', 'disconnected');
      let frame: unknown;
      try {
        frame = await bridge.call(method, params);
      } catch (err) {
        throw new TransportError(`${method} could not reach the main process: ${err instanceof Error ? err.message : String(err)}`, 'failed');
      }
      const outcome = decodeResponse(method, frame);
      if (outcome instanceof TransportError) throw outcome;
      return outcome as Result<M>;
    },
    on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
      return hub.on(event, listener);
    },
    onStatus: () => () => undefined,
    close() {
      stopped = true;
      unsubscribe();
    },
  };
}
