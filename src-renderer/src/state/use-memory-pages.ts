// The Memories panel's list, a page at a time: the first page for the search box's query
// (debounced) and the filters, further pages as the list scrolls (keyset: after the last path
// shown). A change to the memories reloads what is shown, up to one full-size page. The page's
// notice (memories moved to /memories/global/) comes once: it is kept until dismissed.

import { useCallback, useEffect, useRef, useState } from 'react';
import { MAX_MEMORY_PAGE, type MemoryEntry, type Params } from '../../../src-main/app/contract';
import { useApi } from './use-api';
import { useConnection } from './transport-context';

export const MEMORY_PAGE_SIZE = 100;

/** Which memories the list shows: of one scope, of one status, or (undefined) all of them. */
export interface MemoryFilter {
  scope?: NonNullable<Params<'memories.list'>['scope']> | undefined;
  status?: NonNullable<Params<'memories.list'>['status']> | undefined;
}

export interface MemoryPages {
  /** Null until the first page arrives. */
  entries: MemoryEntry[] | null;
  /** True while later pages remain to be fetched. */
  more: boolean;
  /** The shared store the memories live in, if they are not this computer's. */
  sharedStore: string | undefined;
  /** How many memories wait for the person's review (the panel points to them from any filter). */
  proposed: number;
  /** Said once by the app (memories kept before scopes were moved), until the person dismisses it. */
  notice: string | undefined;
  dismissNotice: () => void;
  loadMore: () => void;
}

export function useMemoryPages(query: string, filter: MemoryFilter, version: number): MemoryPages {
  const api = useApi();
  const { reconnects } = useConnection();
  const [entries, setEntries] = useState<MemoryEntry[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [sharedStore, setSharedStore] = useState<string | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [proposed, setProposed] = useState(0);
  // Bumped on every reload, so pages asked for before it are dropped.
  const generation = useRef(0);
  const loading = useRef(false);
  const { scope, status } = filter;
  const shown = useRef({ key: '', count: 0, params: {} as Params<'memories.list'> });

  useEffect(() => {
    const q = query.trim();
    const params = { ...(q ? { query: q } : {}), ...(scope ? { scope } : {}), ...(status ? { status } : {}) };
    const key = JSON.stringify(params);
    const mine = ++generation.current;
    loading.current = false;
    const reload = key === shown.current.key ? Math.min(MAX_MEMORY_PAGE, Math.max(MEMORY_PAGE_SIZE, shown.current.count)) : MEMORY_PAGE_SIZE;
    const timer = setTimeout(() => {
      void api.safe('memories.list', { ...params, limit: reload }).then((page) => {
        if (!page) return;
        if (page.notice !== undefined) setNotice(page.notice);
        if (mine !== generation.current) return;
        shown.current = { key, count: page.entries.length, params };
        setEntries(page.entries);
        setNext(page.next);
        setSharedStore(page.sharedStore);
      });
    }, query ? 200 : 0);
    return () => clearTimeout(timer);
  }, [api, query, scope, status, version, reconnects]);

  // The proposals waiting, whatever is shown. The notice may come with this answer (it is said
  // once, to whichever call is first): it is kept even from an answer come too late.
  useEffect(() => {
    let current = true;
    api.call('memories.list', { status: 'proposed', limit: MAX_MEMORY_PAGE }).then(
      (page) => {
        if (page.notice !== undefined) setNotice(page.notice);
        if (current) setProposed(page.entries.length);
      },
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [api, version, reconnects]);

  const loadMore = useCallback(() => {
    if (loading.current || next === null) return;
    loading.current = true;
    const mine = generation.current;
    const { key, params } = shown.current;
    void api.safe('memories.list', { ...params, after: next, limit: MEMORY_PAGE_SIZE }).then((page) => {
      if (page?.notice !== undefined) setNotice(page.notice);
      if (mine !== generation.current) return;
      loading.current = false;
      if (!page) return;
      shown.current = { key, params, count: shown.current.count + page.entries.length };
      setEntries((current) => [...(current ?? []), ...page.entries]);
      setNext(page.next);
    });
  }, [api, next]);

  const dismissNotice = useCallback(() => setNotice(undefined), []);
  return { entries, more: next !== null, loadMore, sharedStore, proposed, notice, dismissNotice };
}

