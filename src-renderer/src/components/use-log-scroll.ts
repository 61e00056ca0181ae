// The conversation log's scrolling: it sticks to the bottom while new output arrives unless the
// person scrolled up (then it is `behind`); sending scrolls to the sent message; an earlier page
// keeps what was on screen where it was; the rows near the view move with it (RowWindow).

import { useLayoutEffect, useMemo, useRef, useState, type RefObject } from 'react';
import type { PendingApproval } from '../../../src-main/app/contract';
import type { ThreadDisplayState } from '../lib/thread-reducer';
import type { RowWindow } from './row-window';

const STICK_DISTANCE = 80;
/** Scrolled this close to the top, the earlier page loads. */
const EARLIER_DISTANCE = 400;

interface LogScroll {
  /** The person scrolled up, away from the latest output. */
  behind: boolean;
  onScroll(): void;
  /** Asks for the page before the loaded items (when state.page.cursor > 0). */
  loadEarlier(): void;
  /** To the latest output, sticking there again. */
  jump(): void;
}

const distanceToBottom = (el: HTMLElement): number => el.scrollHeight - el.scrollTop - el.clientHeight;

type Shown = { state: ThreadDisplayState; approvals: readonly PendingApproval[]; loadingEarlier: boolean; onLoadEarlier(): Promise<void>; rowWindow: RowWindow };

export function useLogScroll(ref: RefObject<HTMLDivElement | null>, { state, approvals, loadingEarlier, onLoadEarlier, rowWindow }: Shown): LogScroll {
  const stick = useRef(true);
  /** The scroll position as a distance from the bottom, after the last render or scroll. */
  const fromBottom = useRef(0);
  /** Where we last scrolled to by ourselves: a scroll above it since then was the person's. */
  const autoTop = useRef<number | null>(null);
  /** The first item in view when earlier items were asked for, and how far below the log's top it was: it stays there when they come. */
  const anchor = useRef<{ el: Element; offset: number } | null>(null);
  const [behind, setBehind] = useState(false);
  const toBottom = (el: HTMLElement): void => {
    stick.current = true;
    el.scrollTop = el.scrollHeight;
    autoTop.current = el.scrollTop;
    setBehind(false);
  };

  // Sending jumps to the sent message, wherever the person had scrolled; so does one queued
  // during a run (the queue is at the end). (The latest user message, not their count:
  // earlier pages add user messages above.)
  const lastUser = useMemo(() => state.items.findLast((i) => i.kind === 'user')?.key, [state.items]);
  const lastUserSeen = useRef(lastUser);
  const lastQueued = state.queued.at(-1)?.id;
  const lastQueuedSeen = useRef(lastQueued);
  const pageSeen = useRef(state.page.cursor);
  useLayoutEffect(() => {
    const el = ref.current;
    const earlier = state.page.cursor < pageSeen.current;
    const queued = lastQueued !== undefined && lastQueued !== lastQueuedSeen.current;
    const sent = !earlier && ((lastUser !== undefined && lastUser !== lastUserSeen.current) || queued);
    lastUserSeen.current = lastUser;
    lastQueuedSeen.current = lastQueued;
    pageSeen.current = state.page.cursor;
    if (!el) return;
    // Earlier items arrived above: what the person was reading stays where it was on screen.
    if (earlier && !stick.current) {
      const kept = anchor.current;
      if (kept?.el.isConnected) el.scrollTop += kept.el.getBoundingClientRect().top - el.getBoundingClientRect().top - kept.offset;
      else el.scrollTop = el.scrollHeight - el.clientHeight - fromBottom.current;
      anchor.current = null;
    }
    // The person may have scrolled up a moment ago, before its scroll event came.
    if (stick.current && autoTop.current !== null && el.scrollTop < autoTop.current - 4 && distanceToBottom(el) >= STICK_DISTANCE) stick.current = false;
    if (sent || stick.current) toBottom(el);
    else setBehind(true);
    fromBottom.current = distanceToBottom(el);
    rowWindow.update(el);
  }, [rowWindow, state.items, state.todos, state.queued, approvals, lastUser, lastQueued]);

  useLayoutEffect(() => {
    stick.current = true;
    autoTop.current = null;
    lastUserSeen.current = undefined;
    setBehind(false);
  }, [state.threadId]);

  const loadEarlier = (): void => {
    const el = ref.current;
    if (!el) return;
    // Anchored to an item, not to the distance from the bottom: what is below may still change height meanwhile.
    const top = el.getBoundingClientRect().top;
    const first = [...el.children].find((c) => !c.matches('.earlier-row, .conversation-spacer') && c.getBoundingClientRect().bottom > top);
    anchor.current = first ? { el: first, offset: first.getBoundingClientRect().top - top } : null;
    void onLoadEarlier();
  };

  return {
    behind,
    onScroll: () => {
      const el = ref.current;
      if (!el) return;
      rowWindow.update(el);
      stick.current = distanceToBottom(el) < STICK_DISTANCE;
      fromBottom.current = distanceToBottom(el);
      if (stick.current) setBehind(false);
      if (el.scrollTop < EARLIER_DISTANCE && state.page.cursor > 0 && !loadingEarlier && !stick.current) loadEarlier();
    },
    loadEarlier,
    jump: () => {
      if (ref.current) toBottom(ref.current);
    },
  };
}
