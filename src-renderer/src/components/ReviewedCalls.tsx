// The thread's reviewed calls (SPEC §23): every call the reviewer answered, allowed and denied,
// with its risk, category and rationale, in the order they came. Opened from the thread's
// header. A denied one can be allowed once by the person's explicit act: *Allow once…*, then a
// confirmation whose focused button is Cancel; once allowed it is never offered again, and once
// the agent made it again the row says so and how it ended. The call and the rationale are the
// model's text: plain text only.

import { useEffect, useMemo, useRef, useState } from 'react';
import { allowedOnceRun, reviewedCalls } from '../lib/review-words';
import type { ConvItem } from '../lib/thread-reducer';
import { toolStatus } from '../lib/tool-status';
import { toolTitleText } from '../lib/tool-title';
import { useApi } from '../state/use-api';
import { Modal } from './Modal';
import { VisibleText } from './VisibleText';

export function ReviewedCalls({ items, threadId }: { items: readonly ConvItem[]; threadId: string | null }): React.JSX.Element | null {
  const calls = useMemo(() => reviewedCalls(items), [items]);
  const [open, setOpen] = useState(false);
  // Allowed once here and not yet made again (kept while the window is open).
  const [allowed, setAllowed] = useState<ReadonlySet<string>>(new Set());
  if (calls.length === 0) return null;
  const denied = calls.filter((call) => call.review.decision === 'deny').length;
  const close = (): void => setOpen(false);
  return (
    <>
      <button type="button" className="btn btn-small reviewed-calls-button" aria-haspopup="dialog" onClick={() => setOpen(true)}>
        Reviewed calls · {calls.length}
        {denied > 0 ? ` (${denied} denied)` : ''}
      </button>
      {open ? (
        <Modal label="Reviewed calls" title="Reviewed calls" onEscape={close} className="reviewed-calls-dialog">
          <ul className="reviewed-calls">
            {calls.map(({ key, id, name, args, review }) => {
              const ran = review.decision === 'deny' ? allowedOnceRun(items, id) : undefined;
              return (
                <li key={key} className={`reviewed-call reviewed-${review.decision}`}>
                  <div className="reviewed-call-head">
                    <span className="mono reviewed-call-title">
                      <VisibleText text={toolTitleText(name, args)} />
                    </span>
                    <span className="badge reviewed-decision">{review.decision === 'allow' ? 'Allowed' : ran !== undefined ? `Denied, then allowed once by you · ${toolStatus(ran, false, false).label}` : 'Denied'}</span>
                    <span className="badge">{review.risk} risk</span>
                    <span className="badge">{review.category}</span>
                  </div>
                  <p className="reviewed-call-rationale">
                    <VisibleText text={review.rationale} />
                  </p>
                  {review.decision === 'deny' && ran === undefined && threadId !== null ? (
                    <AllowOnce threadId={threadId} callId={id} title={toolTitleText(name, args)} allowed={allowed.has(id)} onAllowed={() => setAllowed((was) => new Set(was).add(id))} />
                  ) : null}
                </li>
              );
            })}
          </ul>
          <div className="dialog-actions">
            <button type="button" className="btn" onClick={close}>
              Close
            </button>
          </div>
        </Modal>
      ) : null}
    </>
  );
}

/** *Allow once…* on a denied call: asks to confirm (Cancel takes the keyboard), then says it was allowed (`allowed`: it was, before). */
function AllowOnce({ threadId, callId, title, allowed, onAllowed }: { threadId: string; callId: string; title: string; allowed: boolean; onAllowed(): void }): React.JSX.Element {
  const api = useApi();
  const [step, setStep] = useState<'offered' | 'confirming' | 'allowed'>(allowed ? 'allowed' : 'offered');
  const focused = useRef<HTMLElement | null>(null);
  const moved = useRef(false);
  // The keyboard follows the step (never on first show): Cancel, back to the offer, or what was said.
  useEffect(() => {
    if (moved.current) focused.current?.focus();
    moved.current = true;
  }, [step]);
  const keep = (el: HTMLElement | null): void => {
    if (el !== null) focused.current = el;
  };
  const allow = async (): Promise<void> => {
    if ((await api.safe('threads.allowOnce', { threadId, callId })) === undefined) return;
    onAllowed();
    setStep('allowed');
  };

  if (step === 'allowed') {
    return (
      <p ref={keep} tabIndex={-1} role="status" className="ok-text small">
        Allowed once: it runs the next time the agent makes exactly this call. The agent is told.
      </p>
    );
  }
  if (step === 'offered') {
    return (
      <button ref={keep} type="button" className="btn btn-small" aria-label={`Allow once: ${title}`} onClick={() => setStep('confirming')}>
        Allow once…
      </button>
    );
  }
  return (
    <div role="group" aria-label="Allow this call once?" aria-describedby={`allow-once-${callId}`}>
      <p id={`allow-once-${callId}`} className="small">
        Allow this denied call once? It runs the next time the agent makes exactly this call, as if you approved it; every other call is reviewed as before.
      </p>
      <div className="field-inline">
        <button type="button" className="btn btn-small" onClick={() => void allow()}>
          Allow once
        </button>
        <button ref={keep} type="button" className="btn btn-small" onClick={() => setStep('offered')}>
          Cancel
        </button>
      </div>
    </div>
  );
}
