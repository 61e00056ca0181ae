// Where the keyboard is, for the parts of the window that may take it by themselves (an
// approval that arrives, the offer of modes on a new folder): they take it only when the
// person is not typing a draft, and give it back to the message box when they are done.

/** The message box, if the window shows one. */
export function messageBox(): HTMLTextAreaElement | null {
  return document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]');
}

/** Focuses the message box; false if there is none. */
export function focusMessageBox(): boolean {
  const box = messageBox();
  if (!box) return false;
  box.focus();
  return true;
}

/** A field the person types text into (a textarea, a text input, an editable element). */
export function isTextField(element: Element | null): element is HTMLElement {
  if (!(element instanceof HTMLElement)) return false;
  if (element instanceof HTMLTextAreaElement) return true;
  if (element instanceof HTMLInputElement) return !['button', 'checkbox', 'radio', 'submit', 'reset', 'range', 'color', 'file', 'image'].includes(element.type);
  return element.isContentEditable;
}

/** Whether the person has typed something into `element` that they have not sent or saved. */
export function holdsDraft(element: Element | null): boolean {
  if (!isTextField(element)) return false;
  if (element instanceof HTMLTextAreaElement || element instanceof HTMLInputElement) return element.value !== '';
  return (element.textContent ?? '') !== '';
}

/**
 * Whether something that just appeared may take the keyboard: nothing has it, or only the
 * empty message box has it (the person is not typing), or it is already inside `within`.
 */
export function keyboardIsFree(within: Element | null = null): boolean {
  const active = document.activeElement;
  if (active === null || active === document.body || active === document.documentElement) return true;
  if (within !== null && within.contains(active)) return true;
  // A button just disabled by what it did (Send, with the box emptied) holds nothing.
  if ((active as HTMLButtonElement).disabled === true) return true;
  return active === messageBox() && !holdsDraft(active);
}

/** `element` if it is still in the page and can take focus, else null. */
export function stillFocusable(element: Element | null): HTMLElement | null {
  if (!(element instanceof HTMLElement) || !element.isConnected) return null;
  if ((element as HTMLButtonElement).disabled === true) return null;
  return element.getClientRects().length > 0 ? element : null;
}

/** What the window last gave the keyboard to by itself (an approval that arrived). */
let takenByWindow: Element | null = null;

/** Gives `element` the keyboard as the window's own move, not the person's. */
export function takeKeyboard(element: HTMLElement): void {
  element.focus({ preventScroll: false });
  takenByWindow = element;
}

/** Whether the person put the keyboard on `element` (it is not where the window last put it by itself). */
export function personPutKeyboardOn(element: Element | null): boolean {
  return element !== null && element !== takenByWindow;
}
