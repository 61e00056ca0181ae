// The offer of approval modes on a folder where none was chosen (`ask` applies until the
// person picks one): a highlighted button next to the Mode control shows the choices. They
// are a compact card (a line of choices, a line saying what the one pointed at or focused
// does) at the top of the conversation column, in the page's flow (the slot
// `MODE_OFFER_SLOT`), so they cover no control at any size.
//
// It opens by itself once per project (a worktree or sandbox folder of a project has the
// project's answer, mode-service.ts), and closes again when the person opens another thread;
// not while another first step is up (no model yet:
// `Open settings` comes first), and takes the keyboard only when the person is not typing a
// draft. Esc closes it, as its text says, and gives the keyboard back (to what had it, else
// its button); the button stays, so it can be opened again. A click elsewhere leaves it
// open: closing it then would pull what is below it up under the pointer between the press
// and the release, and the click would land on something else. Choosing a mode, or `Keep
// ask, don’t offer again`, answers it: then the button goes away for that folder (the Mode
// control stays).

import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import type { ApprovalModeDto } from '../../../src-main/app/contract';
import { focusMessageBox, keyboardIsFree, stillFocusable } from '../lib/focus';
import { MODE_LABELS, type ModeApi } from '../state/use-mode';
import { IconButton } from './Icon';

const MODES: ApprovalModeDto[] = ['ask', 'edit', 'auto', 'plan'];

/** The id of the element, at the top of the conversation column, where the choices are drawn. */
export const MODE_OFFER_SLOT = 'mode-offer-slot';

interface ModeChooserProps {
  mode: ModeApi;
  /** Another first step is up (e.g. no model yet): the offer waits behind its button. */
  waiting: boolean;
  /** The open thread: choices that opened by themselves close when the person opens another thread. */
  threadId?: string | null;
}

export function ModeChooser({ mode, waiting, threadId = null }: ModeChooserProps): React.JSX.Element | null {
  const { state, setMode, offer } = mode;
  const [open, setOpen] = useState(false);
  const headingId = useId();
  const panelId = useId();
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  /** What had the keyboard when the choices opened (the button, or what the person was in). */
  const returnTo = useRef<Element | null>(null);
  /** Move the keyboard into the choices once they are drawn. */
  const focusOnOpen = useRef(false);
  const autoOpened = useRef(false);
  /** The choice under the pointer or with the keyboard: the detail line says what it does. */
  const [pointed, setPointed] = useState<ApprovalModeDto | null>(null);

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

  /** The keyboard goes back to what had it; else to the button (while it stays), else the message box. */
  const giveBackFocus = useCallback((buttonStays: boolean) => {
    const target = stillFocusable(returnTo.current) ?? (buttonStays ? stillFocusable(button.current) : null);
    returnTo.current = null;
    if (target && target !== document.body) target.focus();
    else focusMessageBox();
  }, []);

  const hasFocus = (): boolean => panel.current?.contains(document.activeElement) === true;

  /** Closes the choices; the offer stays (its button opens them again). */
  const close = useCallback(() => {
    const hadFocus = panel.current?.contains(document.activeElement) === true;
    setOpen(false);
    if (hadFocus || document.activeElement === document.body) giveBackFocus(true);
  }, [giveBackFocus]);

  /** The offer is answered: the button goes away with it, so the keyboard cannot go back to it. */
  const answer = (then: () => void): void => {
    const hadFocus = hasFocus();
    if (returnTo.current === button.current) returnTo.current = null;
    setOpen(false);
    then();
    if (hadFocus) giveBackFocus(false);
  };

  useEffect(() => {
    if (!open || !focusOnOpen.current) return;
    focusOnOpen.current = false;
    panel.current?.querySelector<HTMLButtonElement>('button.mode-choice:not(:disabled)')?.focus();
  }, [open]);

  // Opened by themselves, the choices do not follow the person from thread to thread all day:
  // opening another thread closes them (the button stays, and they are not opened by themselves again).
  const threadSeen = useRef(threadId);
  useEffect(() => {
    const before = threadSeen.current;
    threadSeen.current = threadId;
    // From one thread to another (not the first thread of the window arriving).
    if (before === threadId || before === null) return;
    if (open && autoOpened.current) close();
  }, [threadId, open, close]);

  // Esc closes (unless something else used it, e.g. Stop).
  useEffect(() => {
    if (!open) return undefined;
    const onKey = (e: KeyboardEvent): void => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      e.preventDefault();
      close();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open, close]);

  if (!offered) return null;
  const slot = open ? document.getElementById(MODE_OFFER_SLOT) : null;
  const detailOf = (m: ApprovalModeDto): string => (m === 'auto' && !state.sandbox.available ? `Needs a sandbox (${state.sandbox.reason ?? 'none here'}).` : MODE_LABELS[m].detail);
  const described = pointed ?? state.mode;
  const choices = open ? (
    <div ref={panel} id={panelId} className="mode-chooser" data-keeps-focus="" role="group" aria-labelledby={headingId} aria-describedby={`${panelId}-how`}>
      <strong id={headingId} className="mode-chooser-heading">
        How much may the agent do on its own here?
      </strong>
      <span className="visually-hidden" id={`${panelId}-how`}>
        Ask applies until you choose; you can change it any time with Mode in the header. Esc closes this.
      </span>
      <span className="mode-choices" onPointerLeave={() => setPointed(null)}>
        {MODES.map((m) => {
          const current = m === state.mode;
          return (
            // The button's name is its visible text (the mode); what it means is its description.
            <button
              key={m}
              type="button"
              className={`mode-choice${current ? ' current' : ''}`}
              aria-describedby={`${panelId}-${m}`}
              title={detailOf(m)}
              disabled={m === 'auto' && !state.sandbox.available}
              onPointerEnter={() => setPointed(m)}
              onFocus={() => setPointed(m)}
              onClick={() => answer(() => void setMode(m))}
            >
              {m}
            </button>
          );
        })}
      </span>
      <span className="visually-hidden">
        {MODES.map((m) => (
          <span key={m} id={`${panelId}-${m}`}>
            {m === state.mode ? 'Now. ' : ''}
            {detailOf(m)}
          </span>
        ))}
      </span>
      <span className="mode-chooser-actions">
        <button type="button" className="btn btn-small btn-quiet" onClick={() => answer(() => offer('dismissed'))} title="Keep ask and stop offering this for this folder">
          Keep ask, don’t offer again
        </button>
        <IconButton icon="x" onClick={close} aria-label="Close mode choices" title="Close (Esc); the Mode choices button opens this again" />
      </span>
      {/* One line whatever it says (nothing moves as the pointer goes over the choices); the whole of it is its title. */}
      <span className="mode-chooser-detail muted" aria-hidden="true" title={detailOf(described)}>
        <strong>
          {described}
          {described === state.mode ? ' (now)' : ''}:
        </strong>{' '}
        {detailOf(described)}
      </span>
    </div>
  ) : null;
  return (
    <div className="mode-chooser-anchor">
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
