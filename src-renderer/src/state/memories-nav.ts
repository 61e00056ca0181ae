// Ways into and out of the Memories panel from elsewhere in the window: a proposed memory's
// `Review` (the conversation's card) opens the panel on its Proposed list at that memory; a
// memory's source thread opens from the panel.

import { createContext, useCallback, useContext, useMemo, useState } from 'react';

export interface MemoriesNav {
  /** Shows the Memories panel on its Proposed list, at `path`. */
  review(path: string): void;
  /** The latest review asked for; the panel acts on each `seq` once. */
  request: { seq: number; path: string } | null;
  /** Opens a thread of the open folder. */
  openThread(threadId: string): void;
}

export const MemoriesNavContext = createContext<MemoriesNav>({ review: () => undefined, request: null, openThread: () => undefined });

export function useMemoriesNav(): MemoriesNav {
  return useContext(MemoriesNavContext);
}

/** The value the workspace provides: `show` unfolds the panel (or opens its drawer). */
export function useMemoriesNavValue(show: () => void, openThread: (threadId: string) => void): MemoriesNav {
  const [request, setRequest] = useState<MemoriesNav['request']>(null);
  const review = useCallback(
    (path: string) => {
      show();
      setRequest((r) => ({ seq: (r?.seq ?? 0) + 1, path }));
    },
    [show],
  );
  return useMemo(() => ({ review, request, openThread }), [review, request, openThread]);
}
