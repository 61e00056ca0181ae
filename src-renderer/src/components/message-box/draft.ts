// Each thread's unsent text, kept across reloads, and what its changes set off outside the box.

import { useEffect, useLayoutEffect, useRef } from 'react';
import { noteDraft } from '../../state/drafts';
import { useApi } from '../../state/use-api';

const DRAFT_PREFIX = 'deepdesk.draft.';

export function loadDraft(threadId: string | null): string {
  if (threadId === null) return '';
  try {
    return window.localStorage.getItem(DRAFT_PREFIX + threadId) ?? '';
  } catch {
    return '';
  }
}

export function saveDraft(threadId: string | null, text: string): void {
  if (threadId === null) return;
  try {
    if (text === '') window.localStorage.removeItem(DRAFT_PREFIX + threadId);
    else window.localStorage.setItem(DRAFT_PREFIX + threadId, text);
  } catch {
    // Storage full or disabled: the draft lives only in this window.
  }
}

/** Keeps the open thread's draft, says whether it has one, and starts another agent (`otherAgent`) for it. */
export function useDraftUpkeep(focusKey: string | null, text: string, hasFiles: boolean, otherAgent: boolean, running: boolean): void {
  const api = useApi();
  // In the commit, before the next paint: New thread, waiting a paint for the first thread to
  // take what was typed, must find its draft noted (a passive effect could come after it under load).
  useLayoutEffect(() => {
    saveDraft(focusKey, text);
    if (focusKey !== null) noteDraft(focusKey, text.trim() !== '' || hasFiles);
  }, [text, hasFiles, focusKey]);
  // Another agent's process starts while the person types, so the turn does not wait for it:
  // asked once per thread while it is idle (what fails is left to the turn, which reports it).
  const prepared = useRef(new Set<string>());
  useEffect(() => {
    if (focusKey === null || !otherAgent) return;
    if (running) prepared.current.delete(focusKey);
    else if (text !== '' && !prepared.current.has(focusKey)) {
      prepared.current.add(focusKey);
      void api.call('threads.prepare', { threadId: focusKey }).catch(() => undefined);
    }
  }, [api, otherAgent, running, text, focusKey]);
}
