// The Agents view's pure parts (SPEC §16): how long a thread has worked, where it works, how
// many threads need the person (the page title), and what is read out when states change.

import type { AgentDto, AgentNotice, ThreadSummaryDto } from '../../../src-main/app/contract';

/** How long its latest run went: to its end, or to `now` while it goes (working, needing the person, queued). */
export function agentElapsedMs(agent: Pick<AgentDto, 'startedAt' | 'endedAt'>, now: number): number | null {
  const start = Date.parse(agent.startedAt);
  if (Number.isNaN(start)) return null;
  const end = agent.endedAt !== undefined ? Date.parse(agent.endedAt) : now;
  if (Number.isNaN(end)) return null;
  return Math.max(0, end - start);
}

/** Whether some row's time still runs (the view ticks then). */
export function anyGoing(agents: readonly Pick<AgentDto, 'endedAt'>[]): boolean {
  return agents.some((a) => a.endedAt === undefined);
}

export interface NeedYouSources {
  /** The Agents view's list (every folder), or null when it could not be listed. */
  agents: readonly Pick<AgentDto, 'threadId' | 'state'>[] | null;
  /** The open folder's threads, fresher about their own approvals. */
  threads?: readonly Pick<ThreadSummaryDto, 'id' | 'pendingApprovals'>[];
  /** The open thread, and whether approvals wait in it now. */
  currentThreadId?: string | null;
  currentWaiting?: boolean;
}

/** How many threads need the person: each counted once, whichever source knew it first. */
export function needYouCount({ agents, threads = [], currentThreadId = null, currentWaiting = false }: NeedYouSources): number {
  const ids = new Set<string>();
  for (const a of agents ?? []) if (a.state === 'needs-you') ids.add(a.threadId);
  for (const t of threads) if (t.pendingApprovals > 0) ids.add(t.id);
  if (currentWaiting && currentThreadId !== null) ids.add(currentThreadId);
  return ids.size;
}

/**
 * What the window reads out (politely) for these notices: each one's title, but not about the
 * thread open in the window (its conversation says so itself, an approval assertively).
 */
export function agentAnnouncement(notices: readonly AgentNotice[], currentThreadId: string | null): string {
  return notices
    .filter((n) => n.threadId !== currentThreadId)
    .map((n) => n.title)
    .join('. ');
}
