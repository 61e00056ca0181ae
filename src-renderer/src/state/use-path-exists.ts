// Whether a folder path is a file there, for links (lib/path-exists): one store per
// transport, fed by 'files.changed' and emptied after a reconnect (events may have been missed).

import { useCallback, useEffect, useSyncExternalStore } from 'react';
import { PathExistence } from '../lib/path-exists';
import type { AppTransport } from './transport-context';
import { useTransport } from './transport-context';

const stores = new WeakMap<AppTransport, PathExistence>();

export function pathExistence(transport: AppTransport): PathExistence {
  let store = stores.get(transport);
  if (!store) {
    const created = new PathExistence((paths) => transport.call('files.exists', { paths }));
    transport.on('files.changed', ({ paths }) => created.apply(paths));
    let previous = transport.status ?? 'open';
    transport.onStatus?.((next) => {
      if (next === 'open' && previous === 'closed') created.clear();
      previous = next;
    });
    stores.set(transport, created);
    store = created;
  }
  return store;
}

/** true / false once known for `path` (null: nothing to check); undefined meanwhile. */
export function usePathExists(path: string | null): boolean | undefined {
  const store = pathExistence(useTransport());
  const subscribe = useCallback((listener: () => void) => store.subscribe(listener), [store]);
  const known = useSyncExternalStore(subscribe, () => (path === null ? undefined : store.peek(path)));
  useEffect(() => {
    if (path !== null && store.peek(path) === undefined) store.get(path);
  }, [store, path, known]);
  return known;
}
