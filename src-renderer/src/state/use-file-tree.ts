// The file tree's listings: folders are listed when first expanded and listed again when
// 'files.changed' reports a change inside them.

import { useCallback, useEffect, useRef, useState } from 'react';
import { foldersToRefresh, sortEntries, type FileChange, type Listings } from '../lib/file-tree';
import { errorMessage } from './toasts';
import { useApi } from './use-api';
import { useConnection, useEvent } from './transport-context';

export interface FileTreeState {
  listings: Listings;
  expanded: ReadonlySet<string>;
  toggle(dir: string, open?: boolean): void;
  refreshAll(): void;
}

export function useFileTree(onChanges?: (changes: readonly FileChange[]) => void): FileTreeState {
  const api = useApi();
  const { reconnects } = useConnection();
  const [listings, setListings] = useState<Listings>({});
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const loaded = useRef(new Set<string>());
  /** Per folder, the latest request number: an older answer never overwrites a newer one. */
  const requests = useRef(new Map<string, number>());

  const load = useCallback(
    async (dir: string) => {
      const mine = (requests.current.get(dir) ?? 0) + 1;
      requests.current.set(dir, mine);
      loaded.current.add(dir);
      setListings((all) => ({ ...all, [dir]: { ...all[dir], loading: true } }));
      try {
        const entries = sortEntries(await api.call('files.list', { path: dir }));
        if (requests.current.get(dir) !== mine || !loaded.current.has(dir)) return;
        setListings((all) => ({ ...all, [dir]: { entries } }));
      } catch (err) {
        if (requests.current.get(dir) !== mine || !loaded.current.has(dir)) return;
        setListings((all) => ({ ...all, [dir]: { entries: [], error: errorMessage(err) } }));
      }
    },
    [api],
  );

  const refreshAll = useCallback(() => {
    const dirs = loaded.current.size > 0 ? [...loaded.current] : ['/'];
    for (const dir of dirs) void load(dir);
  }, [load]);

  useEffect(() => {
    refreshAll();
  }, [refreshAll, reconnects]);

  const toggle = useCallback(
    (dir: string, open?: boolean) => {
      setExpanded((old) => {
        const shouldOpen = open ?? !old.has(dir);
        if (shouldOpen === old.has(dir)) return old;
        const next = new Set(old);
        if (shouldOpen) next.add(dir);
        else next.delete(dir);
        return next;
      });
      if ((open ?? true) && !loaded.current.has(dir)) void load(dir);
    },
    [load],
  );

  const changesListener = useRef(onChanges);
  useEffect(() => {
    changesListener.current = onChanges;
  });

  useEvent('files.changed', ({ paths }) => {
    const { refresh, drop } = foldersToRefresh(paths, loaded.current);
    if (drop.length > 0) {
      for (const dir of drop) loaded.current.delete(dir);
      setListings((all) => {
        const next = { ...all };
        for (const dir of drop) delete next[dir];
        return next;
      });
      setExpanded((old) => new Set([...old].filter((dir) => !drop.includes(dir))));
    }
    for (const dir of refresh) void load(dir);
    changesListener.current?.(paths);
  });

  return { listings, expanded, toggle, refreshAll };
}
