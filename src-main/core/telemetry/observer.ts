// What a run tells the people auditing it (SPEC §17): one observer interface that the usage
// ledger, OpenTelemetry and LangSmith each implement, so the loop reports a turn, a model
// call, a tool call and a subagent once, whoever listens. Observers never throw into the
// run and never make it wait: an exporter that is slow or down drops, it does not block.

import type { MemoryUse } from '../memories/memory-types';
import type { ChatMessage, ProviderName, StopReason, ToolSpec, Usage } from '../models/types';
import type { DecidedBy, RunStopReason } from '../agent/types';

export type { DecidedBy } from '../agent/types';

/** What was decided: ran without asking, refused, or the person's answer. */
export type ToolDecision = 'allow' | 'deny' | 'refuse' | 'approve' | 'edit' | 'reject' | 'respond';

/** One agent run: a turn of the thread's own agent (depth 0) or a subagent's run under a `task` call. */
export interface AgentRunInfo {
  /** The thread the person sees (a subagent's run reports its parent thread). */
  threadId: string;
  /** 1-based: the how-manieth message of the person's this run answers. */
  turn: number;
  /** `deepdesk` for the thread's own agent, else the subagent type. */
  agentName: string;
  /** Set for a subagent: the `task` call it runs under. */
  parentToolCallId?: string;
  depth: number;
  provider: ProviderName;
  /** The model's name without the provider (`claude-sonnet-4-5`). */
  model: string;
  /** The message that started the run (the person's, or a subagent's task), when there is one. */
  input?: ChatMessage;
  /** The project folder as the person names it (a path or an ssh:// URL), when known. */
  folder?: string;
}

/** Why a model call was made: the agent's step, a summary, a goal's grader or its drafting (SPEC §21), another agent's own (§22), a review (§23). */
export const MODEL_CALL_PURPOSES = ['agent', 'summarization', 'grader', 'goal-draft', 'other-agent', 'reviewer'] as const;
export type ModelCallPurpose = (typeof MODEL_CALL_PURPOSES)[number];

export interface ModelCallInfo {
  purpose: ModelCallPurpose;
  /** Another agent's call (through the metering proxy): its name, which its ledger row and span carry. */
  agent?: string;
  provider: ProviderName;
  model: string;
  /** What is sent (exported only when content capture is on). */
  system: string;
  messages: readonly ChatMessage[];
  tools: readonly ToolSpec[];
  /** The memories the request carries (SPEC §25 "Used in"): paths under /memories/ and versions. */
  memories?: readonly MemoryUse[];
}

export interface ModelCallOutcome {
  /** What the provider reported (zeros when the call failed before it said). */
  usage: Usage;
  /** US dollars, when the model's price is known. */
  costUsd?: number;
  durationMs: number;
  stopReason?: StopReason;
  /** Set when the call failed (after its retries) or was stopped. */
  error?: string;
  /** The model that answered, where the provider names it otherwise than asked (an alias resolved). */
  responseModel?: string;
  /** What came back (exported only when content capture is on). */
  text?: string;
  toolCalls?: ReadonlyArray<{ id: string; name: string; args: unknown }>;
}

export interface ToolCallInfo {
  id: string;
  name: string;
  args: unknown;
}

export interface ToolCallOutcome {
  output: string;
  isError: boolean;
}

export interface ModelCallObserver {
  end(outcome: ModelCallOutcome): void;
}

export interface ToolCallObserver {
  /** How the call was decided (the approval rules, the mode, a hook or the person). */
  decided(decision: ToolDecision, by: DecidedBy): void;
  /** The W3C `traceparent` of this call's span, passed to `execute` as TRACEPARENT (when tracing). */
  traceparent(): string | undefined;
  /** A subagent started by this (`task`) call. */
  subagent(info: AgentRunInfo): RunObserver;
  /** A review of this call (SPEC §23): a `review` span with its verdict, or why there was none. */
  review?(): ReviewObserver;
  end(outcome: ToolCallOutcome): void;
}

