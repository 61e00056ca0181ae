// What the preload exposes to the window as `window.deepdeskBridge` (types only: the preload
// stays dependency-free, and the renderer imports this type without pulling in Electron).

import type { EventFrame, ResponseFrame } from '../../app/contract';

export const CALL_CHANNEL = 'deepdesk:call';
export const EVENT_CHANNEL = 'deepdesk:event';

export interface DeepdeskBridge {
  /** Resolves with the response frame (errors are frames too); rejects only if IPC itself fails. */
  call(method: string, params: unknown): Promise<ResponseFrame>;
  /** Event frames as they arrive, unvalidated; returns an unsubscribe function. */
  onEvent(listener: (frame: EventFrame) => void): () => void;
}
