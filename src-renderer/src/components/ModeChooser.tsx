// The offer of approval modes on a folder where none was chosen (`ask` applies until the
// person picks one): a highlighted button next to the Mode control shows the choices with
// what each means. The choices are a card at the top of the conversation column, in the
// page's flow (the slot `MODE_OFFER_SLOT`), so they cover no control at any size.
//
// It opens by itself once per folder, but not while another first step is up (no model yet:
// `Open settings` comes first), and takes the keyboard only when the person is not typing a
// draft. Esc closes it, as its text says, and gives the keyboard back (to what had it, else
// its button); the button stays, so it can be opened again. Choosing a mode, or `Keep ask,
// don’t offer again`, answers it: then the button goes away for that folder (the Mode
// control stays).

import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import type { ApprovalModeDto } from '../../../src-main/app/contract';
import { focusMessageBox, keyboardIsFree, stillFocusable } from '../lib/focus';
import { MODE_LABELS, type ModeApi } from '../state/use-mode';

const MODES: ApprovalModeDto[] = ['ask', 'edit', 'auto', 'plan'];

/** The id of the element, at the top of the conversation column, where the choices are drawn. */
export const MODE_OFFER_SLOT = 'mode-offer-slot';

interface ModeChooserProps {
  mode: ModeApi;
  /** Another first step is up (e.g. no model yet): the offer waits behind its button. */
  waiting: boolean;
}

export function ModeChooser({ mode, waiting }: ModeChooserProps): React.JSX.Element | null {
  const { state, setMode, offer } = mode;
  const [open, setOpen] = useState(false);
  const headingId = useId();
  const panelId = useId();
  const anchor = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  /** What had the keyboard when the choices opened (the button, or what the person was in). */
  const returnTo = useRef<Element | null>(null);
  /** Move the keyboard into the choices once they are drawn. */
  const focusOnOpen = useRef(false);
  const autoOpened = useRef(false);

  const offered = state !== null && !state.chosen && !state.offerDismissed;

  // Once per folder, the choices open by themselves (when nothing else comes first).
  useEffect(() => {
    if (!offered || waiting || state.offerShown || autoOpened.current) return;
    autoOpened.current = true;
    returnTo.current = document.activeElement;
    focusOnOpen.current = keyboardIsFree();
    setOpen(true);
    offer('shown');
  }, [offered, waiting, state, offer]);

  /** The keyboard goes back to what had it; else to the button (still there), else the message box. */
  const giveBackFocus = useCallback(() => {
    const target = stillFocusable(returnTo.current) ?? stillFocusable(button.current);
    returnTo.current = null;
    if (target && target !== document.body) target.focus();
    else focusMessageBox();
  }, []);

  const hasFocus = (): boolean => panel.current?.contains(document.activeElement) === true;

  /** Closes the choices; the offer stays (its button opens them again). */
  const close = useCallback(() => {
    const hadFocus = panel.current?.contains(document.activeElement) === true;
    setOpen(false);
    if (hadFocus || document.activeElement === document.body) giveBackFocus();
  }, [giveBackFocus]);

  /** The offer is answered: the button goes away with it, so the keyboard cannot go back to it. */
  const answer = (then: () => void): void => {
    const hadFocus = hasFocus();
    if (returnTo.current === button.current) returnTo.current = null;
    setOpen(false);
    then();
    if (hadFocus) {
      const target = stillFocusable(returnTo.current);
      returnTo.current = null;
      if (target && target !== document.body) target.focus();
      else focusMessageBox();
    }
  };

  useEffect(() => {
    if (!open || !focusOnOpen.current) return;
    focusOnOpen.current = false;
    panel.current?.querySelector<HTMLButtonElement>('button.mode-choice:not(:disabled)')?.focus();
  }, [open]);

  // Esc closes (unless something else used it, e.g. Stop); so does a click elsewhere.
  useEffect(() => {
    if (!open) return undefined;
    const onKey = (e: KeyboardEvent): void => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      e.preventDefault();
      close();
    };
    const onPointer = (e: PointerEvent): void => {
      if (anchor.current?.contains(e.target as Node) || panel.current?.contains(e.target as Node)) return;
      setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('pointerdown', onPointer);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('pointerdown', onPointer);
    };
  }, [open, close]);

  if (!offered) return null;
  const slot = open ? document.getElementById(MODE_OFFER_SLOT) : null;
  const choices = open ? (
    <div ref={panel} id={panelId} className="mode-chooser" data-keeps-focus="" role="group" aria-labelledby={headingId}>
      <div className="notice-row">
        <strong id={headingId}>How much may the agent do on its own in this folder?</strong>
      </div>
      <span className="muted">Ask applies until you choose; you can change it any time with Mode in the header. Esc closes this.</span>
      <div className="mode-choices">
        {MODES.map((m) => {
          const unavailable = m === 'auto' && !state.sandbox.available;
          const current = m === state.mode;
          return (
            // The button's name is its visible text (the mode); what it means is its description,
            // beside it in the card, which the button covers for a pointer (mode-choice::after).
            <div key={m} className={`mode-choice-card${unavailable ? ' unavailable' : ''}${current ? ' current' : ''}`}>
              <span className="mode-choice-title">
                <button type="button" className="mode-choice" aria-describedby={`${panelId}-${m}`} disabled={unavailable} onClick={() => answer(() => void setMode(m))}>
                  {m}
                </button>
                {current ? <span className="muted"> (now)</span> : null}
              </span>
              <span className="mode-choice-detail" id={`${panelId}-${m}`}>
                {unavailable ? `Needs a sandbox (${state.sandbox.reason ?? 'none here'}).` : MODE_LABELS[m].detail}
              </span>
            </div>
          );
        })}
      </div>
      <div className="dialog-actions">
        <button type="button" className="btn btn-small btn-quiet" onClick={() => answer(() => offer('dismissed'))} title="Keep ask and stop offering this for this folder">
          Keep ask, don’t offer again
        </button>
        <button type="button" className="btn btn-small" onClick={close} aria-label="Close mode choices" title="Close; the Mode choices button opens this again">
          Close
        </button>
      </div>
    </div>
  ) : null;
  return (
    <div className="mode-chooser-anchor" ref={anchor}>
      <button
        ref={button}
        type="button"
        className="btn btn-small mode-chooser-button"
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        aria-label="Show mode choices for this new folder"
        title="Choose how much the agent may do on its own in this folder"
        onClick={() => {
          if (open) {
            close();
            return;
          }
          returnTo.current = button.current;
          focusOnOpen.current = true;
          setOpen(true);
        }}
      >
        Mode choices
      </button>
      {choices && slot ? createPortal(choices, slot) : choices}
    </div>
  );
}
