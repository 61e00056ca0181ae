// The open thread's approvals: those waiting (oldest first), answering one, and the diffs the
// answered ones showed, kept for their cards.

import { useCallback, useState } from 'react';
import type { ApprovalDecisionDto, PendingApproval } from '../../../src-main/app/contract';
import type { DecidedPreview } from '../components/conversation-context';
import { editedAfter } from '../lib/approval-edit';
import { approvalKey } from '../lib/approval-key';
import { useEvent } from './transport-context';
import { useApi } from './use-api';
import type { OpenThread } from './use-thread-stream';

const DECISION_STATUS = { approve: 'approved', edit: 'edited', reject: 'rejected', respond: 'responded' } as const;

function oldestFirst(approvals: readonly PendingApproval[]): PendingApproval[] {
  return [...approvals].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
}

export function useThreadApprovals({ dispatch, current }: OpenThread) {
  const api = useApi();
  const [approvals, setApprovals] = useState<PendingApproval[]>([]);
  const [decidedPreviews, setDecidedPreviews] = useState<ReadonlyMap<string, DecidedPreview>>(new Map());
  const showApprovals = useCallback((list: readonly PendingApproval[]) => setApprovals(oldestFirst(list)), []);

  useEvent('approvals.changed', ({ threadId: id }) => {
    if (id !== current.current) return;
    // A failure: the thread may have been deleted meanwhile; the list refresh will show it.
    api.call('threads.get', { threadId: id, refresh: true }).then((view) => {
      if (current.current !== id) return;
      setApprovals(oldestFirst(view.approvals));
      dispatch({ type: 'set_running', running: view.thread.running });
    }, () => undefined);
  });

  const decide = useCallback(
    async (approval: PendingApproval, decision: ApprovalDecisionDto) => {
      const { threadId, toolCallId, parentToolCallId } = approval;
      const result = await api.safe('approvals.decide', { threadId, toolCallId, ...(parentToolCallId ? { parentToolCallId } : {}), decision });
      const key = approvalKey(toolCallId, parentToolCallId);
      if (!result) return false;
      const preview = approval.preview;
      if (preview && (decision.type === 'approve' || decision.type === 'edit')) {
        // An edited write shows what it will really write.
        const after = decision.type === 'edit' && approval.toolName === 'write_file' && typeof decision.args.content === 'string' ? decision.args.content : preview.after;
        // An edited edit: the same file with the person's strings (until the result brings what it really did).
        const editedEdit = decision.type === 'edit' && approval.toolName === 'edit_file' ? editedAfter(preview.before, decision.args) : undefined;
        const kept = editedEdit === undefined ? { path: preview.path, before: preview.before, after } : editedEdit === null ? null : { path: preview.path, before: preview.before.replace(/\r\n/g, '\n'), after: editedEdit };
        if (kept) setDecidedPreviews((m) => new Map(m).set(key, kept));
      }
      setApprovals((list) => list.filter((a) => approvalKey(a.toolCallId, a.parentToolCallId) !== key));
      const args = decision.type === 'edit' ? { args: decision.args } : {};
      if (threadId === current.current) dispatch({ type: 'local_approval', toolCallId, parent: parentToolCallId, status: DECISION_STATUS[decision.type], ...args });
      return true;
    },
    [api, current, dispatch],
  );

  return { approvals, showApprovals, decide, decidedPreviews };
}
