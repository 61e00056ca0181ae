// The window's one way to talk to the main process, whichever host shows it (SPEC §6).

import type { DeepdeskBridge } from '../../../src-main/app/contract';
import { createBridgeTransport } from './bridge-transport';
import type { ClientTransport } from './types';
import { createWebSocketTransport } from './ws-transport';

declare global {
  interface Window {
    /** Present only inside Electron (set by the preload). */
    deepdeskBridge?: DeepdeskBridge;
  }
}

/** The desktop app's page (app-protocol.ts): its only way out is the preload's bridge. */
const DESKTOP_PAGE_PROTOCOL = 'app:';

/**
 * Electron's bridge when the preload provided one; on the desktop app's page without it (the
 * preload failed), a bridge that fails every call saying so (there is no server to fall back
 * to, and the CSP allows none); else a WebSocket to the serving origin.
 */
export function createTransport(): ClientTransport {
  const bridge = typeof window !== 'undefined' ? window.deepdeskBridge : undefined;
  if (bridge !== undefined) return createBridgeTransport(bridge);
  if (typeof location !== 'undefined' && location.protocol === DESKTOP_PAGE_PROTOCOL) return createBridgeTransport(missingBridge());
  return createWebSocketTransport();
}

function missingBridge(): DeepdeskBridge {
  const reason = new Error("the desktop app's bridge (its preload script) did not load; quit Deepdesk and start it again");
  return { call: () => Promise.reject(reason), onEvent: () => () => undefined };
}

export { createBridgeTransport } from './bridge-transport';
export { TransportError, type TransportErrorCode } from './errors';
export type { ClientTransport, ConnectionStatus } from './types';
export { createWebSocketTransport, LONG_METHODS, MAX_FRAME_BYTES, type WebSocketConstructor, type WebSocketLike, type WebSocketTransportOptions } from './ws-transport';
