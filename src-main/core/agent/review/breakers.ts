// The reviewer's breakers (SPEC §23): 3 denials in a row (an allow resets the row), 20 in a
// thread, or 2 failures in a row hand the thread back to the person until review is turned
// back on. The counts are the thread's (kept in its state, so they survive a restart).

export interface ReviewBreaker {
  deniedInRow: number;
  denied: number;
  failedInRow: number;
  /** Why it tripped: set, the person answers the thread's questions. */
  tripped?: string;
}

const LIMITS = { deniedInRow: 3, denied: 20, failedInRow: 2 } as const;

/** The breaker after one review: allowed, denied or failed. */
export function afterReview(breaker: ReviewBreaker | undefined, outcome: 'allow' | 'deny' | 'failed'): ReviewBreaker {
  const was = breaker ?? { deniedInRow: 0, denied: 0, failedInRow: 0 };
  const next: ReviewBreaker = {
    deniedInRow: outcome === 'deny' ? was.deniedInRow + 1 : outcome === 'allow' ? 0 : was.deniedInRow,
    denied: was.denied + (outcome === 'deny' ? 1 : 0),
    failedInRow: outcome === 'failed' ? was.failedInRow + 1 : 0,
  };
  const tripped =
    was.tripped ??
    (next.deniedInRow >= LIMITS.deniedInRow
      ? `the reviewer denied ${LIMITS.deniedInRow} calls in a row`
      : next.denied >= LIMITS.denied
        ? `the reviewer denied ${LIMITS.denied} calls in this thread`
        : next.failedInRow >= LIMITS.failedInRow
          ? `the reviewer could not answer ${LIMITS.failedInRow} times in a row`
          : undefined);
  return { ...next, ...(tripped !== undefined ? { tripped } : {}) };
}

/** The notice when a breaker trips (a note of kind `reviewer`), to the person. */
export function trippedNotice(why: string): string {
  return `Review is off for this thread: ${why}. You answer its approvals until you save review on again in Settings › Approvals (or give --reviewer on a later run).`;
}
