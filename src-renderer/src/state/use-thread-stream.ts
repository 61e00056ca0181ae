// The open thread as it shows: threads.get, then its live 'thread.event's folded by the thread
// reducer, its earlier pages on demand, and its costs read again when a price changes.

import { startTransition, useCallback, useEffect, useReducer, useRef, useState } from 'react';
import type { GoalDraft, PendingApproval } from '../../../src-main/app/contract';
import type { RawAgentEvent } from '../lib/agent-event';
import { emptyThreadState, threadReducer } from '../lib/thread-reducer';
import { useSettings } from './settings-context';
import { errorMessage, useToasts } from './toasts';
import { useConnection, useEvent } from './transport-context';
import { useApi } from './use-api';

/** The open thread and what it shows, which the session's hooks share. */
export function useOpenThread() {
  const [threadId, select] = useState<string | null>(null);
  const [state, dispatch] = useReducer(threadReducer, emptyThreadState());
  const current = useRef(threadId);
  current.current = threadId;
  /** The thread whose load has ended: until then a message waits (its snapshot would replace the message shown). */
  const loadedThread = useRef<string | null>(null);
  return { threadId, select, state, dispatch, current, loadedThread };
}
export type OpenThread = ReturnType<typeof useOpenThread>;

/** What the session's other hooks give the stream, and take from each load. */
export interface StreamLinks {
  /** The loaded view's pending approvals (none while it loads) and goal draft. */
  showApprovals(approvals: readonly PendingApproval[]): void;
  showGoalDraft(threadId: string, draft: GoalDraft | undefined): void;
  /** The thread has loaded: a message that waited for it goes. */
  loaded(threadId: string): void;
  /** The approvals shown (an earlier page marks its own), and the sends in flight (the thread list may not know their runs yet). */
  approvals: readonly PendingApproval[];
  sending: { readonly current: number };
}

export function useThreadStream(thread: OpenThread, { showApprovals, showGoalDraft, loaded, approvals, sending }: StreamLinks) {
  const { threadId, dispatch, current, loadedThread } = thread;
  const api = useApi();
  const { push } = useToasts();
  const { reconnects } = useConnection();
  const [loading, setLoading] = useState(false);
  /** Counts rewrites of the open thread's history (a conversation rewound or put back): each loads it again. */
  const [rewrites, setRewrites] = useState(0);
  /** Live events that arrive while threads.get loads, with their seq: they apply on top of it. */
  const buffer = useRef<Array<{ seq: number; event: RawAgentEvent }> | null>(null);
  const frameQueue = useRef<RawAgentEvent[]>([]);
  const loadedSeq = useRef(0);
  const frame = useRef<number | null>(null);
  /** The thread whose opening was told to the host: a load again after a reconnect or a rewind is no opening. */
  const opened = useRef<string | null>(null);
  useEffect(() => {
    dispatch({ type: 'reset', threadId });
    loadedThread.current = null;
    frameQueue.current = [];
    showApprovals([]);
    if (threadId === null) {
      opened.current = null;
      return undefined;
    }
    let cancelled = false;
    buffer.current = [];
    setLoading(true);
    // Only the person's opening marks the thread seen (it then leaves the Agents view once
    // finished); a reload while it stays open must not hide a finish that came meanwhile.
    const opening = opened.current !== threadId;
    opened.current = threadId;
    api
      .call('threads.get', opening ? { threadId } : { threadId, refresh: true })
      .then((view) => {
        if (cancelled) return;
        loadedSeq.current = view.eventSeq;
        // A page is up to 150 rows: as a transition React renders them in slices between frames.
        startTransition(() => {
          dispatch({ type: 'load', view });
          showApprovals(view.approvals);
          // The thread's draft waiting for the person shows whenever the thread opens, not only from the reply that brought it.
          showGoalDraft(threadId, view.goalDraft);
        });
      })
      .catch((err: unknown) => {
        if (!cancelled) push(`Could not open the thread: ${errorMessage(err)}`);
      })
      .finally(() => {
        if (cancelled) return;
        // Events the snapshot already reflects (seq ≤ its eventSeq) must not apply twice.
        startTransition(() => {
          for (const { seq, event } of buffer.current ?? []) if (seq > loadedSeq.current) dispatch({ type: 'event', event });
          setLoading(false);
        });
        buffer.current = null;
        loadedThread.current = threadId;
        loaded(threadId);
      });
    return () => {
      cancelled = true;
      buffer.current = null;
    };
  }, [api, push, dispatch, loadedThread, threadId, reconnects, rewrites, showApprovals, showGoalDraft, loaded]);

  // Live events are applied once per animation frame: a fast stream of text deltas then
  // costs one render a frame instead of one per delta. Transitions, as the page they apply
  // to: an urgent update would restart a page's render in progress each frame.
  useEffect(() => () => {
    if (frame.current !== null) cancelAnimationFrame(frame.current);
  }, []);
  useEvent('thread.event', ({ threadId: id, seq, event }) => {
    if (id !== current.current) return;
    const raw = event as RawAgentEvent;
    // The history was rewritten (rewound or put back): load it again; what follows applies on top.
    if (raw.type === 'rewound') {
      setRewrites((n) => n + 1);
      return;
    }
    if (buffer.current) {
      buffer.current.push({ seq, event: raw });
      return;
    }
    frameQueue.current.push(raw);
    frame.current ??= requestAnimationFrame(() => {
      frame.current = null;
      const events = frameQueue.current;
      frameQueue.current = [];
      startTransition(() => dispatch({ type: 'events', events }));
    });
  });

  // A price set in Settings reaches the calls that were made without one: the open thread's costs are read again.
  const { settings } = useSettings();
  const prices = JSON.stringify(settings?.prices ?? {});
  const pricesRead = useRef(prices);
  useEffect(() => {
    if (pricesRead.current === prices) return;
    pricesRead.current = prices;
    const id = current.current;
    if (id === null) return;
    // A failure: the thread may have been deleted meanwhile; its costs are read again when it opens.
    api.call('threads.get', { threadId: id, refresh: true }).then((view) => {
      if (current.current === id) dispatch({ type: 'costs', usage: view.usage, lastRun: view.lastRun });
    }, () => undefined);
  }, [api, current, dispatch, prices]);

  const syncRunning = useCallback((running: boolean) => {
    if (sending.current === 0 && buffer.current === null) dispatch({ type: 'set_running', running });
  }, [dispatch, sending]);

  const pages = useThreadPages(thread, approvals, buffer);
  return { loading, syncRunning, ...pages };
}

