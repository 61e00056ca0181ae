// A list that is one Tab stop (a roving tabindex): of the items matching `selector` inside
// the container, only one takes Tab, the one the keyboard was last on (else the current or
// selected one, else the first); Up/Down (Left/Right for a row of tabs), Home/End move
// between them.

import { useCallback, useLayoutEffect, useRef, type RefObject } from 'react';

export function useRovingFocus(container: RefObject<HTMLElement | null>, selector: string, orientation: 'vertical' | 'horizontal' = 'vertical'): (e: React.KeyboardEvent) => void {
  const last = useRef<HTMLElement | null>(null);
  /** Whether the keyboard is on `last` (it left the list: it is not to be brought back). */
  const lastHadFocus = useRef(false);

  // After every render: the items may have changed (added, removed, re-ordered, filtered).
  useLayoutEffect(() => {
    const items = [...(container.current?.querySelectorAll<HTMLElement>(selector) ?? [])];
    // The item the keyboard was on was drawn anew (moved to another group, say) while it had
    // the keyboard: the keyboard stays on it (the item of the same `data-roving-key`).
    const gone = last.current;
    if (gone !== null && !gone.isConnected) {
      const key = gone.dataset.rovingKey;
      const again = key === undefined ? undefined : items.find((el) => el.dataset.rovingKey === key);
      last.current = again ?? null;
      const onNothing = document.activeElement === null || document.activeElement === document.body;
      if (again !== undefined && onNothing && lastHadFocus.current) again.focus();
    }
    const stop = items.find((el) => el === last.current) ?? items.find((el) => el.getAttribute('aria-current') === 'true' || el.getAttribute('aria-selected') === 'true') ?? items[0];
    for (const item of items) item.tabIndex = item === stop ? 0 : -1;
  });

  useLayoutEffect(() => {
    const el = container.current;
    if (!el) return undefined;
    const onFocus = (e: FocusEvent): void => {
      const item = e.target instanceof HTMLElement ? e.target.closest<HTMLElement>(selector) : null;
      if (!item || !el.contains(item)) return;
      last.current = item;
      lastHadFocus.current = true;
      for (const other of el.querySelectorAll<HTMLElement>(selector)) other.tabIndex = other === item ? 0 : -1;
    };
    // Leaving for another control (not the item being taken out of the page, which blurs to nothing).
    const onFocusOut = (e: FocusEvent): void => {
      if (e.relatedTarget !== null) lastHadFocus.current = false;
    };
    el.addEventListener('focusin', onFocus);
    el.addEventListener('focusout', onFocusOut);
    return () => {
      el.removeEventListener('focusin', onFocus);
      el.removeEventListener('focusout', onFocusOut);
    };
  }, [container, selector]);

  return useCallback(
    (e: React.KeyboardEvent) => {
      if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
      const items = [...(container.current?.querySelectorAll<HTMLElement>(selector) ?? [])];
      const here = items.findIndex((item) => item === document.activeElement);
      if (here < 0) return;
      const [back, forth] = orientation === 'vertical' ? ['ArrowUp', 'ArrowDown'] : ['ArrowLeft', 'ArrowRight'];
      const next = { [forth]: Math.min(items.length - 1, here + 1), [back]: Math.max(0, here - 1), Home: 0, End: items.length - 1 }[e.key];
      if (next === undefined) return;
      e.preventDefault();
      items[next]?.focus();
    },
    [container, selector, orientation],
  );
}
