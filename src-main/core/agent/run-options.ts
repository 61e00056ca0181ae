// What a caller gives a run (the agent, the run's options), what the run answers, and the run's
// context made from them: what its middleware and tools see.

import type { Backend } from '../backends/protocol';
import type { GoalPlace } from '../goals/evidence';
import type { ChatMessage, ChatModel } from '../models/types';
import { NOOP_RUN, type Telemetry, type ToolCallObserver } from '../telemetry/observer';
import type { ReadGuard } from '../tools/read-guard';
import type { AgentTool } from '../tools/tool';
import type { SpendNode } from '../spend/spend-tree';
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
  budget?: SpendNode;
  /** The agent's name in the audit: the subagent type (default `deepdesk`). */
  agentName?: string;
  /** The project folder as the person names it, for the audit. */
  folder?: string;
  /**
   * The thread's goal (SPEC §21), when the state has one pursuing: where the gate takes the
   * folder's tree and diff, and the grader's model (default the run's). Verify steps run
   * through this run's own command path (the agent's execute, its rules and containment).
   */
  goals?: { folder: Omit<GoalPlace, 'runStep'>; graderModel?: ChatModel };
  /**
   * Another agent's turns (SPEC §21 with §22; turn-source.ts): each step is one whole turn of an
   * agent over ACP, sent the text (`recorded`: the loop already put it in the history, as a goal's
   * revision). The gate, its verify steps (this definition's execute path), the grader (its model,
   * metered) and the revisions are this loop's; no middleware changes the texts sent.
   */
  turnRunner?: (text: string, recorded: boolean) => Promise<RunResult>;
}

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
  // A subagent's calls count at its own node beneath the thread's (one per subagent type: `task researcher`).
  const budget = options.budget ?? (options.parentToolCallId !== undefined ? parentRun?.budget?.childFor({ kind: 'fanout', id: `task ${runInfo.agentName}`, label: `the ${runInfo.agentName} subagents' budget` }) : parentRun?.budget);
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
    callContexts: new Map(),
    ...(budget ? { budget } : {}),
  };
  return { ctx, toolObservers };
}
