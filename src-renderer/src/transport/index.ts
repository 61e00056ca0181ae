// The window's one way to talk to the main process, whichever host shows it (SPEC §6).

import type { DeepdeskBridge } from '../../../src-main/host/electron/bridge-api';
import { createBridgeTransport } from './bridge-transport';
import type { ClientTransport } from './types';
import { createWebSocketTransport } from './ws-transport';

declare global {
  interface Window {
    /** Present only inside Electron (set by the preload). */
    deepdeskBridge?: DeepdeskBridge;
  }
}

/** Electron's bridge when the preload provided one, else a WebSocket to the serving origin. */
export function createTransport(): ClientTransport {
  const bridge = typeof window !== 'undefined' ? window.deepdeskBridge : undefined;
  return bridge !== undefined ? createBridgeTransport(bridge) : createWebSocketTransport();
}

export { createBridgeTransport } from './bridge-transport';
export { TransportError, type TransportErrorCode } from './errors';
export type { ClientTransport, ConnectionStatus } from './types';
export { createWebSocketTransport, LONG_METHODS, MAX_FRAME_BYTES, type WebSocketConstructor, type WebSocketLike, type WebSocketTransportOptions } from './ws-transport';
