// Why a request failed, as every client and the host say it: free of schemas, so a thin
// client (`deepdesk run`) checks its flags without loading the whole contract.

/**
 * Why a request failed: bad params, something not there, or it failed; `needs_settings`: it
 * failed for want of something the person sets in Settings (a model, an API key), and the
 * window offers `Open settings`.
 */
export type ContractErrorCode = 'bad_request' | 'not_found' | 'failed' | 'needs_settings';

export class ContractError extends Error {
  constructor(
    message: string,
    readonly code: ContractErrorCode = 'bad_request',
  ) {
    super(message);
  }
}

/** `work()`'s value; an error of kind `caller` (the caller's mistake, its message says why) is thrown as a bad request. */
export function badRequestOn<T>(caller: abstract new (...args: never[]) => Error, work: () => T): T {
  try {
    return work();
  } catch (err) {
    if (err instanceof caller) throw new ContractError(err.message, 'bad_request');
    throw err;
  }
}