/** The thread beyond its loaded page: earlier items (not while the page loads), a call in full, an attachment's bytes. */
function useThreadPages({ state, dispatch, current }: OpenThread, approvals: readonly PendingApproval[], loadingPage: { readonly current: unknown }) {
  const api = useApi();
  const { push } = useToasts();
  const latest = useRef({ page: state.page, approvals });
  latest.current = { page: state.page, approvals };
  const [loadingEarlier, setLoadingEarlier] = useState(false);
  const earlierInFlight = useRef(false);
  const loadEarlier = useCallback(async () => {
    const id = current.current;
    const cursor = latest.current.page.cursor;
    // Not before the recent part has loaded: its page says where the earlier items end.
    if (id === null || cursor === 0 || earlierInFlight.current || loadingPage.current !== null) return;
    earlierInFlight.current = true;
    setLoadingEarlier(true);
    try {
      const earlier = await api.call('threads.earlier', { threadId: id, cursor });
      // The reducer drops it if the thread was loaded again meanwhile (its cursor moved).
      startTransition(() => dispatch({ type: 'earlier', threadId: id, cursor, items: earlier.items, before: earlier.cursor, approvals: latest.current.approvals }));
    } catch (err) {
      if (current.current === id) push(`Could not load earlier messages: ${errorMessage(err)}`);
    } finally {
      earlierInFlight.current = false;
      // Until the page is on screen: scrolling at the top asks for no page meanwhile.
      startTransition(() => setLoadingEarlier(false));
    }
  }, [api, push, current, dispatch, loadingPage]);

  const openId = useCallback(() => {
    if (current.current === null) throw new Error('no thread is open');
    return current.current;
  }, [current]);
  const fullToolCall = useCallback(async (index: number, toolCallId: string, parentToolCallId?: string) => {
    return api.call('threads.toolCall', { threadId: openId(), index, toolCallId, ...(parentToolCallId !== undefined ? { parentToolCallId } : {}) });
  }, [api, openId]);
  const attachment = useCallback(async (index: number, name: string) => api.call('threads.attachment', { threadId: openId(), index, name }), [api, openId]);

  return { loadEarlier, loadingEarlier, fullToolCall, attachment };
}
