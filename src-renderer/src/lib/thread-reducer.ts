// Folds a thread's saved items (threads.get) and its live AgentEvents into what the
// conversation shows. Pure: no React, no transport, so it is unit-tested on its own.
//
// Items stay in one flat list in arrival order; a subagent's items carry the id of the
// `task` call they run under (`parent`) and are nested under that card when rendered.

import type { AgentEventTable, AgentEventType, ApprovalWhyDto, ToolResultFactsDto, DisplayItem, SentAttachment, FileChangeDto, PendingApproval, QueuedMessageDto, ThreadPage, ThreadView, GoalJsonDto, AgentEventDto } from '../../../src-main/app/contract';
import type { RawAgentEvent, Todo, UsageTotals } from './agent-event';
import { approvalEvents, withApproval } from './thread-reducer/approvals';
import { push, updateTool, withParent, type EventReducer } from './thread-reducer/items';
import { messageEvents, withUserMessage } from './thread-reducer/messages';
import { runEvents } from './thread-reducer/run';
import { factsOf, fromDecided, toolEvents, unfinished } from './thread-reducer/tools';

type ApprovalEvent = Extract<AgentEventDto, { type: 'approval' }>;
export type ApprovalStatus = ApprovalEvent['status'];
/** Who decided a call (SPEC §23): `rule`, `mode`, `sandbox`, `hook`, `reviewer` or `person`. */
export type DecidedBy = NonNullable<ApprovalEvent['decidedBy']>;
export type ReviewVerdictDto = NonNullable<ApprovalEvent['review']>;

interface ItemBase {
  key: string;
  /** The `task` call this item runs under (subagent activity); undefined at top level. */
  parent?: string;
}

export interface UserItem extends ItemBase {
  kind: 'user';
  text: string;
  /** Files attached to the message (see contract/attachments.ts). */
  attachments?: ShownAttachment[];
}

/** An attachment of a sent message: `index` (its message's) to fetch its bytes, or `data` when the window still has them. */
export interface ShownAttachment extends SentAttachment {
  index?: number;
  data?: string;
}

export interface AssistantItem extends ItemBase {
  kind: 'assistant';
  text: string;
  /** True while text deltas may still arrive. */
  streaming: boolean;
}

/** `ToolResultFactsDto`: how a command ended, why the call did not run, where a large result went (core's facts, never parsed from the output). */
export interface ToolItem extends ItemBase, ToolResultFactsDto {
  kind: 'tool';
  id: string;
  name: string;
  args: unknown;
  parseError?: string;
  output?: string;
  isError?: boolean;
  image?: { mimeType: string };
  approval?: ApprovalStatus;
  approvalReason?: string;
  /** `approvalReason` as data: the card says it from this. */
  approvalWhy?: ApprovalWhyDto;
  /** Who decided the call, and the reviewer's verdict when it did (SPEC §23). */
  decidedBy?: DecidedBy;
  review?: ReviewVerdictDto;
  /** Why the reviewer could not answer (the person was asked instead). */
  reviewFailed?: string;
  /** The approval was answered in a terminal (`deepdesk run`, `deepdesk attach`), not in this window. */
  answeredInTerminal?: boolean;
  /** The approval was answered by a client of the Agent Protocol: who, in words ('' when it did not say). */
  answeredOverProtocol?: string;
  /** The person edited the call before it ran: `args` are what ran, these what the agent proposed. */
  edited?: boolean;
  /** The edit was a hook's `updatedInput`, not the person's. */
  editedByHook?: boolean;
  /** The hook that blocked this call (its command), when one did. */
  blockedByHook?: string;
  originalArgs?: unknown;
  /** When it started running here (ms since epoch), for the elapsed time. */
  startedAt?: number;
  /** The end of its output while it runs, when the events stream it (`tool_output`). */
  liveOutput?: string;
  /** What a write or edit did to its file (created or not, the real hunks). */
  change?: FileChangeDto;
  /** Loaded from a page that cut its output or arguments: threads.toolCall with this message index has them in full. */
  omitted?: { index: number; outputChars: number; args: boolean };
}

