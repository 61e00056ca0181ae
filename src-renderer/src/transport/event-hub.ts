// Event listeners of a transport; they live as long as the transport, across reconnects.

import type { EventName, EventPayload } from '../../../src-main/app/contract';
import { decodeEvent } from './decode';

export interface EventHub {
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
  /** Validates a raw event frame and calls its listeners; invalid frames are dropped. */
  dispatch(frame: unknown): void;
}

export function createEventHub(): EventHub {
  const listeners = new Map<EventName, Set<(payload: unknown) => void>>();
  return {
    on(event, listener) {
      let set = listeners.get(event);
      if (set === undefined) {
        set = new Set();
        listeners.set(event, set);
      }
      const entry = listener as (payload: unknown) => void;
      set.add(entry);
      return () => {
        set.delete(entry);
      };
    },
    dispatch(frame) {
      const decoded = decodeEvent(frame);
      if (decoded === undefined) return;
      for (const listener of [...(listeners.get(decoded.event) ?? [])]) {
        try {
          listener(decoded.payload);
        } catch (err) {
          console.error(`deepdesk: a '${decoded.event}' listener failed`, err);
        }
      }
    },
  };
}
