// A value the app keeps (MCP servers, the trust question, skills, hooks, Settings, the mode):
// asked for once (and again after a reconnect), and kept current by its change event.

import { useCallback, useEffect, useState, type Dispatch, type SetStateAction } from 'react';
import type { EventName, Params, Result } from '../../../src-main/app/contract';
import { useApi } from './use-api';
import { useConnection, useEvent } from './transport-context';

type LiveMethod = 'mcp.list' | 'trust.get' | 'skills.list' | 'hooks.list' | 'mounts.list' | 'plugins.list' | 'agents.list' | 'rules.fromFiles';
/** Those whose change event carries the value itself (the caller sets it from the event). */
type AskedMethod = LiveMethod | 'settings.get' | 'mode.get' | 'updates.status';

/** The value (null until loaded), its setter, and asking for it again. */
export function useAskedValue<M extends AskedMethod>(method: M): [Result<M> | null, Dispatch<SetStateAction<Result<M> | null>>, () => void] {
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
  return [value, setValue, refresh];
}

/** The value (null until loaded) and a setter for an answer that already carries it (e.g. a save's); asked for again on each `changed`. */
export function useLiveValue<M extends LiveMethod>(method: M, changed: EventName): [Result<M> | null, (value: Result<M>) => void] {
  const [value, setValue, refresh] = useAskedValue(method);
  useEvent(changed, () => void refresh());
  return [value, setValue];
}
