// The conversation log's scrolling: it sticks to the bottom while new output arrives unless the
// person scrolled up (then it is `behind`); sending scrolls to the sent message; an earlier page
// keeps what was on screen where it was; rows far from the view leave the page's layout.

import { useLayoutEffect, useMemo, useRef, useState, type RefObject } from 'react';
import type { PendingApproval } from '../../../src-main/app/contract';
import type { ThreadDisplayState } from '../lib/thread-reducer';
import { rowsBetween } from '../lib/row-window';

const STICK_DISTANCE = 80;
/** Scrolled this close to the top, the earlier page loads. */
const EARLIER_DISTANCE = 400;
/** With more rows than this, those further than NEAR from the view are taken out of the page. */
const SKIP_FROM = 300;
const NEAR = 1500;
/** A row's height when last laid out. */
const heights = new WeakMap<Element, number>();

/**
 * Takes the log's rows far from the view out of the page's layout (`data-far`: display: none),
 * each row shown holding the place of those hidden before it in its margin: a long thread's
 * frames then cost about what its screen does (content-visibility still laid out, painted and
 * hit-tested every row, and `auto` observed each). A row stays mounted, with its state; the one
 * holding the focus and those asking for an approval (which may take it) stay shown. Rows are
 * spaced by the log's gap alone: their vertical margins are set here.
 */
function hideFarRows(log: HTMLElement): void {
  const rows = [...log.children].filter((c): c is HTMLElement => c instanceof HTMLElement && c.matches('.msg, .tool-card, .read-group, .notice'));
  const far = rows.map((row) => row.hasAttribute('data-far'));
  if (rows.length <= SKIP_FROM && !far.includes(true)) return;
  const gap = parseFloat(getComputedStyle(log).rowGap) || 0;
  // Measures first, so the page lays out once. Where each row is, as if every row were shown.
  const size = rows.map((row, i) => {
    if (!far[i]) heights.set(row, row.getBoundingClientRect().height);
    return heights.get(row) ?? 0;
  });
  const shown = far.indexOf(false);
  const tops: number[] = [];
  let y = shown < 0 ? 0 : rows[shown]!.getBoundingClientRect().top - size.slice(0, shown).reduce((sum, h) => sum + h + gap, 0);
  for (const h of size) {
    tops.push(y);
    y += h + gap;
  }
  const view = log.getBoundingClientRect();
  let near = rows.length > SKIP_FROM ? rowsBetween(rows.length, (i) => ({ top: tops[i]!, bottom: tops[i]! + size[i]! }), view.top - NEAR, view.bottom + NEAR) : { first: 0, end: rows.length };
  if (near.first === near.end) near = { first: Math.min(near.first, rows.length - 1), end: Math.min(near.first, rows.length - 1) + 1 };
  const kept = new Set([document.activeElement, ...log.getElementsByClassName('approval-card')].map((el) => rows.find((row) => row.contains(el))));
  const hide = rows.map((row, i) => (i < near.first || i >= near.end) && !kept.has(row));
  const last = hide.lastIndexOf(false);
  let end = tops[0] ?? 0;
  rows.forEach((row, i) => {
    row.toggleAttribute('data-far', hide[i]);
    const above = hide[i] ? 0 : tops[i]! - end;
    const below = i === last ? y - (tops[i + 1] ?? y) : 0;
    if (!hide[i]) end = tops[i + 1] ?? y;
    if (row.style.marginTop !== (above ? `${above}px` : '')) row.style.marginTop = above ? `${above}px` : '';
    if (row.style.marginBottom !== (below ? `${below}px` : '')) row.style.marginBottom = below ? `${below}px` : '';
  });
}

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

type Shown = { state: ThreadDisplayState; approvals: readonly PendingApproval[]; loadingEarlier: boolean; onLoadEarlier(): Promise<void> };

export function useLogScroll(ref: RefObject<HTMLDivElement | null>, { state, approvals, loadingEarlier, onLoadEarlier }: Shown): LogScroll {
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
      if (kept?.el.isConnected && !kept.el.hasAttribute('data-far')) el.scrollTop += kept.el.getBoundingClientRect().top - el.getBoundingClientRect().top - kept.offset;
      else el.scrollTop = el.scrollHeight - el.clientHeight - fromBottom.current;
      anchor.current = null;
    }
    // The person may have scrolled up a moment ago, before its scroll event came.
    if (stick.current && autoTop.current !== null && el.scrollTop < autoTop.current - 4 && distanceToBottom(el) >= STICK_DISTANCE) stick.current = false;
    if (sent || stick.current) toBottom(el);
    else setBehind(true);
    fromBottom.current = distanceToBottom(el);
    hideFarRows(el);
  }, [state.items, state.todos, state.queued, approvals, lastUser, lastQueued]);

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
    const first = [...el.children].find((c) => !c.classList.contains('earlier-row') && !c.hasAttribute('data-far') && c.getBoundingClientRect().bottom > top);
    anchor.current = first ? { el: first, offset: first.getBoundingClientRect().top - top } : null;
    void onLoadEarlier();
  };

  return {
    behind,
    onScroll: () => {
      const el = ref.current;
      if (!el) return;
      hideFarRows(el);
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
