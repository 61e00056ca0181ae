// A run the agent host is asked for (SPEC §16), how it ends and what happens to it: the words
// of the host's run registry (app/host/runs.ts), here below it so that what starts runs on the
// session's floor (a set of candidates, candidate-sets.ts) speaks them too.

import type { RunResult } from '../../core/agent/loop';
import type { AgentEvent } from '../../core/agent/types';
import type { GoalJson } from '../../core/goals/goal';
import type { HostConnection } from '../base/host-service';
import type { RunState } from '../threads/run-records';
import type { BudgetNode } from '../contract/budgets';
import type { ThreadSource } from '../threads/thread-store';
import type { HeadlessRunRequest } from './headless-run';

export type ApprovePolicy = 'ask' | 'auto' | 'deny';

/** How a run ended, as clients are told. */
export interface RunEnd {
  state: RunState;
  reason: RunResult['reason'] | 'interrupted';
  text: string;
  error?: string;
  /** The thread's goal when the run ended (SPEC §21). */
  goal?: GoalJson;
}

export interface StartRunParams {
  request: Omit<HeadlessRunRequest, 'threadId' | 'budgetSet'> & { threadId?: string | undefined; candidateSet?: CandidateSetRef | undefined };
  approve: ApprovePolicy;
  /** The starting client can answer approvals (a terminal). */
  interactive: boolean;
  /** The client returns at once (`run --detach`): the run's approvals wait for someone to attach. */
  detach: boolean;
  /** Where the thread came from (a protocol client); else told by the starting connection (a terminal's `run`). */
  source?: ThreadSource;
}

/** `run --candidates N` (SPEC §21): the set a run is one of; its runs share one budget. */
export interface CandidateSetRef {
  id: string;
  /** The set's one budget (SPEC §26). */
  caps?: BudgetNode | undefined;
  /** This run's place in the set (0-based), and how many it has. */
  index: number;
  count: number;
}

/** What happens to the host's runs, for the windows showing their folders (app/host/windows.ts). */
export type RunActivity =
  | { kind: 'started' | 'ended' | 'approvals' | 'deleted'; threadId: string; folder: string }
  | { kind: 'event'; threadId: string; folder: string; seq: number; event: AgentEvent };

/** The host's runs (app/host/runs.ts's HostRuns) as a set of candidates uses them from below the host: a client's runs started, their ends heard. */
export interface HostRuns {
  start(connection: HostConnection, params: StartRunParams): Promise<{ threadId: string }>;
  onActivity(listener: (activity: RunActivity) => void): () => void;
  /** How the thread's latest run ended, as its record says (undefined while it goes, or when it has none). */
  recordedEnd(threadId: string): RunEnd | undefined;
}
