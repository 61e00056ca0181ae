// The approval broker of a folder's threads (issue 60): who answers the approvals of a
// thread's runs (its RunSettings' broker — `deepdesk run`'s terminal, an editor — else the
// folder's ApprovalService, i.e. the window), the approvals pending and resumable after a
// restart, and a run's record `needs-you` while one of them waits for the person. While a run
// waits for an answer its run slot goes to another run.

import type { ApprovalBroker } from '../../core/agent/decision';
import type { AgentEvent } from '../../core/agent/types';
import type { ApprovalService } from '../approvals/approval-service';
import type { PendingApproval } from '../contract';
import type { RunRecords } from '../threads/run-records';
import type { RunSlot } from './run-slots';

export interface ThreadApprovalsOptions {
  /** The folder's approvals: kept in SQLite, answered by the window unless a thread's runs say who else. */
  approvals: Pick<ApprovalService, 'decide' | 'pending' | 'resumable' | 'threadsWithApprovals' | 'forgetThread'>;
  /** The runs' records: a run `needs-you` while one of its approvals waits. */
  records: Pick<RunRecords, 'setState'>;
}

export class ThreadApprovals {
  /** Per running thread, the approvals its run is waiting for (the run `needs-you` while there is one). */
  private readonly asking = new Map<string, Set<string>>();

  constructor(private readonly options: ThreadApprovalsOptions) {}

  /**
   * The broker of one run: `answerer` (a thread's RunSettings') or the folder's. While the run
   * waits for the person its slot goes to another run (RunSlot): told around the one call that
   * asks (core/agent/decision.ts).
   */
  brokerFor(answerer: ApprovalBroker | undefined, slot: Pick<RunSlot, 'pause' | 'resume'>): ApprovalBroker {
    const broker = answerer ?? this.options.approvals;
    return { decide: broker.decide.bind(broker), waiting: { asking: () => slot.pause(), answered: (signal) => slot.resume(signal) } };
  }

  /** Keeps the run's record `needs-you` while one of its approvals waits for the person. */
  note(threadId: string, event: Extract<AgentEvent, { type: 'approval' }>): void {
    const key = `${event.parentToolCallId ?? ''}/${event.id}`;
    let asked = this.asking.get(threadId);
    if (event.status === 'pending') {
      if (asked === undefined) this.asking.set(threadId, (asked = new Set()));
      asked.add(key);
      if (asked.size === 1) this.options.records.setState(threadId, 'needs-you');
    } else if (asked?.delete(key) === true && asked.size === 0) {
      this.options.records.setState(threadId, 'working');
    }
  }

  /** Whether the thread's run waits for an answer now. */
  waiting(threadId: string): boolean {
    return (this.asking.get(threadId)?.size ?? 0) > 0;
  }

  /** The thread's run ended: nothing of it waits. */
  runEnded(threadId: string): void {
    this.asking.delete(threadId);
  }

  /** The thread's approvals waiting for the window. */
  pending(threadId: string): PendingApproval[] {
    return this.options.approvals.pending(threadId);
  }

  /** The tool calls of the thread answered while no run was going, for the next run to resume. */
  resumable(threadId: string): Set<string> {
    return this.options.approvals.resumable(threadId);
  }

  /** The threads with approvals pending (of every folder): their runs resume. */
  threadsWaiting(): string[] {
    return this.options.approvals.threadsWithApprovals();
  }

  /** The thread's conversation was rewound: approvals left waiting (no run picks them up) were for calls that are gone now. */
  rewound(threadId: string): void {
    if (this.options.approvals.pending(threadId).length > 0) this.options.approvals.forgetThread(threadId);
  }
}
