// What one run of one (sub)agent is: what its middleware hooks and tools can see and do.

import type { MemoryUse } from '../memories/memory-types';
import type { Backend } from '../backends/protocol';
import type { StepAttribution } from '../process/attribution';
import type { ReviewLayer } from '../sandbox/types';
import type { ChatMessage, ChatModel, ToolSpec } from '../models/types';
import type { RunObserver, ToolCallObserver } from '../telemetry/observer';
import type { SpendNode } from '../spend/spend-tree';
import type { AgentEventBody, ThreadState } from './types';

export interface ModelCallRequest {
  system: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  cacheBreakpoints?: boolean;
  /** The memories the system prompt carries (SPEC §25 "Used in"). */
  memories?: MemoryUse[];
}

/** What a hook can see and do during one run of one (sub)agent. */
export interface RunContext {
  readonly threadId: string;
  readonly state: ThreadState;
  readonly backend: Backend;
  readonly model: ChatModel;
  readonly signal: AbortSignal;
  /** Set inside a subagent: the `task` call it runs under. */
  readonly parentToolCallId?: string;
  /** Nesting depth: 0 for the main agent. */
  readonly depth: number;
  /** Set inside a subagent: the run of the agent that started it. */
  readonly parent?: RunContext;
  /**
   * Calls waiting for approval when the thread last stopped, by their place in it: `id` for
   * this agent's, `taskId/id` for a subagent's (see taskPath).
   */
  readonly resumableToolCalls?: ReadonlySet<string>;
  emit(event: AgentEventBody): void;
  /** Persists the thread now (after every step the loop does this itself). */
  persist(): Promise<void>;
  /** Estimated tokens of a model request for this run's model (media by its provider's cost), with the real tokenizer. */
  countRequestTokens(request: ModelCallRequest): number;
  /** The thread's turn this run answers (1-based; a subagent's is its parent's). */
  readonly turn: number;
  /** Who audits this run (the usage ledger, traces); a no-op when nobody does. */
  readonly observer: RunObserver;
  /** The observer of one of this run's tool calls while it runs (approvals report their decision to it). */
  toolObserver?(callId: string): ToolCallObserver | undefined;
  /**
   * What middleware hands each of this run's tool calls while it runs, for its tool context: the
   * checkpoint step (middleware/checkpoints.ts), the review of a command's layer (middleware/approval.ts).
   */
  readonly callContexts?: Map<string, CallHandOn>;
  /** The budget this run (and its subagents) must keep, when one is set. */
  readonly budget?: SpendNode;
}

/** What a call's tool context is handed by middleware (ToolContext's fields of the same names). */
export interface CallHandOn {
  attribution?: StepAttribution;
  reviewLayer?: ReviewLayer;
}

/** The `task` calls from the thread's own agent down to this run (empty for the agent itself). */
export function taskPath(ctx: RunContext): string[] {
  const path: string[] = [];
  for (let run: RunContext | undefined = ctx; run?.parentToolCallId !== undefined; run = run.parent) path.unshift(run.parentToolCallId);
  return path;
}

/** The main agent's run (the thread the person talks to), also from inside a subagent. */
export function rootRun(ctx: RunContext): RunContext {
  let run = ctx;
  while (run.parent) run = run.parent;
  return run;
}

/** Hands `given` to the tool context of this run's call `id` while `fn` runs (RunContext.callContexts). */
export async function handOn<T>(ctx: RunContext, id: string, given: CallHandOn, fn: () => Promise<T>): Promise<T> {
  const held = ctx.callContexts;
  const before = held?.get(id);
  held?.set(id, { ...before, ...given });
  try {
    return await fn();
  } finally {
    if (before) held?.set(id, before);
    else held?.delete(id);
  }
}
