// A value the app keeps (MCP servers, the trust question, skills, hooks): asked for once (and
// again after a reconnect), asked for again whenever its event says it changed.

import { useCallback, useEffect, useState } from 'react';
import type { EventName, Params, Result } from '../../../src-main/app/contract';
import { useApi } from './use-api';
import { useConnection, useEvent } from './transport-context';

type LiveMethod = 'mcp.list' | 'trust.get' | 'skills.list' | 'hooks.list' | 'mounts.list' | 'plugins.list' | 'agents.list' | 'rules.fromFiles';

/** The value (null until loaded) and a setter for an answer that already carries it (e.g. a save's). */
export function useLiveValue<M extends LiveMethod>(method: M, changed: EventName): [Result<M> | null, (value: Result<M>) => void] {
  const api = useApi();
  const { reconnects } = useConnection();
  const [value, setValue] = useState<Result<M> | null>(null);
  const refresh = useCallback(() => {
    let cancelled = false;
    // Each of these takes no parameters.
    void api.safe(method, {} as Params<M>).then((next) => {
      if (!cancelled && next) setValue(next as Result<M>);
    });
    return () => {
      cancelled = true;
    };
  }, [api, method]);
  useEffect(refresh, [refresh, reconnects]);
  useEvent(changed, () => void refresh());
  return [value, setValue];
}
