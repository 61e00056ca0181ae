// The offer of approval modes on a folder where none was chosen (`ask` applies until the
// person picks one): a highlighted button next to the Mode control opens the choices with
// what each means. It opens by itself once per folder, taking the keyboard only when the
// person is not typing a draft; Esc dismisses it and gives the keyboard back (to what had
// it, else the message box). Once a mode is chosen or the offer dismissed, the button goes
// away for that folder (the Mode control stays). Nothing here is modal, and the choices are
// drawn over the window (fixed to the button), never cut off by the header.

import { useCallback, useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import type { ApprovalModeDto } from '../../../src-main/app/contract';
import { focusMessageBox, keyboardIsFree, stillFocusable } from '../lib/focus';
import { MODE_LABELS, type ModeApi } from '../state/use-mode';

const MODES: ApprovalModeDto[] = ['ask', 'edit', 'auto', 'plan'];

/** Where the choices are drawn: under the button, inside the window. */
interface Place {
  top: number;
  right: number;
  width: number;
}

function placeUnder(anchor: HTMLElement): Place {
  const rect = anchor.getBoundingClientRect();
  const width = Math.min(560, window.innerWidth - 16);
  const right = Math.min(Math.max(8, window.innerWidth - rect.right), window.innerWidth - width - 8);
  return { top: Math.round(rect.bottom + 6), right: Math.max(8, Math.round(right)), width };
}

export function ModeChooser({ mode }: { mode: ModeApi }): React.JSX.Element | null {
  const { state, setMode, offer } = mode;
  const [open, setOpen] = useState(false);
  const [place, setPlace] = useState<Place | null>(null);
  const headingId = useId();
  const popoverId = useId();
  const anchor = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const popover = useRef<HTMLDivElement>(null);
  /** What had the keyboard when the choices opened (the button, or what the person was in). */
  const returnTo = useRef<Element | null>(null);
  /** Move the keyboard into the choices once they are drawn. */
  const focusOnOpen = useRef(false);
  const autoOpened = useRef(false);

  const offered = state !== null && !state.chosen && !state.offerDismissed;

  // Once per folder, the choices open by themselves.
  useEffect(() => {
    if (!offered || state.offerShown || autoOpened.current) return;
    autoOpened.current = true;
    returnTo.current = document.activeElement;
    focusOnOpen.current = keyboardIsFree();
    setOpen(true);
    offer('shown');
  }, [offered, state, offer]);

  const giveBackFocus = useCallback(() => {
    const target = stillFocusable(returnTo.current);
    returnTo.current = null;
    if (target && target !== document.body) target.focus();
    else focusMessageBox();
  }, []);

  const dismiss = useCallback(() => {
    const hadFocus = popover.current?.contains(document.activeElement) === true || document.activeElement === button.current;
    // The button goes away with the offer: what it opened gives the keyboard to the message box.
    if (returnTo.current === button.current) returnTo.current = null;
    setOpen(false);
    offer('dismissed');
    if (hadFocus || document.activeElement === document.body) giveBackFocus();
  }, [offer, giveBackFocus]);

  const choose = (m: ApprovalModeDto): void => {
    const hadFocus = popover.current?.contains(document.activeElement) === true;
    if (returnTo.current === button.current) returnTo.current = null;
    setOpen(false);
    void setMode(m);
    if (hadFocus) giveBackFocus();
  };

  // Drawn fixed under the button (the header clips what overflows it), kept there on resize.
  useLayoutEffect(() => {
    if (!open) return undefined;
    const update = (): void => {
      if (anchor.current) setPlace(placeUnder(anchor.current));
    };
    update();
    window.addEventListener('resize', update);
    // The window's own area moves when notices come or go above it (Toasts.tsx).
    const moved = new ResizeObserver(update);
    const root = document.getElementById('root');
    if (root) moved.observe(root);
    return () => {
      window.removeEventListener('resize', update);
      moved.disconnect();
    };
  }, [open]);

  useEffect(() => {
    if (!open || place === null || !focusOnOpen.current) return;
    focusOnOpen.current = false;
    popover.current?.querySelector<HTMLButtonElement>('button.mode-choice:not(:disabled)')?.focus();
  }, [open, place]);

  // Esc dismisses (unless something else used it, e.g. Stop); a click elsewhere only closes.
  useEffect(() => {
    if (!open) return undefined;
    const onKey = (e: KeyboardEvent): void => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      e.preventDefault();
      dismiss();
    };
    const onPointer = (e: PointerEvent): void => {
      if (anchor.current?.contains(e.target as Node) || popover.current?.contains(e.target as Node)) return;
      setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('pointerdown', onPointer);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('pointerdown', onPointer);
    };
  }, [open, dismiss]);

  if (!offered) return null;
  return (
    <div className="mode-chooser-anchor" ref={anchor}>
      <button
        ref={button}
        type="button"
        className="btn btn-small mode-chooser-button"
        aria-expanded={open}
        aria-controls={open ? popoverId : undefined}
        aria-label="Show mode choices for this new folder"
        title="Choose how much the agent may do on its own in this folder"
        onClick={() => {
          if (open) {
            setOpen(false);
            return;
          }
          returnTo.current = button.current;
          focusOnOpen.current = false;
          setOpen(true);
        }}
      >
        Mode choices
      </button>
      {open && place !== null ? (
        <div
          ref={popover}
          id={popoverId}
          className="mode-chooser"
          data-keeps-focus=""
          role="group"
          aria-labelledby={headingId}
          style={{ top: place.top, right: place.right, width: place.width }}
        >
          <div className="notice-row">
            <strong id={headingId}>How much may the agent do on its own in this folder?</strong>
          </div>
          <span className="muted">Ask applies until you choose; you can change it any time with Mode in the header. Esc closes this.</span>
          <div className="mode-choices">
            {MODES.map((m) => {
              const unavailable = m === 'auto' && !state.sandbox.available;
              const current = m === state.mode;
              return (
                <button
                  key={m}
                  type="button"
                  className={`mode-choice${unavailable ? ' unavailable' : ''}${current ? ' current' : ''}`}
                  aria-label={m}
                  aria-describedby={`${popoverId}-${m}`}
                  disabled={unavailable}
                  onClick={() => choose(m)}
                >
                  <span className="mode-choice-title">
                    {m}
                    {current ? <span className="muted"> (now)</span> : null}
                  </span>
                  <span className="mode-choice-detail" id={`${popoverId}-${m}`}>
                    {unavailable ? `Needs a sandbox (${state.sandbox.reason ?? 'none here'}).` : MODE_LABELS[m].detail}
                  </span>
                </button>
              );
            })}
          </div>
          <div className="dialog-actions">
            <button type="button" className="btn btn-small btn-quiet" onClick={dismiss} title="Keep ask and stop offering this for this folder">
              Keep ask, don’t offer again
            </button>
          </div>
        </div>
      ) : null}
    </div>
  );
}
