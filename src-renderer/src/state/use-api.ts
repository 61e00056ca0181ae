// Contract calls for components: `call` rejects as usual, `safe` shows a toast and gives undefined.

import { useMemo } from 'react';
import type { MethodName, Params, Result } from '../../../src-main/app/contract';
import { TransportError } from '../transport/errors';
import { errorMessage, useToasts } from './toasts';
import { useTransport } from './transport-context';

export interface Api {
  call<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>>;
  safe<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M> | undefined>;
}

export function useApi(): Api {
  const transport = useTransport();
  const { push } = useToasts();
  return useMemo<Api>(
    () => ({
      call: (method, params) => transport.call(method, params),
      async safe(method, params) {
        try {
          return await transport.call(method, params);
        } catch (err) {
          // The server is gone: the window's notice says so once, with the ways out, not a toast a call.
          if (!(err instanceof TransportError && err.code === 'disconnected' && transport.status === 'gone')) push(errorMessage(err));
          return undefined;
        }
      },
    }),
    [transport, push],
  );
}
