// The thread's reviewed calls (SPEC §23): every call the reviewer answered, allowed and denied,
// with its risk, category and rationale, in the order they came. Opened from the thread's
// header. The call and the rationale are the model's text: plain text only.

import { useMemo, useState } from 'react';
import { reviewedCalls } from '../lib/review-words';
import type { ConvItem } from '../lib/thread-reducer';
import { toolTitleText } from '../lib/tool-title';
import { Modal } from './Modal';
import { VisibleText } from './VisibleText';

export function ReviewedCalls({ items }: { items: readonly ConvItem[] }): React.JSX.Element | null {
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
            {calls.map(({ key, name, args, review }) => (
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
