// Marks the project's memories that name what the folder no longer has (SPEC §25 "Stale"):
// once when the folder opens and again after each run's changes, one pass at a time (a
// request while one runs makes one more pass after it).

import type { MemoryBook } from '../../core/memories/memory-book';
import { projectProbe } from '../../core/memories/project-probe';
import { refreshStale } from '../../core/memories/stale-memories';

export interface StaleCheck {
  /** Asks for a pass; resolves when the passes asked for so far are done. */
  request(): Promise<void>;
  /** Resolves when no pass runs (the session closes after it). */
  settled(): Promise<void>;
}

export function staleCheck(book: MemoryBook, folder: string, changed?: () => void): StaleCheck {
  let running: Promise<void> | undefined;
  let again = false;
  const pass = async () => {
    const result = await refreshStale({ records: book.records, scope: book.projectScope, store: book.storeOf(book.projectScope), probe: projectProbe(folder) });
    if (result.stale > 0) changed?.();
  };
  const request = () => {
    again = true;
    running ??= (async () => {
      while (again) {
        again = false;
        // A database closed under a pass, or a store that cannot be reached: the next pass tries again.
        await pass().catch(() => undefined);
      }
      running = undefined;
    })();
    return running;
  };
  return { request, settled: () => running ?? Promise.resolve() };
}
