// Says, assertively, that a tool call waits for the person: the conversation log is polite
// (and busy while an answer streams), and an approval holds the whole run up.

import { useEffect, useRef, useState } from 'react';
import type { PendingApproval } from '../../../src-main/app/contract';
import { approvalKey } from '../lib/approval-key';
import { toolTitleText } from '../lib/tool-title';
import { visibleText } from '../lib/visible-text';

/** What is read out when `arrived` start waiting, `total` waiting in all. */
export function approvalAnnouncement(arrived: readonly PendingApproval[], total: number): string {
  const first = arrived[0];
  if (!first) return '';
  const what = `${visibleText(toolTitleText(first.toolName, first.args))} needs your approval`;
  return total > 1 ? `${what} (${total} waiting)` : what;
}

export function ApprovalAnnouncer({ approvals }: { approvals: readonly PendingApproval[] }): React.JSX.Element {
  const seen = useRef(new Set<string>());
  const [message, setMessage] = useState('');
  useEffect(() => {
    const keys = approvals.map((a) => approvalKey(a.toolCallId, a.parentToolCallId));
    const arrived = approvals.filter((_, i) => !seen.current.has(keys[i]!));
    seen.current = new Set(keys);
    if (arrived.length > 0) setMessage(approvalAnnouncement(arrived, approvals.length));
    else if (approvals.length === 0) setMessage('');
  }, [approvals]);
  return (
    <div className="visually-hidden" aria-live="assertive" aria-atomic="true">
      {message}
    </div>
  );
}