export interface SummaryItem extends ItemBase {
  kind: 'summary';
  archivePath: string;
  summarizedMessages: number;
  text: string;
}

export interface ErrorItem extends ItemBase {
  kind: 'error';
  message: string;
  /** The run failed (not just a send): running it again can help. */
  retryable?: boolean;
  /** The fix is in Settings (no model or API key, a key the provider refused, a server not reached): the notice offers them. */
  settings?: boolean;
  /** The technical text behind a message in plain words (e.g. `connect ECONNREFUSED 127.0.0.1:1234`). */
  detail?: string;
  /** A budget stopped the run (SPEC §17): budgets and prices are set in Settings. */
  budget?: boolean;
  /** The window's own (a send or retry refused), not the thread's: it goes once a message is sent. */
  local?: boolean;
}

/** A provider call failed and is retried after a wait. */
export interface RetryNotice {
  attempt: number;
  maxAttempts: number;
  /** When the next attempt starts (ms since epoch). */
  at: number;
  message: string;
}

export interface NoticeItem extends ItemBase {
  kind: 'notice';
  text: string;
  /** A note the agent was given about a restore of files (`checkpointId`: that restore). */
  restore?: { checkpointId?: string };
  /** The reviewer's breaker tripped (SPEC §23): the person answers again until review is turned back on. */
  reviewer?: boolean;
}

export type ConvItem = UserItem | AssistantItem | ToolItem | SummaryItem | ErrorItem | NoticeItem;

export interface PausedNotice {
  line: string;
  scope?: string;
  key?: string;
  cap?: number;
}

export interface ThreadDisplayState {
  threadId: string | null;
  items: ConvItem[];
  todos: Todo[];
  /** Each subagent's latest todo list, by its task call id. */
  subTodos: Record<string, Todo[]>;
  usage: UsageTotals | null;
  /** What the thread's latest run used (its cost when every price was known). */
  lastRun: UsageTotals | null;
  contextTokens: number;
  contextWindow: number;
  running: boolean;
  /** Next key number; keys only need to be unique within one state. */
  seq: number;
  /** Scopes ('' = top level, else a task id) that streamed text since their run began. */
  textSeen: Record<string, boolean>;
  /** Messages sent during the run, waiting for the current step to end. */
  queued: QueuedMessageDto[];
  /** The provider retry being waited out, until the model answers or the run ends. */
  retry: RetryNotice | null;
  /** A call waiting at a cap (SPEC §26), until it goes on or the run ends: its line, and the cap to raise. */
  paused?: PausedNotice | null;
  /** Where the loaded items start in the thread (cursor 0: at its beginning). */
  page: ThreadPage;
  /** The thread's goal (SPEC §21), as the header shows it. */
  goal?: GoalJsonDto | null;
}

export type ThreadAction =
  | { type: 'reset'; threadId: string | null }
  | { type: 'load'; view: ThreadView }
  /** Earlier items (threads.earlier from `cursor`) go before the loaded ones, unless the view moved on meanwhile. */
  | { type: 'earlier'; threadId: string; cursor: number; items: readonly DisplayItem[]; before: number; approvals: readonly PendingApproval[] }
  | { type: 'event'; event: RawAgentEvent }
  /** Several live events at once (the window applies them once per animation frame). */
  | { type: 'events'; events: readonly RawAgentEvent[] }
  | { type: 'local_user'; text: string; attachments?: ShownAttachment[] }
  | { type: 'local_error'; message: string; settings?: boolean }
  /** The person decided an approval: show it on the card before the agent's event says so. */
  | { type: 'local_approval'; toolCallId: string; parent?: string; status: ApprovalStatus; args?: unknown }
  /** A send that turned out to be queued: the optimistic user item goes (the queue shows it). */
  | { type: 'unlocal_user'; text: string }
  /** A message went through: the window's own errors about earlier sends go. */
  | { type: 'sent' }
  | { type: 'set_running'; running: boolean }
  /** The thread's costs read again (a price set in Settings reaches the calls made without one). */
  | { type: 'costs'; usage: ThreadView['usage']; lastRun: ThreadView['lastRun'] };

