// The agent's state and the events it streams (SPEC §4, §5 `run --json`).

import type { StateSnapshot } from '../backends/store/state';
import type { ChatMessage, ContentPart, MessageNote, Usage } from '../models/types';
import type { ModelProblem } from '../models/connection-problem';
import type { FileChangeSummary } from '../tools/file-change';
import type { DecidedBy, ReviewVerdict, ToolResultFacts } from '../tools/result-facts';

export type { DecidedBy, ReviewVerdict } from '../tools/result-facts';
import type { ReadGuardSnapshot } from '../tools/read-guard';
import type { ApprovalWhy } from './permissions/reason';
import type { ReviewBreaker } from './review/breakers';
import type { Goal, GoalJson } from '../goals/goal';

export type TodoStatus = 'pending' | 'in_progress' | 'completed';

export interface Todo {
  content: string;
  status: TodoStatus;
}

export interface UsageTotals extends Usage {
  /** USD, when the model's prices are known. */
  costUsd?: number;
}

export const ZERO_USAGE: UsageTotals = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

/** Everything a thread needs to resume; persisted after every step. */
export interface ThreadState {
  id: string;
  /** The whole conversation, append-only: summarization never deletes history. */
  messages: ChatMessage[];
  /** Index of the first message the model still sees verbatim; earlier ones are summarized. */
  contextStart: number;
  /** The summary standing in for messages[0, contextStart). */
  summary?: string;
  todos: Todo[];
  usage: UsageTotals;
  guard: ReadGuardSnapshot;
  files: { largeResults: StateSnapshot; history: StateSnapshot; attachments?: StateSnapshot };
  /** What each subagent did, by the id of its `task` call (shown under that call; never sent to the model). */
  subagentRuns?: Record<string, ChatMessage[]>;
  /** Tokens of the last model request (what the context meter shows). */
  contextTokens?: number;
  /**
   * Messages before this index (and from contextStart) reach the model compacted: long
   * tool results cut to a preview and long arguments truncated (see summarization).
   */
  compactedBefore?: number;
  /**
   * Messages before this index reach the model with their media blocks replaced by a note
   * naming each (the first thing summarization takes out of an over-full request).
   */
  mediaDroppedBefore?: number;
  /** Messages the person sent while a run was going, oldest first, not yet delivered. */
  queued?: QueuedMessage[];
  /** MCP tools behind tool_search that this thread found (or called): offered to the model from then on. */
  mcpLoadedTools?: string[];
  /** The thread's goal (SPEC §21): its state, criteria, verify steps and the host's evidence. */
  goal?: Goal;
  /** The thread's agent when it is another one over ACP (SPEC §22): its name, label and session (continued after a restart where it can be). */
  externalAgent?: ThreadAgentRecord;
  /** The reviewer's breaker (SPEC §23): its counts, and why it tripped. */
  reviewBreaker?: ReviewBreaker;
  /** Calls the reviewer denied that the person allowed once (review/allow-once.ts), until made. */
  allowedOnce?: string[];
}

export interface ThreadAgentRecord {
  name: string;
  label: string;
  sessionId?: string;
}

export interface QueuedMessage {
  id: string;
  text: string;
  createdAt: string;
}

export function newThreadState(id: string): ThreadState {
  return {
    id,
    messages: [],
    contextStart: 0,
    todos: [],
    usage: { ...ZERO_USAGE },
    guard: {},
    files: { largeResults: { files: {} }, history: { files: {} } },
  };
}

/**
 * Where the person answered, when not in the window showing the thread: a terminal (`deepdesk
 * run`, `deepdesk attach`), or a client of the Agent Protocol (`answeredBy` names it).
 */
export type AnsweredIn = 'terminal' | 'protocol';

export type ApprovalDecision =
  | { type: 'approve'; answeredIn?: AnsweredIn; answeredBy?: string }
  | { type: 'edit'; args: Record<string, unknown>; answeredIn?: AnsweredIn; answeredBy?: string }
  | { type: 'reject'; message?: string; answeredIn?: AnsweredIn; answeredBy?: string }
  | { type: 'respond'; message: string };

export interface ApprovalRequest {
  threadId: string;
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  /** Why it needs approval, in words for the person: `reasonWords(why)`. */
  reason: string;
  /** Why it needs approval, as data (the window says it from this). */
  why?: ApprovalWhy;
  /**
   * Where the call's path really leads when a symlink takes it elsewhere: a virtual path,
   * or a real path followed by `(outside the project folder)`. For the person only.
   */
  resolvedTarget?: string;
  /** The diff a write would make (a sensitive write's, SPEC §23 (5)): for a command, its layer's of that file. */
  diff?: string;
  /** An execute that asks to run outside the sandbox, with the model's reason for it. */
  outsideSandbox?: { reason: string };
  /** Set when another agent of the thread asks over ACP (SPEC §22): its name, as the card, `run`'s prompt and `attach` say it. */
  agent?: string;
  /** Set when a subagent asks: the task call it runs under. */
  parentToolCallId?: string;
  /**
   * Set when a subagent asks: the task calls from the thread's own agent down to it, so a
   * subagent's call is told apart from another's with the same id (threadId is always the
   * thread the person sees).
   */
  callPath?: string[];
}

/** Which hook did something (its command and the file that declares it). */
export interface HookRef {
  command: string;
  file: string;
}

