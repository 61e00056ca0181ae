// Keyboard ways out of (and into) the terminal, which otherwise keeps every key for the
// shell: Ctrl+Shift+` moves focus between the terminal and the message box (opening the
// terminal if needed), and in the terminal Esc then Tab leaves it (Shift+Tab backwards)
// without the Tab reaching the shell.

import { useEffect, type RefObject } from 'react';

/** Told on the window when the person asks for the terminal by keyboard. */
export const SHELL_ASKED = 'deepdesk:shell-asked';

export const TERMINAL_SHORTCUT_HINT = 'Ctrl+Shift+` moves focus between the terminal and the message box; in the terminal, Esc then Tab leaves it';

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

function focusMessageBox(): void {
  document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]')?.focus();
}

function focusTerminal(panel: HTMLElement): boolean {
  const input = panel.querySelector<HTMLTextAreaElement>('.xterm-helper-textarea, textarea');
  if (!input || input.offsetParent === null) return false;
  input.focus();
  return document.activeElement === input;
}

/** The next (or previous) focusable element outside `panel`, in document order. */
function focusOutside(panel: HTMLElement, backwards: boolean): void {
  const all = [...document.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent !== null || el === document.activeElement);
  const inside = (el: HTMLElement): boolean => panel.contains(el) && !el.classList.contains('panel-toggle');
  const firstInside = all.findIndex(inside);
  const lastInside = all.length - 1 - [...all].reverse().findIndex(inside);
  const target = backwards ? all.slice(0, Math.max(0, firstInside)).reverse().find((el) => !inside(el)) : all.slice(lastInside + 1).find((el) => !inside(el));
  (target ?? all.find((el) => !inside(el)))?.focus();
}

export function useTerminalFocus(panelRef: RefObject<HTMLElement | null>, open: boolean, setOpen: (open?: boolean) => void): void {
  // Ctrl+Shift+`: toggle focus (anywhere in the window).
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (!(e.ctrlKey && e.shiftKey && (e.code === 'Backquote' || e.key === '`' || e.key === '~'))) return;
      const panel = panelRef.current;
      if (!panel) return;
      e.preventDefault();
      e.stopPropagation();
      if (panel.contains(document.activeElement)) {
        focusMessageBox();
        return;
      }
      if (!open) setOpen(true);
      // The person asked for the terminal: the shell's tab starts their shell (TerminalPanel).
      window.dispatchEvent(new Event(SHELL_ASKED));
      // The panel may only now be shown, and its shell's view only now made (it starts when the
      // terminal is first opened): try again each frame until it is there (for a second at most).
      if (!focusTerminal(panel)) {
        const from = document.activeElement;
        let frames = 60;
        const retry = (): void => {
          // Not if the person has gone somewhere else meanwhile.
          if (document.activeElement !== from) return;
          if (!focusTerminal(panel) && --frames > 0) requestAnimationFrame(retry);
        };
        requestAnimationFrame(retry);
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [panelRef, open, setOpen]);

  // Esc then Tab: leave the terminal. Listening in the capture phase on the panel runs
  // before xterm's own handler, so the Tab never reaches the shell.
  useEffect(() => {
    const panel = panelRef.current;
    if (!panel) return undefined;
    let escaped = false;
    const onKey = (e: KeyboardEvent): void => {
      const target = e.target as HTMLElement | null;
      if (!target?.closest('.xterm')) return;
      if (e.key === 'Escape') {
        escaped = true;
        return;
      }
      if (e.key === 'Tab' && escaped) {
        e.preventDefault();
        e.stopPropagation();
        escaped = false;
        focusOutside(panel, e.shiftKey);
        return;
      }
      if (!['Shift', 'Control', 'Alt', 'Meta'].includes(e.key)) escaped = false;
    };
    panel.addEventListener('keydown', onKey, true);
    return () => panel.removeEventListener('keydown', onKey, true);
  }, [panelRef]);

  // Collapsing the terminal while it has focus: focus must not vanish into a hidden node.
  useEffect(() => {
    const panel = panelRef.current;
    if (!open && panel && panel.contains(document.activeElement)) panel.querySelector<HTMLElement>('.panel-toggle')?.focus();
  }, [open, panelRef]);
}