export function emptyThreadState(threadId: string | null = null): ThreadDisplayState {
  return { threadId, items: [], todos: [], subTodos: {}, usage: null, lastRun: null, contextTokens: 0, contextWindow: 0, running: false, seq: 0, textSeen: {}, queued: [], retry: null, page: { cursor: 0, turnsBefore: 0 } };
}

export function threadReducer(state: ThreadDisplayState, action: ThreadAction): ThreadDisplayState {
  switch (action.type) {
    case 'reset':
      return emptyThreadState(action.threadId);
    case 'load':
      return loadView(action.view);
    case 'earlier':
      return prependEarlier(state, action);
    case 'event':
      return applyEvent(state, action.event);
    case 'events':
      return action.events.reduce(applyEvent, state);
    case 'local_user':
      return { ...withUserMessage(state, action.text, action.attachments), running: true };
    case 'local_error':
      return push(state, { kind: 'error', key: '', message: action.message, local: true, ...(action.settings ? { settings: true } : {}) });
    case 'local_approval':
      return updateTool(state, action.toolCallId, action.parent, (tool) => withApproval(tool, action.status, action.args), unfinished);
    case 'unlocal_user': {
      const index = state.items.findLastIndex((i) => i.kind === 'user' && i.parent === undefined && i.text === action.text);
      return index < 0 ? state : { ...state, items: state.items.filter((_, i) => i !== index) };
    }
    case 'sent': {
      const items = state.items.filter((i) => !(i.kind === 'error' && i.local === true));
      return items.length === state.items.length ? state : { ...state, items };
    }
    case 'set_running':
      return action.running === state.running ? state : { ...state, running: action.running };
    case 'costs':
      return { ...state, usage: action.usage, lastRun: action.lastRun ?? null };
  }
}

/** Top-level items, and each task call's nested items by its id. */
export function groupItems(items: readonly ConvItem[]): { top: ConvItem[]; children: Map<string, ConvItem[]> } {
  const top: ConvItem[] = [];
  const children = new Map<string, ConvItem[]>();
  for (const item of items) {
    if (item.parent === undefined) top.push(item);
    else if (children.has(item.parent)) children.get(item.parent)?.push(item);
    else children.set(item.parent, [item]);
  }
  return { top, children };
}

// ------------------------------------------------------------------ loading

function loadView(view: ThreadView): ThreadDisplayState {
  const { todos, usage, contextTokens, contextWindow, queued, page } = view;
  const shown = { todos, usage, contextTokens, contextWindow, queued, page, lastRun: view.lastRun ?? null, running: view.thread.running, goal: view.goal ?? null };
  let state: ThreadDisplayState = { ...emptyThreadState(view.thread.id), ...shown };
  for (const item of view.items) state = push(state, fromDisplayItem(item));
  // A stall stopped the run with an error the history does not keep: said again, as the run said it (SPEC §21).
  if (view.goal?.state === 'stalled' && !view.thread.running) state = push(state, { kind: 'error', key: '', message: `The goal stopped: ${view.goal.reason ?? 'stalled'}` });
  if (view.streamingText !== '') {
    state = { ...push(state, { kind: 'assistant', key: '', text: view.streamingText, streaming: true }), textSeen: { ...state.textSeen, '': true } };
  }
  return markPending(state, view.approvals);
}