/** What became of a fan-out's parts (SPEC §26 honest counts). */
export interface FanOutCounts {
  total: number;
  finished: number;
  failed: number;
  paused: number;
  notStarted: number;
  /** `12 of 30 finished, 16 failed (quota), 2 not started`. */
  line: string;
}

/**
 * `budget`: stopped before a model call that would have crossed a budget (SPEC §17); `quota`:
 * a provider said the account is out of quota or credit, here or in a subagent (SPEC §26).
 */
export type RunStopReason = 'completed' | 'aborted' | 'error' | 'max_steps' | 'budget' | 'quota';

interface EventBase {
  threadId: string;
  /** Present for a subagent's events: the id of the `task` call it runs under. */
  parentToolCallId?: string;
}

export type AgentEvent = EventBase &
  (
    | { type: 'text'; text: string }
    | { type: 'tool_call'; id: string; name: string; args: unknown; parseError?: string }
    /** `change`: what a write or edit did to its file (created or not, the hunks), for the window's card; the facts: how a command ended, why it did not run, where a large result went. */
    | ({ type: 'tool_result'; id: string; name: string; output: string; isError: boolean; image?: { mimeType: string }; change?: FileChangeSummary } & ToolResultFacts)
    /** `hook`: the hook that decided (status `denied`: blocked by it; `edited`: its `updatedInput` is what runs). */
    | { type: 'approval'; id: string; name: string; args: unknown; status: 'pending' | 'reviewing' | 'approved' | 'edited' | 'rejected' | 'responded' | 'denied'; reason: string; why?: ApprovalWhy; hook?: HookRef; answeredIn?: AnsweredIn; answeredBy?: string; decidedBy?: DecidedBy; review?: ReviewVerdict; reviewFailed?: string }
    | { type: 'todos'; todos: Todo[] }
    | { type: 'summarized'; archivePath: string; summarizedMessages: number; summary: string }
    | { type: 'usage'; usage: UsageTotals; total: UsageTotals; contextTokens: number; contextWindow: number }
    | { type: 'checkpoint'; id: string; files: CheckpointFile[] }
    /** The run failed; `status`: the provider's HTTP status when it answered with one (401: the key was refused). */
    /** `refused`: a UserPromptSubmit hook kept the person's message out (it was not sent; nothing to retry). */
    /**
     * `problem`: a model call that could not be made (server down, no such host, a refused
     * key…) in plain words, with what to check; `message` keeps the technical text. The app
     * may add the way to the fix in its own words (`settings`: it is in Settings) and keep
     * the technical text as `detail`.
     */
    /** `budget`: a budget stopped the run before its next model call (the message says which and how much). */
    | { type: 'error'; message: string; status?: number; refused?: boolean; problem?: ModelProblem; detail?: string; settings?: boolean; budget?: boolean }
    /** A message of the person's, now in the history: one queued during the run (`queuedId`), or the one an agent host's run started with. */
    | { type: 'user_message'; text: string; queuedId?: string }
    /** The thread's queued messages changed (the app sends this; the loop never does). */
    | { type: 'queued'; queued: QueuedMessage[] }
    /** A call waits at a cap (SPEC §26 state `budget`: `line` names it; `scope` and `key` where it is raised); `line` absent: it went on. */
    | { type: 'paused'; line?: string; scope?: string; key?: string; cap?: number }
    /** A note for the model went into the history (e.g. that the person restored files); `text` is what the window shows. */
    | { type: 'note'; id: string; kind: MessageNote['kind']; text: string; checkpointId?: string }
    /**
     * A hook (SPEC §11) did something the person must see: `error` (it failed: another exit
     * code, a timeout; nothing was blocked), `blocked` (a prompt it refused, a result it
     * flagged). `toolCallId`: the call it ran for.
     */
    | { type: 'hook'; event: string; outcome: 'error' | 'blocked'; message: string; hook: HookRef; toolCallId?: string }
    /** The thread's history was rewritten (its conversation rewound or put back): reload it (the app sends this). */
    | { type: 'rewound' }
    /** The model call failed and is retried after `delayMs` (attempt counts the next one). */
    | { type: 'retry'; attempt: number; maxAttempts: number; delayMs: number; message: string }
    /** Lines a running `execute` printed since the last such event (plain text, for its card). */
    | { type: 'tool_output'; id: string; chunk: string }
    /** The thread's goal changed (SPEC §21): started, checked by the gate, ended. */
    | { type: 'goal'; goal: GoalJson }
    /** `usage`: what this run of the thread's own agent used and cost, subagents and summaries included (SPEC §17). */
    /** `fanOut`: what the run's subagents came to (SPEC §26 honest counts), when it started any. */
    | { type: 'done'; text: string; reason: RunStopReason; usage?: UsageTotals; fanOut?: FanOutCounts }
  );

/** A file a checkpoint recorded (`checkpoint` event): its virtual path and what happened to it. */
export interface CheckpointFile {
  path: string;
  status: 'added' | 'modified' | 'deleted';
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** An event before the loop stamps it with its thread id. */
export type AgentEventBody = DistributiveOmit<AgentEvent, 'threadId'>;

export type { ChatMessage, ContentPart };

/**
 * Abort reason for an app shutdown (not a Stop): calls still waiting for approval keep
 * waiting, unanswered, so the run resumes after the restart.
 */
export const SHUTDOWN = new Error('Deepdesk is shutting down');

export function isShutdown(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason === SHUTDOWN;
}
