// Deleting a thread, whoever asks (the window, the Agent Protocol, a stateless protocol run
// ending): the thread and everything it owns in the data folder go together. Its runs must
// have ended first: the caller stops what works on it (ThreadService, HostRuns).

import { CheckpointHistory } from '../../core/checkpoints/history';
import type { CheckpointStore } from '../../core/checkpoints/store';
import type { ApprovalService } from '../approvals/approval-service';
import type { ThreadStore } from './thread-store';

/** Where a thread's things are kept. */
export interface ThreadOwners {
  /** Its messages, files, notes and rewinds. */
  store: ThreadStore;
  /** Its approvals waiting (a run that resumes them would run calls of a thread that is gone). */
  approvals: Pick<ApprovalService, 'forgetThread'>;
  /** Its checkpoint history (none where no checkpoints are kept). */
  checkpoints: CheckpointStore | undefined;
}

/** Deletes the thread with everything it owns; false when there was no such thread. */
export function deleteThread(threadId: string, owners: ThreadOwners): boolean {
  const existed = owners.store.delete(threadId);
  owners.approvals.forgetThread(threadId);
  if (owners.checkpoints !== undefined) new CheckpointHistory(owners.checkpoints).deleteThread(threadId);
  return existed;
}
