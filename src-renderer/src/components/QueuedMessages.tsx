// Messages sent while the agent works: shown at the end of the conversation until the
// current step ends and they are delivered, each with `Send now` (interrupt the step and
// deliver it at once) and `Cancel queued message`.

import { useState } from 'react';
import type { QueuedMessageDto } from '../../../src-main/app/contract';

interface QueuedMessagesProps {
  queued: readonly QueuedMessageDto[];
  running: boolean;
  onSendNow(queuedId: string): Promise<void>;
  onCancel(queuedId: string): Promise<void>;
}

export function QueuedMessages({ queued, running, onSendNow, onCancel }: QueuedMessagesProps): React.JSX.Element | null {
  const [busy, setBusy] = useState<string | null>(null);
  if (queued.length === 0) return null;
  const act = async (id: string, action: (id: string) => Promise<void>): Promise<void> => {
    setBusy(id);
    try {
      await action(id);
    } finally {
      setBusy(null);
    }
  };
  return (
    <ul className="queued-messages" aria-label="Queued messages">
      {queued.map((q) => (
        <li key={q.id} className="queued-message" aria-label="Queued message">
          <div className="queued-head">
            <span className="badge">Queued</span>
            <span className="muted small">{running ? 'Delivered when the current step ends' : 'Waiting: the run was stopped'}</span>
          </div>
          <p className="queued-text">{q.text}</p>
          <div className="queued-actions">
            <button type="button" className="btn btn-small" disabled={busy === q.id} onClick={() => void act(q.id, onSendNow)} title="Interrupt the current step and send this message now">
              Send now
            </button>
            <button type="button" className="btn btn-small btn-quiet" disabled={busy === q.id} onClick={() => void act(q.id, onCancel)}>
              Cancel queued message
            </button>
          </div>
        </li>
      ))}
    </ul>
  );
}
