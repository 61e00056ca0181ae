// After a decision on an approval, the keyboard moves on: to the next waiting approval (the
// first in the conversation's order), else the message box. Only when it was in the decided
// card (or nowhere): a person working elsewhere keeps their place.

import { useCallback, useEffect, useRef, type RefObject } from 'react';
import type { ApprovalDecisionDto, PendingApproval } from '../../../src-main/app/contract';
import { focusMessageBox } from '../lib/focus';
import { keyboardWasRescued } from '../lib/focus-rescue';

const CARD = '[role="group"][aria-label="Approve tool call"]';

type Decide = (approval: PendingApproval, decision: ApprovalDecisionDto) => Promise<boolean>;

/** `decide`, moving the keyboard on once the decided approval has left `waiting`. */
export function useDecisionFocus(log: RefObject<HTMLElement | null>, decide: Decide, waiting: readonly PendingApproval[]): Decide {
  /** The card the decision was made in, while the keyboard is to move on from it. */
  const decidedIn = useRef<Element | null>(null);

  const decideAndMoveOn = useCallback<Decide>(
    async (approval, decision) => {
      const active = document.activeElement;
      const card = active?.closest(CARD) ?? null;
      if (card !== null || active === null || active === document.body) decidedIn.current = card ?? document.body;
      const ok = await decide(approval, decision);
      if (!ok) decidedIn.current = null;
      return ok;
    },
    [decide],
  );

  useEffect(() => {
    const from = decidedIn.current;
    if (from === null) return;
    const active = document.activeElement;
    const lost = active === null || active === document.body || !active.isConnected || keyboardWasRescued() || (active as HTMLButtonElement).disabled === true || from.contains(active);
    if (from !== document.body && from.isConnected && !lost) return;
    decidedIn.current = null;
    if (!lost) return;
    const next = [...(log.current?.querySelectorAll<HTMLElement>(CARD) ?? [])].find((c) => c !== from);
    const button = next?.querySelector<HTMLButtonElement>('.approval-actions button:not(:disabled)');
    if (button) button.focus();
    else focusMessageBox();
  }, [waiting, log]);

  return decideAndMoveOn;
}
