// What the agent host's clients are shown of its runs (SPEC §16): an attach's first answer
// (the thread before the events that follow), `deepdesk agents`' lines, and how a run ended —
// from its result, or from its record when it is not this host's.

import type { RunResult } from '../../core/agent/loop';
import type { AgentEvent, ApprovalRequest } from '../../core/agent/types';
import { goalJson, type Goal, type GoalJson } from '../../core/goals/goal';
import type { ApprovalPreview } from '../approvals/approval-preview';
import type { DisplayItem } from '../contract';
import type { RunEnd } from '../session/run-requests';
import type { CandidateRecords } from '../threads/candidate-records';
import type { RunRecord, RunRecords, RunState } from '../threads/run-records';
import { capText, itemsBefore, type PageLimits } from '../threads/thread-page';
import { shortThreadId } from '../threads/thread-ref';
import type { ThreadStore } from '../threads/thread-store';

export interface PendingQuestion {
  key: string;
  request: ApprovalRequest;
  preview?: ApprovalPreview;
  /** Where a command runs when it is not this computer: `Runs in Daytona · sandbox ID` (SPEC §18). */
  runsIn?: string;
}

/** What an attach shows of the thread before its events: its latest items (long parts cut); `earlier`: there are more before them. */
export interface ThreadHistory {
  items: DisplayItem[];
  earlier: boolean;
}

/** How much of a thread an attach shows before the events (the person's words cut at `capChars`). */
export const HISTORY_LIMITS: PageLimits = { maxItems: 40, maxBytes: 256_000, capChars: 2_000 };
const ANSWER_CHARS = 8_000;

/** What a client attaching to a thread gets first; then `run.*` events follow. */
export interface AttachedRun {
  threadId: string;
  folder: string;
  state: RunState;
  /** The thread before the events that follow (a finished thread: all of it). */
  history: ThreadHistory;
  /** The events kept, after the `afterSeq` asked for. */
  events: Array<{ seq: number; event: AgentEvent }>;
  /** Events before these were not kept (a long run): how many. */
  dropped: number;
  says: string[];
  approvals: PendingQuestion[];
  end?: RunEnd;
  /** The thread's goal (SPEC §21) as it stands. */
  goal?: GoalJson;
}

export interface AgentLine {
  threadId: string;
  /** The shortest beginning of the id, of at least 8 characters, that names the thread alone (thread-ref.ts). */
  shortId: string;
  state: RunState;
  folder: string;
  title: string;
  startedAt: string;
  endedAt: string | null;
  message: string | null;
  /** The thread's goal (SPEC §21), when it has one. */
  goal?: GoalJson;
  /** The thread's agent when it is another one over ACP (SPEC §22): its name. */
  agent?: string;
  /** The set of candidates it is one of (SPEC §21), and its rank once the host ranked the set. */
  candidateSet?: { id: string; index: number; count: number; goal: string; rank?: number };
}

/** The thread's latest items before message `before` (all of them by default). */
export function threadHistory(threads: ThreadStore, threadId: string, before?: number): ThreadHistory {
  if (!threads.exists(threadId)) return { items: [], earlier: false };
  const state = threads.load(threadId);
  const page = itemsBefore(state, before ?? state.messages.length, 0, HISTORY_LIMITS)!;
  // The agent's words are the point of it: they keep more.
  const items = page.items.map((item) =>
    item.kind === 'user' ? { ...item, text: capText(item.text, HISTORY_LIMITS.capChars).text } : item.kind === 'assistant' ? { ...item, text: capText(item.text, ANSWER_CHARS).text } : item,
  );
  return { items, earlier: page.cursor > 0 };
}

/** Every run's record as `deepdesk agents` lists it. */
export function agentLines(records: RunRecords, threads: ThreadStore, candidates: CandidateRecords): AgentLine[] {
  // Each set's ranks by thread, read once per listing.
  const ranks = new Map<string, Map<string, number>>();
  const candidateOf = (threadId: string): Pick<AgentLine, 'candidateSet'> => {
    const member = candidates.get(threadId);
    if (member === undefined) return {};
    let ranked = ranks.get(member.setId);
    if (ranked === undefined) {
      ranked = new Map((candidates.set(member.setId)?.ranking?.ranking ?? []).map((entry) => [entry.threadId, entry.rank]));
      ranks.set(member.setId, ranked);
    }
    const rank = ranked.get(threadId);
    return { candidateSet: { id: member.setId, index: member.index, count: member.count, goal: member.goal, ...(rank !== undefined ? { rank } : {}) } };
  };
  return records.list().map((record) => {
    const agent = threads.externalAgent(record.threadId)?.label;
    return {
      threadId: record.threadId,
      shortId: shortThreadId(threads, record.threadId),
      state: record.state,
      folder: record.folder,
      title: threads.get(record.threadId)?.title ?? '',
      startedAt: record.startedAt,
      endedAt: record.endedAt,
      message: record.message,
      ...goalOf(threads.goal(record.threadId)),
      ...(agent !== undefined ? { agent } : {}),
      ...candidateOf(record.threadId),
    };
  });
}

/** The thread's goal at the run's end, as `run --json` and its exit code read it. */
export function goalOf(goal: Goal | undefined): { goal?: GoalJson } {
  return goal === undefined ? {} : { goal: goalJson(goal) };
}

export function endOf(result: RunResult): RunEnd {
  const state: RunState = result.reason === 'completed' ? 'done' : result.reason === 'aborted' ? 'stopped' : 'failed';
  return { state, reason: result.reason, text: result.text, ...(result.error ? { error: result.error.message } : {}) };
}

/** How a run that is not going ended, as its record says (undefined while it goes). */
export function recordEnd(record: RunRecord): RunEnd | undefined {
  if (record.state === 'working' || record.state === 'needs-you' || record.state === 'budget') return undefined;
  return { state: record.state, reason: record.state === 'interrupted' ? 'interrupted' : record.state === 'done' ? 'completed' : record.state === 'stopped' ? 'aborted' : 'error', text: '', ...(record.message ? { error: record.message } : {}) };
}
