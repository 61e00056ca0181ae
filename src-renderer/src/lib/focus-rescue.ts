// The keyboard never ends on the page itself: when the control that had it goes away (a
// prompt answered, a banner whose step is done, a dialog whose opener is gone), it lands on
// a sensible control instead, the message box first. What moves the keyboard on purpose
// (an approval decided, a dialog closed, a panel folded) does so in the same turn; this
// looks only afterwards, and only when the keyboard is on nothing.

import { useEffect } from 'react';
import { messageBox } from './focus';

const CONTROL = 'button:not(:disabled), textarea:not(:disabled), input:not(:disabled), select:not(:disabled), a[href], [tabindex]:not([tabindex="-1"])';

/** Whether nothing has the keyboard (it is on the page itself). */
function keyboardOnNothing(): boolean {
  const active = document.activeElement;
  return active === null || active === document.body || active === document.documentElement;
}

/**
 * The control the keyboard falls back to: in an open dialog, its first control (else the
 * dialog); otherwise the message box, else the first control of the conversation column,
 * else the header's.
 */
export function fallbackControl(): HTMLElement | null {
  const dialog = [...document.querySelectorAll<HTMLElement>('[aria-modal="true"]')].at(-1);
  if (dialog) return [...dialog.querySelectorAll<HTMLElement>(CONTROL)].find((el) => el.getClientRects().length > 0) ?? dialog;
  const box = messageBox();
  if (box && !box.disabled && box.getClientRects().length > 0) return box;
  for (const area of ['main', 'header']) {
    const control = [...document.querySelectorAll<HTMLElement>(`${area} ${CONTROL}`)].find((el) => el.getClientRects().length > 0);
    if (control) return control;
  }
  return null;
}

/** The control the last rescue gave the keyboard to, while it still has it. */
let rescued: Element | null = null;

/**
 * Whether the keyboard is where a rescue put it, not where someone chose: code that moves the
 * keyboard on purpose, but a little later than the rescue (an effect after a render), treats it
 * as still on nothing.
 */
export function keyboardWasRescued(): boolean {
  return rescued !== null && rescued === document.activeElement;
}

/** Gives the keyboard to the fallback control; false when there is none. */
export function focusFallback(): boolean {
  const control = fallbackControl();
  control?.focus();
  rescued = control;
  return control !== null;
}

/** Watches for the control with the keyboard leaving the page, and puts the keyboard on a control then. */
export function useFocusRescue(): void {
  useEffect(() => {
    let last: Element | null = null;
    let pending: ReturnType<typeof setTimeout> | undefined;
    const onFocusIn = (event: FocusEvent): void => {
      last = event.target instanceof Element ? event.target : null;
      if (last !== rescued) rescued = null;
    };
    const observer = new MutationObserver(() => {
      if (pending !== undefined || last === null || last.isConnected || !keyboardOnNothing()) return;
      // After what runs in this turn (effects that move the keyboard on purpose), if still on nothing.
      pending = setTimeout(() => {
        pending = undefined;
        if (last !== null && !last.isConnected && keyboardOnNothing()) focusFallback();
      }, 0);
    });
    document.addEventListener('focusin', onFocusIn);
    observer.observe(document.body, { childList: true, subtree: true });
    return () => {
      document.removeEventListener('focusin', onFocusIn);
      observer.disconnect();
      clearTimeout(pending);
    };
  }, []);
}
