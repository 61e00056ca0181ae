// What a transport needs from the app: answer a validated request, and pass on events.
// Implemented once ; served by Electron IPC and by the web host.

import type { EventFrame, MethodName } from '../contract';

export interface WindowApi {
  /** Params are already validated against the contract; errors are ContractError or plain Error. */
  handle(method: MethodName, params: unknown): Promise<unknown>;
  /** Every event for the window; returns an unsubscribe function. */
  onEvent(listener: (frame: EventFrame) => void): () => void;
}