export interface ReviewObserver {
  end(outcome: { decision: string; risk: string; category: string } | { error: string }): void;
}

/** One agent run's observer; every method is called at most once per call it describes. */
export interface RunObserver {
  modelCall(info: ModelCallInfo): ModelCallObserver;
  toolCall(info: ToolCallInfo): ToolCallObserver;
  end(outcome: { reason: RunStopReason; text: string; error?: string }): void;
  /** One evaluation of a goal's gate (SPEC §21): a span with its verdict. */
  goalGate?(info: GoalGateInfo): GoalGateObserver;
}

export interface GoalGateInfo {
  /** The revision round it checks (0: the first). */
  round: number;
  steps: number;
}

export interface GoalGateObserver {
  end(outcome: { verdict: string; state: string; stepsPassed: number; stepsFailed: number; durationMs: number; error?: string }): void;
}

/** A listener for a thread's turns (the ledger, an exporter). */
export interface Telemetry {
  turn(info: AgentRunInfo): RunObserver;
  /** Sends what is buffered (bounded in time); for a process about to exit. */
  flush?(): Promise<void>;
  shutdown?(): Promise<void>;
}

export const NOOP_MODEL: ModelCallObserver = { end() {} };
export const NOOP_TOOL: ToolCallObserver = { decided() {}, traceparent: () => undefined, subagent: () => NOOP_RUN, end() {} };
export const NOOP_RUN: RunObserver = { modelCall: () => NOOP_MODEL, toolCall: () => NOOP_TOOL, end() {} };

/** Every listener hears everything; one that throws is skipped, never the run. */
export function combineTelemetry(listeners: ReadonlyArray<Telemetry | undefined>): Telemetry | undefined {
  const all = listeners.filter((t): t is Telemetry => t !== undefined);
  if (all.length === 0) return undefined;
  if (all.length === 1) return all[0];
  return {
    turn: (info) => fanRun(all.map((t) => safely(() => t.turn(info), NOOP_RUN))),
    flush: async () => void (await Promise.allSettled(all.map((t) => t.flush?.()))),
    shutdown: async () => void (await Promise.allSettled(all.map((t) => t.shutdown?.()))),
  };
}

function fanRun(runs: RunObserver[]): RunObserver {
  return {
    modelCall: (info) => {
      const calls = runs.map((r) => safely(() => r.modelCall(info), NOOP_MODEL));
      return { end: (outcome) => calls.forEach((c) => safely(() => c.end(outcome), undefined)) };
    },
    toolCall: (info) => fanTool(runs.map((r) => safely(() => r.toolCall(info), NOOP_TOOL))),
    end: (outcome) => runs.forEach((r) => safely(() => r.end(outcome), undefined)),
    goalGate: (info) => {
      const gates = runs.map((r) => safely(() => r.goalGate?.(info), undefined));
      return { end: (outcome) => gates.forEach((g) => safely(() => g?.end(outcome), undefined)) };
    },
  };
}

function fanTool(tools: ToolCallObserver[]): ToolCallObserver {
  return {
    decided: (decision, by) => tools.forEach((t) => safely(() => t.decided(decision, by), undefined)),
    traceparent: () => {
      for (const t of tools) {
        const parent = safely(() => t.traceparent(), undefined);
        if (parent !== undefined) return parent;
      }
      return undefined;
    },
    subagent: (info) => fanRun(tools.map((t) => safely(() => t.subagent(info), NOOP_RUN))),
    review: () => {
      const reviews = tools.map((t) => safely(() => t.review?.(), undefined));
      return { end: (outcome) => reviews.forEach((r) => safely(() => r?.end(outcome), undefined)) };
    },
    end: (outcome) => tools.forEach((t) => safely(() => t.end(outcome), undefined)),
  };
}

/** An observer's failure is its own: the run goes on as if nobody listened. */
export function safely<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}