function markPending(state: ThreadDisplayState, approvals: readonly PendingApproval[]): ThreadDisplayState {
  for (const approval of approvals) {
    state = updateTool(state, approval.toolCallId, approval.parentToolCallId, (tool) => ({ ...tool, approval: 'pending', approvalReason: approval.reason, ...(approval.why !== undefined ? { approvalWhy: approval.why } : {}) }));
  }
  return state;
}

/**
 * The page before the loaded items. It applies only on the page it was asked from: a reply
 * that comes after another one, or after the thread was loaded again, would repeat items.
 */
function prependEarlier(state: ThreadDisplayState, action: Extract<ThreadAction, { type: 'earlier' }>): ThreadDisplayState {
  if (action.threadId !== state.threadId || action.cursor !== state.page.cursor || action.before >= action.cursor) return state;
  const earlier = action.items.map((item, i) => ({ ...fromDisplayItem(item), key: `i${state.seq + i}` }));
  // The person's messages in these items were before the loaded ones: they are counted off.
  const turns = earlier.filter((i) => i.kind === 'user' && i.parent === undefined).length;
  const page = { cursor: action.before, turnsBefore: Math.max(0, state.page.turnsBefore - turns) };
  const next = { ...state, items: [...earlier, ...state.items], seq: state.seq + earlier.length, page };
  // Approvals waiting on calls of this page (those of the loaded part are marked already).
  const ids = new Set(earlier.flatMap((i) => (i.kind === 'tool' ? [i.id] : [])));
  return markPending(next, action.approvals.filter((a) => ids.has(a.toolCallId)));
}

function fromDisplayItem(item: DisplayItem): ConvItem {
  switch (item.kind) {
    case 'user':
      return { kind: 'user', key: '', text: item.text, ...(item.attachments ? { attachments: item.attachments.map((a) => ({ ...a, index: item.index })) } : {}) };
    case 'assistant':
      return withParent({ kind: 'assistant', key: '', text: item.text, streaming: false }, item.parentToolCallId);
    case 'tool': {
      const tool: ToolItem = { kind: 'tool', key: '', id: item.id, name: item.name, args: item.args, ...factsOf(item) };
      if (item.output !== undefined) tool.output = item.output;
      if (item.isError !== undefined) tool.isError = item.isError;
      if (item.change !== undefined) tool.change = item.change;
      if (item.omitted !== undefined) tool.omitted = { index: item.index, ...item.omitted };
      if (item.edited) Object.assign(tool, { edited: true, originalArgs: item.originalArgs, ...(item.editedByHook ? { editedByHook: true } : {}) });
      return withParent(fromDecided(tool), item.parentToolCallId);
    }
    case 'summary':
      return { kind: 'summary', key: '', archivePath: item.archivePath, summarizedMessages: item.summarizedMessages, text: item.text };
    case 'notice':
      return { kind: 'notice', key: '', text: item.text, restore: item.checkpointId !== undefined ? { checkpointId: item.checkpointId } : {} };
  }
}

// ------------------------------------------------------------------ live events

/** One reducer per kind, in families as the contract groups them (a new kind does not compile until it has one). */
const REDUCERS: AgentEventTable<EventReducer> = { ...runEvents, ...toolEvents, ...approvalEvents, ...messageEvents };
const PROGRESS: ReadonlySet<string> = new Set<AgentEventType>(['text', 'tool_call', 'error', 'done', 'usage']);

function applyEvent(state: ThreadDisplayState, event: RawAgentEvent): ThreadDisplayState {
  if (state.threadId !== null && event.threadId !== state.threadId) return state;
  const parent = typeof event.parentToolCallId === 'string' && event.parentToolCallId !== '' ? event.parentToolCallId : undefined;
  // Anything the model produced (or the run ending) means the retry wait is over.
  if (state.retry !== null && parent === undefined && PROGRESS.has(event.type)) state = { ...state, retry: null };
  // An unknown kind changes nothing.
  return Object.hasOwn(REDUCERS, event.type) ? REDUCERS[event.type as AgentEventType](state, event, parent) : state;
}
