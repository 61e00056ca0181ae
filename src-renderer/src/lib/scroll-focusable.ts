// A region that scrolls must be reachable by keyboard (WCAG 2.1.1; axe's
// scrollable-region-focusable): when it overflows and holds nothing focusable, it becomes a
// Tab stop itself, so the arrow keys can scroll it; otherwise it stays out of the Tab order.

import { useEffect, type RefObject } from 'react';

const FOCUSABLE = 'a[href], button:not(:disabled), input:not(:disabled), select:not(:disabled), textarea:not(:disabled), [tabindex]:not([tabindex="-1"]), [contenteditable="true"]';

/** 0 when `element` scrolls and nothing inside it can take the keyboard, else -1. */
export function scrollRegionTabIndex(element: HTMLElement): 0 | -1 {
  // What holds a control is reachable through it; asked first, it spares a layout.
  if (element.querySelector(FOCUSABLE) !== null) return -1;
  return element.scrollHeight > element.clientHeight + 1 || element.scrollWidth > element.clientWidth + 1 ? 0 : -1;
}

/** Keeps `ref`'s tabIndex true to scrollRegionTabIndex as its size and content change (checked once a frame at most). */
export function useScrollFocusable(ref: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const element = ref.current;
    if (!element) return undefined;
    let frame = 0;
    const check = (): void => {
      frame = 0;
      const index = scrollRegionTabIndex(element);
      if (element.tabIndex !== index) element.tabIndex = index;
    };
    const schedule = (): void => {
      if (frame === 0) frame = requestAnimationFrame(check);
    };
    check();
    const resized = new ResizeObserver(schedule);
    resized.observe(element);
    const changed = new MutationObserver(schedule);
    changed.observe(element, { childList: true, subtree: true });
    return () => {
      if (frame !== 0) cancelAnimationFrame(frame);
      resized.disconnect();
      changed.disconnect();
    };
  }, [ref]);
}
