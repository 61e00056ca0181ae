// The IPC channels of what the preload exposes to the window as `window.deepdeskBridge`
// (its type is the contract's, which the window imports).

export type { DeepdeskBridge } from '../../app/contract';

export const CALL_CHANNEL = 'deepdesk:call';
export const EVENT_CHANNEL = 'deepdesk:event';
