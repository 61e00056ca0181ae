// The thread's reviewed calls (SPEC §23): every call the reviewer answered, allowed and denied,
// with its risk, category and rationale, in the order they came. Opened from the thread's
// header. A denied one can be allowed once by the person's explicit act: *Allow once…*, then a
// confirmation whose focused button is Cancel. The call and the rationale are the model's
// text: plain text only.

import { useEffect, useMemo, useRef, useState } from 'react';
import { reviewedCalls } from '../lib/review-words';
import type { ConvItem } from '../lib/thread-reducer';
import { toolTitleText } from '../lib/tool-title';
import { errorMessage } from '../state/toasts';
import { useApi } from '../state/use-api';
import { Modal } from './Modal';
import { VisibleText } from './VisibleText';

export function ReviewedCalls({ items, threadId }: { items: readonly ConvItem[]; threadId: string | null }): React.JSX.Element | null {
  const calls = useMemo(() => reviewedCalls(items), [items]);
  const [open, setOpen] = useState(false);
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
            {calls.map(({ key, id, name, args, review }) => (
              <li key={key} className={`reviewed-call reviewed-${review.decision}`}>
                <div className="reviewed-call-head">
                  <span className="mono reviewed-call-title">
                    <VisibleText text={toolTitleText(name, args)} />
                  </span>
                  <span className="badge reviewed-decision">{review.decision === 'allow' ? 'Allowed' : 'Denied'}</span>
                  <span className="badge">{review.risk} risk</span>
                  <span className="badge">{review.category}</span>
                </div>
                <p className="reviewed-call-rationale">
                  <VisibleText text={review.rationale} />
                </p>
                {review.decision === 'deny' && threadId !== null ? <AllowOnce threadId={threadId} callId={id} title={toolTitleText(name, args)} /> : null}
              </li>
            ))}
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

/** *Allow once…* on a denied call: asks to confirm (Cancel takes the keyboard), then says it was allowed. */
function AllowOnce({ threadId, callId, title }: { threadId: string; callId: string; title: string }): React.JSX.Element {
  const api = useApi();
  const [step, setStep] = useState<'offered' | 'confirming' | 'sending' | 'allowed' | { error: string }>('offered');
  const cancel = useRef<HTMLButtonElement>(null);
  const offer = useRef<HTMLButtonElement>(null);
  const said = useRef<HTMLParagraphElement>(null);
  // The keyboard goes where the step went: Cancel, back to the offer, or what was said.
  const moved = useRef(false);
  useEffect(() => {
    if (step === 'confirming') cancel.current?.focus();
    else if (step === 'offered' && moved.current) offer.current?.focus();
    else if (step === 'allowed' || typeof step === 'object') said.current?.focus();
    moved.current = true;
  }, [step]);

  const allow = async (): Promise<void> => {
    setStep('sending');
    try {
      await api.call('threads.allowOnce', { threadId, callId });
      setStep('allowed');
    } catch (err) {
      setStep({ error: errorMessage(err) });
    }
  };

  if (step === 'allowed' || typeof step === 'object') {
    return (
      <p ref={said} tabIndex={-1} role="status" className={step === 'allowed' ? 'ok-text small' : 'error-text small'}>
        {step === 'allowed' ? 'Allowed once: it runs the next time the agent makes exactly this call. The agent is told.' : <VisibleText text={step.error} />}
      </p>
    );
  }
  if (step === 'offered') {
    return (
      <button ref={offer} type="button" className="btn btn-small" aria-label={`Allow once: ${title}`} onClick={() => setStep('confirming')}>
        Allow once…
      </button>
    );
  }
  return (
    <div role="group" aria-label="Allow this call once?" aria-describedby={`allow-once-${callId}`} className="allow-once-confirm">
      <p id={`allow-once-${callId}`} className="small">
        Allow this denied call once? It runs the next time the agent makes exactly this call, as if you approved it; every other call is reviewed as before.
      </p>
      <div className="field-inline">
        <button type="button" className="btn btn-small" disabled={step === 'sending'} onClick={() => void allow()}>
          Allow once
        </button>
        <button ref={cancel} type="button" className="btn btn-small" onClick={() => setStep('offered')}>
          Cancel
        </button>
      </div>
    </div>
  );
}
