// The Memories panel's list, a page at a time: the first page for the search box's query
// (debounced), further pages as the list scrolls (keyset: after the last path shown).
// A change to the memories reloads what is shown, up to one full-size page.

import { useCallback, useEffect, useRef, useState } from 'react';
import { MAX_MEMORY_PAGE, type MemoryEntry } from '../../../src-main/app/contract';
import { useApi } from './use-api';
import { useConnection } from './transport-context';

export const MEMORY_PAGE_SIZE = 100;

export interface MemoryPages {
  /** Null until the first page arrives. */
  entries: MemoryEntry[] | null;
  /** True while later pages remain to be fetched. */
  more: boolean;
  /** The shared store the memories live in, if they are not this computer's. */
  sharedStore: string | undefined;
  loadMore: () => void;
}

export function useMemoryPages(query: string, version: number): MemoryPages {
  const api = useApi();
  const { reconnects } = useConnection();
  const [entries, setEntries] = useState<MemoryEntry[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [sharedStore, setSharedStore] = useState<string | undefined>(undefined);
  // Bumped on every reload, so pages asked for before it are dropped.
  const generation = useRef(0);
  const loading = useRef(false);
  const shown = useRef({ query: '', count: 0 });

  useEffect(() => {
    const q = query.trim();
    const mine = ++generation.current;
    loading.current = false;
    const reload = q === shown.current.query ? Math.min(MAX_MEMORY_PAGE, Math.max(MEMORY_PAGE_SIZE, shown.current.count)) : MEMORY_PAGE_SIZE;
    const timer = setTimeout(() => {
      void api.safe('memories.list', { ...(q ? { query: q } : {}), limit: reload }).then((page) => {
        if (mine !== generation.current || !page) return;
        shown.current = { query: q, count: page.entries.length };
        setEntries(page.entries);
        setNext(page.next);
        setSharedStore(page.sharedStore);
      });
    }, query ? 200 : 0);
    return () => clearTimeout(timer);
  }, [api, query, version, reconnects]);

  const loadMore = useCallback(() => {
    if (loading.current || next === null) return;
    loading.current = true;
    const mine = generation.current;
    const q = shown.current.query;
    void api.safe('memories.list', { ...(q ? { query: q } : {}), after: next, limit: MEMORY_PAGE_SIZE }).then((page) => {
      if (mine !== generation.current) return;
      loading.current = false;
      if (!page) return;
      shown.current = { query: q, count: shown.current.count + page.entries.length };
      setEntries((current) => [...(current ?? []), ...page.entries]);
      setNext(page.next);
    });
  }, [api, next]);

  return { entries, more: next !== null, loadMore, sharedStore };
}
