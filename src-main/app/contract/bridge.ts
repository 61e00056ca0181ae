// What the desktop app's preload gives the window as `window.deepdeskBridge`: the frames of
// this contract over Electron IPC, unvalidated (the window validates them as any transport's).

import type { EventFrame, ResponseFrame } from './index';

export interface DeepdeskBridge {
  /** Resolves with the response frame (errors are frames too); rejects only if IPC itself fails. */
  call(method: string, params: unknown): Promise<ResponseFrame>;
  /** Event frames as they arrive, unvalidated; returns an unsubscribe function. */
  onEvent(listener: (frame: EventFrame) => void): () => void;
}
