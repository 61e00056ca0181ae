// The open thread as one session: what it shows (use-thread-stream), the person's messages
// to it (use-message-queue), its approvals (use-thread-approvals) and `/goal`'s draft.

import type { ApprovalDecisionDto, GoalDraft, PendingApproval, Result } from '../../../src-main/app/contract';
import type { DecidedPreview } from '../components/conversation-context';
import type { PendingFile } from '../lib/pending-files';
import type { ThreadDisplayState } from '../lib/thread-reducer';
import { useGoalDraft, useMessageQueue } from './use-message-queue';
import { useThreadApprovals } from './use-thread-approvals';
import { useOpenThread, useThreadStream } from './use-thread-stream';

export interface ThreadSession {
  threadId: string | null;
  state: ThreadDisplayState;
  /** Pending approvals of this thread, oldest first. */
  approvals: PendingApproval[];
  loading: boolean;
  select(threadId: string | null): void;
  /** Opens `threadId` unless a thread was opened meanwhile (e.g. a message sent while it was being made). */
  selectIfNone(threadId: string): void;
  /**
   * Makes a new thread; while one is being made, that one (a message sent then goes to it, not
   * to a second). `another`: the one just made is open, and this is to be another.
   */
  createThread(another?: boolean): Promise<{ id: string } | undefined>;
  /** Sends a message, creating a thread first when none is open. */
  send(text: string, attachments?: readonly PendingFile[]): Promise<boolean>;
  stop(): Promise<void>;
  decide(approval: PendingApproval, decision: ApprovalDecisionDto): Promise<boolean>;
  /** Withdraws a message queued during the run. */
  cancelQueued(queuedId: string): Promise<void>;
  /** Interrupts the current step and delivers this queued message at once. */
  sendQueuedNow(queuedId: string): Promise<void>;
  /** Runs the thread again after a failed run. */
  retry(): Promise<void>;
  /** The diffs approvals showed, kept for the cards after the decision. */
  decidedPreviews: ReadonlyMap<string, DecidedPreview>;
  /** Takes the running flag from a fresh thread list (a run can end without a 'done' event). */
  syncRunning(running: boolean): void;
  /** Loads the items before the loaded ones (state.page.cursor > 0); one load at a time. */
  loadEarlier(): Promise<void>;
  loadingEarlier: boolean;
  /** One tool call of the open thread in full (a loaded page cut its output or arguments). */
  fullToolCall(index: number, toolCallId: string, parentToolCallId?: string): Promise<Result<'threads.toolCall'>>;
  /** The bytes of an attachment of the person's message at `index` in the open thread. */
  attachment(index: number, name: string): Promise<Result<'threads.attachment'>>;
  /** `/goal`'s draft waiting for the person (SPEC §21): edited and accepted, or dismissed. */
  goalDraft: GoalDraft | null;
  acceptGoal(draft: GoalDraft): Promise<boolean>;
  dismissGoal(): void;
}

export function useThreadSession(): ThreadSession {
  const thread = useOpenThread();
  // Each hook gives the session its part; what they give one another stays out of it.
  const { showApprovals, ...approvals } = useThreadApprovals(thread);
  const { showGoalDraft, ...goal } = useGoalDraft(thread);
  const { sendWaiting, sending, ...queue } = useMessageQueue(thread, showGoalDraft);
  const stream = useThreadStream(thread, { showApprovals, showGoalDraft, loaded: sendWaiting, approvals: approvals.approvals, sending });
  return { threadId: thread.threadId, state: thread.state, select: thread.select, ...approvals, ...goal, ...queue, ...stream };
}
