// What a caller gives a run: the agent (its model, backend, tools, middleware, prompt) and the
// run's options (events, saving, queued input, notes, the audit, the budget, the goal, another
// agent's turns); what the run answers; and the run's context made from them (what its middleware
// and tools see: the turn it answers, who audits it, its budget, events and saving).

import type { Backend } from '../backends/protocol';
import type { GoalPlace } from '../goals/evidence';
import type { ChatMessage, ChatModel } from '../models/types';
import { NOOP_RUN, type Telemetry, type ToolCallObserver } from '../telemetry/observer';
import type { ReadGuard } from '../tools/read-guard';
import type { AgentTool } from '../tools/tool';
import type { RunBudget } from './budget';
import type { Middleware } from './middleware';
import { modelName } from './model-call';
import { isPersonMessage, type PendingNote } from './notes';
import { rootRun, type RunContext } from './run-context';
import { countRequestTokens } from './token-count';
import type { AgentEvent, AgentEventBody, RunStopReason, ThreadState } from './types';

export interface AgentDefinition {
  model: ChatModel;
  backend: Backend;
  /** The base tools (file tools, execute); middleware adds its own. */
  tools: AgentTool[];
  middleware: Middleware[];
  /** The base system prompt; middleware appends sections. */
  systemPrompt: string;
  maxSteps?: number;
  /** Stop when the same calls with the same results repeat this many steps in a row (0: never). */
  maxRepeatedCalls?: number;
}

/** A message the person sent while the run was going, waiting for the current step to end. */
export interface QueuedInput {
  id: string;
  text: string;
}

export interface RunOptions {
  signal?: AbortSignal;
  emit: (event: AgentEvent) => void;
  /** Saves the thread; called after every step. */
  persist: (state: ThreadState) => Promise<void>;
  guard: ReadGuard;
  parentToolCallId?: string;
  depth?: number;
  /** Inside a subagent: the run that started it. */
  parentRun?: RunContext;
  /** Tool calls that were waiting for approval when the run stopped: run them on resume instead of marking them interrupted. */
  resumableToolCalls?: ReadonlySet<string>;
  onTerminalData?: (chunk: string) => void;
  /**
   * Takes (and removes) the messages queued while the run was going; called whenever a
   * step ends. Each one is delivered as a user message before the next model call.
   */
  takeQueued?: () => QueuedInput[];
  /**
   * The thread's notes waiting for the model (e.g. a restore of files); each is put into
   * the history once, before the next model call. Saving the thread marks them delivered.
   */
  pendingNotes?: () => PendingNote[];
  /** `/compact`: summarize the history now and end, without a model call for an answer. */
  compactOnly?: boolean;
  /** Who audits the thread's turns (the usage ledger, traces). A subagent reports under its parent's task call instead. */
  telemetry?: Telemetry;
  /** The budget of this run (a subagent keeps its parent's). */
  budget?: RunBudget;
  /** The agent's name in the audit: the subagent type (default `deepdesk`). */
  agentName?: string;
  /** The project folder as the person names it, for the audit. */
  folder?: string;
  /**
   * The thread's goal (SPEC §21), when the state has one pursuing: where the gate takes the
   * folder's tree and diff, and the grader's model (default the run's). Verify steps run
   * through this run's own command path (the agent's execute, its rules and containment).
   */
  goals?: RunGoals;
  /**
   * Another agent's turns (SPEC §21 with §22, the turn source of turn-source.ts): each step is
   * one whole turn of another agent (over ACP) instead of a model call and its tools. The turn is
   * given the text to send (`recorded`: the loop already put it in the history, as a revision of
   * the goal is) and says how it ended; the goal's gate, its verify steps (through this
   * definition's execute path), the grader (the definition's model, metered) and the revisions
   * are this loop's, as for Deepdesk's own agent. The input and every revision go to the turn as
   * they are (no middleware changes them).
   */
  turnRunner?: AgentTurn;
}

/** Where a goal's gate takes the folder's tree and diff, and the grader's model (default the run's). */
export interface RunGoals {
  folder: Pick<GoalPlace, 'tree' | 'diff'>;
  graderModel?: ChatModel;
}

/** One whole turn of another agent, sent `text` (`recorded`: already in the history). */
export type AgentTurn = (text: string, recorded: boolean) => Promise<RunResult>;

export interface RunResult {
  text: string;
  reason: RunStopReason;
  error?: Error;
}

/** A run's context, and the observers of its tool calls while they run (the tool step keeps them). */
export function openRun(def: Pick<AgentDefinition, 'model' | 'backend'>, state: ThreadState, input: ChatMessage | null, options: RunOptions): { ctx: RunContext; toolObservers: Map<string, ToolCallObserver> } {
  const parentRun = options.parentRun;
  const turn = parentRun?.turn ?? state.messages.filter(isPersonMessage).length + (input !== null && isPersonMessage(input) ? 1 : 0);
  const runInfo = {
    threadId: parentRun ? rootRun(parentRun).threadId : state.id,
    turn: Math.max(1, turn),
    agentName: options.agentName ?? 'deepdesk',
    depth: options.depth ?? 0,
    provider: def.model.provider,
    model: modelName(def.model.id),
    ...(options.parentToolCallId ? { parentToolCallId: options.parentToolCallId } : {}),
    ...(input !== null ? { input } : {}),
    ...(options.folder !== undefined ? { folder: options.folder } : {}),
  };
  const observer = (parentRun && options.parentToolCallId ? parentRun.toolObserver?.(options.parentToolCallId)?.subagent(runInfo) : options.telemetry?.turn(runInfo)) ?? NOOP_RUN;
  const toolObservers = new Map<string, ToolCallObserver>();
  const budget = options.budget ?? parentRun?.budget;
  const ctx: RunContext = {
    threadId: state.id,
    state,
    backend: def.backend,
    model: def.model,
    signal: options.signal ?? new AbortController().signal,
    depth: options.depth ?? 0,
    ...(parentRun ? { parent: parentRun } : {}),
    ...(options.parentToolCallId ? { parentToolCallId: options.parentToolCallId } : {}),
    ...(options.resumableToolCalls ? { resumableToolCalls: options.resumableToolCalls } : {}),
    emit: (event: AgentEventBody) =>
      options.emit({ ...event, threadId: state.id, ...(options.parentToolCallId ? { parentToolCallId: options.parentToolCallId } : {}) } as AgentEvent),
    persist: () => options.persist(state),
    // By the model's provider: what a media block costs depends on who reads it.
    countRequestTokens: (request) => countRequestTokens(request, def.model),
    turn: runInfo.turn,
    observer,
    toolObserver: (callId) => toolObservers.get(callId),
    stepAttributions: new Map(),
    ...(budget ? { budget } : {}),
  };
  return { ctx, toolObservers };
}
