// F6 and Shift+F6 move the keyboard between the window's regions, as in VS Code: the header,
// Threads, Files, the chat, the Terminal, the file viewer, Memories, Changes (in the page's
// order, those shown). A region gets back what last had the keyboard in it, else its entry
// (`data-region-entry`, e.g. the message box), else its first control; a folded panel, its
// Expand button. Nothing moves while a dialog is open (the page behind it is inert).

import { useEffect } from 'react';

/** The attribute that marks a region's outermost element; its value is the region's name. */
export const REGION_ATTRIBUTE = 'data-region';

const TABBABLE = 'button:not(:disabled), [href], input:not(:disabled), select:not(:disabled), textarea:not(:disabled), [tabindex]:not([tabindex="-1"])';

function shown(element: Element): boolean {
  return element.getClientRects().length > 0 && !element.closest('[inert], [aria-hidden="true"], .drawer-hidden');
}

/** The regions the person can go to now, in the page's order. */
export function shownRegions(): HTMLElement[] {
  return [...document.querySelectorAll<HTMLElement>(`[${REGION_ATTRIBUTE}]`)].filter(shown);
}

/** Where the keyboard goes in `region`: what last had it there, its entry, its first control. */
function entryOf(region: HTMLElement, last: WeakMap<HTMLElement, HTMLElement>): HTMLElement | null {
  const remembered = last.get(region);
  if (remembered?.isConnected && region.contains(remembered) && shown(remembered) && !(remembered as HTMLButtonElement).disabled) return remembered;
  const entry = region.querySelector<HTMLElement>('[data-region-entry]');
  if (entry && shown(entry)) return entry;
  // The panel's own controls before its fold button (the only one a folded panel has).
  const controls = [...region.querySelectorAll<HTMLElement>(TABBABLE)].filter(shown);
  return controls.find((c) => !c.classList.contains('panel-toggle')) ?? controls[0] ?? null;
}

/** Moves the keyboard to the next (or previous) region; false if there is none to go to. */
export function moveToRegion(step: 1 | -1, last: WeakMap<HTMLElement, HTMLElement> = new WeakMap()): boolean {
  const regions = shownRegions();
  if (regions.length === 0) return false;
  const active = document.activeElement;
  const here = regions.findIndex((r) => r.contains(active));
  for (let i = 1; i <= regions.length; i++) {
    const region = regions[(((here < 0 ? (step === 1 ? -1 : 0) : here) + step * i) % regions.length + regions.length) % regions.length]!;
    const target = entryOf(region, last);
    if (target) {
      target.focus();
      return true;
    }
  }
  return false;
}

export function useRegionNavigation(): void {
  useEffect(() => {
    const last = new WeakMap<HTMLElement, HTMLElement>();
    const onFocus = (e: FocusEvent): void => {
      const target = e.target;
      if (!(target instanceof HTMLElement)) return;
      const region = target.closest<HTMLElement>(`[${REGION_ATTRIBUTE}]`);
      if (region) last.set(region, target);
    };
    // Caught on the way down: the terminal would otherwise send F6 to its program (VS Code keeps it too).
    const onKey = (e: KeyboardEvent): void => {
      if (e.key !== 'F6' || e.ctrlKey || e.altKey || e.metaKey) return;
      if (document.querySelector('[role="dialog"][aria-modal="true"], [role="alertdialog"][aria-modal="true"]')) return;
      if (!moveToRegion(e.shiftKey ? -1 : 1, last)) return;
      e.preventDefault();
      e.stopPropagation();
    };
    document.addEventListener('focusin', onFocus);
    document.addEventListener('keydown', onKey, true);
    return () => {
      document.removeEventListener('focusin', onFocus);
      document.removeEventListener('keydown', onKey, true);
    };
  }, []);
}
