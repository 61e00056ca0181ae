// The thread list, refreshed on 'threads.changed', 'approvals.changed' and after a reconnect.

import { useCallback, useEffect, useRef, useState } from 'react';
import type { ThreadSummaryDto } from '../../../src-main/app/contract';
import { useApi } from './use-api';
import { useConnection, useEvent } from './transport-context';

export function useThreads(): { threads: ThreadSummaryDto[]; loaded: boolean; refresh(): Promise<ThreadSummaryDto[] | undefined> } {
  const api = useApi();
  const { reconnects } = useConnection();
  const [threads, setThreads] = useState<ThreadSummaryDto[]>([]);
  const [loaded, setLoaded] = useState(false);
  const generation = useRef(0);

  const refresh = useCallback(async () => {
    const mine = ++generation.current;
    const list = await api.safe('threads.list', {});
    // An older answer arriving late must not overwrite a newer one.
    if (mine !== generation.current) return list;
    if (list) setThreads(list);
    setLoaded(true);
    return list;
  }, [api]);

  useEffect(() => {
    void refresh();
  }, [refresh, reconnects]);

  useEvent('threads.changed', () => void refresh());
  // A thread that starts or stops waiting for an approval says so in the list (and the page title).
  useEvent('approvals.changed', () => void refresh());
  return { threads, loaded, refresh };
}
