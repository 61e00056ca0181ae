// A modal dialog: rendered over the page, focus kept inside (Tab cycles), the page behind
// made inert, focus returned on close (to its opener, else a sensible control). Esc calls onEscape only when given.

import { useEffect, useRef, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { focusFallback } from '../lib/focus-rescue';

interface ModalProps {
  label: string;
  role?: 'dialog' | 'alertdialog';
  /** Called on Escape; when absent Escape does nothing. */
  onEscape?: () => void;
  className?: string;
  /** Shown as the dialog's visible heading. */
  title?: ReactNode;
  children: ReactNode;
}

/** Open modals, innermost last: only the top one handles keys. */
const stack: HTMLElement[] = [];

function updateBackground(): void {
  const root = document.getElementById('root');
  if (!root) return;
  if (stack.length > 0) {
    root.setAttribute('inert', '');
    root.setAttribute('aria-hidden', 'true');
  } else {
    root.removeAttribute('inert');
    root.removeAttribute('aria-hidden');
  }
}

const FOCUSABLE = 'a[href], button:not([disabled]), textarea:not([disabled]), input:not([disabled]), select:not([disabled]), [tabindex]:not([tabindex="-1"])';

export function Modal({ label, role = 'dialog', onEscape, className, title, children }: ModalProps): React.JSX.Element {
  const ref = useRef<HTMLDivElement>(null);
  const escape = useRef(onEscape);
  useEffect(() => {
    escape.current = onEscape;
  });

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return undefined;
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const entry = dialog;
    stack.push(entry);
    updateBackground();
    const first = dialog.querySelector<HTMLElement>('[data-autofocus]') ?? dialog.querySelector<HTMLElement>(FOCUSABLE) ?? dialog;
    first.focus();

    const onKey = (event: KeyboardEvent): void => {
      if (stack[stack.length - 1] !== entry) return;
      if (event.key === 'Escape') {
        // An open list inside the dialog (a combobox) closes first; the next Esc closes the dialog.
        const target = event.target instanceof Element ? event.target : null;
        if (target?.getAttribute('role') === 'combobox' && target.getAttribute('aria-expanded') === 'true') return;
        event.preventDefault();
        event.stopPropagation();
        escape.current?.();
        return;
      }
      if (event.key !== 'Tab') return;
      const items = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent !== null || el === document.activeElement);
      if (items.length === 0) {
        event.preventDefault();
        dialog.focus();
        return;
      }
      const firstItem = items[0]!;
      const lastItem = items[items.length - 1]!;
      const active = document.activeElement;
      if (event.shiftKey && (active === firstItem || !dialog.contains(active))) {
        event.preventDefault();
        lastItem.focus();
      } else if (!event.shiftKey && (active === lastItem || !dialog.contains(active))) {
        event.preventDefault();
        firstItem.focus();
      }
    };
    document.addEventListener('keydown', onKey, true);
    return () => {
      document.removeEventListener('keydown', onKey, true);
      const at = stack.indexOf(entry);
      if (at >= 0) stack.splice(at, 1);
      updateBackground();
      // Back to what opened it; when that is gone (or was nothing), to a sensible control, never the page.
      if (previous?.isConnected && previous !== document.body) previous.focus();
      else focusFallback();
    };
    // Mount-only: the dialog keeps its focus handling for its lifetime.
  }, []);

  return createPortal(
    <div className="modal-backdrop">
      <div
        ref={ref}
        className={`modal${className ? ` ${className}` : ''}`}
        role={role}
        aria-modal="true"
        aria-label={label}
        tabIndex={-1}
      >
        {title ? (
          <h2 className="modal-title">
            {title}
          </h2>
        ) : null}
        {children}
      </div>
    </div>,
    document.body,
  );
}

/** A form's submit handler: `action` runs in place of the browser's submit. */
export function submitted(action: () => unknown): (e: React.FormEvent) => void {
  return (e) => {
    e.preventDefault();
    void action();
  };
}

/** The actions row of a form's dialog: Cancel (not while it works), and its submit button, which says it cannot go yet while `blocked` (the keyboard stays on it). */
export function FormActions({ submit, blocked, working, onCancel }: { submit: string; blocked: boolean; working: boolean; onCancel(): void }): React.JSX.Element {
  return (
    <div className="dialog-actions">
      <button type="button" className="btn" onClick={onCancel} disabled={working}>
        Cancel
      </button>
      <button type="submit" className="btn btn-primary" aria-disabled={blocked} onClick={(e) => blocked && e.preventDefault()}>
        {submit}
      </button>
    </div>
  );
}

/** The actions row of a dialog that only shows something: its Close button. */
export function CloseActions({ onClose }: { onClose(): void }): React.JSX.Element {
  return (
    <div className="dialog-actions">
      <button type="button" className="btn" onClick={onClose}>
        Close
      </button>
    </div>
  );
}
