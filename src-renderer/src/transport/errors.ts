export type TransportErrorCode = 'bad_request' | 'not_found' | 'failed' | 'needs_settings' | 'disconnected' | 'timeout';

/** Every failed call rejects with this; `code` comes from the main process when it answered. */
export class TransportError extends Error {
  constructor(
    message: string,
    readonly code: TransportErrorCode,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}
