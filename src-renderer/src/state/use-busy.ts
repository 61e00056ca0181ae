// An action that takes a while: busy while it runs (its buttons disabled), however it ends.

import { useCallback, useState } from 'react';

export function useBusy(): [boolean, <T>(work: () => Promise<T>) => Promise<T>] {
  const [busy, setBusy] = useState(false);
  const run = useCallback(async <T>(work: () => Promise<T>): Promise<T> => {
    setBusy(true);
    try {
      return await work();
    } finally {
      setBusy(false);
    }
  }, []);
  return [busy, run];
}
