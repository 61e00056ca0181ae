// Folds a thread's saved items (threads.get) and its live AgentEvents into what the
// conversation shows. Pure: no React, no transport, so it is unit-tested on its own.
//
// Items stay in one flat list in arrival order; a subagent's items carry the id of the
// `task` call they run under (`parent`) and are nested under that card when rendered.

import { approvalWhySchema, reviewVerdictSchema, fileChangeSchema, unhandledEvent, type AgentEventType, splitAttachmentLines, type ApprovalWhyDto, toolResultFactsSchema, type ToolResultFactsDto, type DisplayItem, type SentAttachment, type FileChangeDto, type PendingApproval, type QueuedMessageDto, type ThreadPage, type ThreadView, type GoalJsonDto, goalJsonSchema, type AgentEventDto } from '../../../src-main/app/contract';
import { num, str, todosOf, usageOf, type RawAgentEvent, type Todo, type UsageTotals } from './agent-event';

export type ApprovalStatus = 'pending' | 'reviewing' | 'approved' | 'edited' | 'rejected' | 'responded' | 'denied';
type ApprovalEvent = Extract<AgentEventDto, { type: 'approval' }>;
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
  return {
    threadId,
    items: [],
    todos: [],
    subTodos: {},
    usage: null,
    lastRun: null,
    contextTokens: 0,
    contextWindow: 0,
    running: false,
    seq: 0,
    textSeen: {},
    queued: [],
    retry: null,
    page: { cursor: 0, turnsBefore: 0 },
  };
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
      if (state.threadId !== null && action.event.threadId !== state.threadId) return state;
      return applyEvent(state, action.event);
    case 'events':
      return action.events.reduce((acc, event) => (acc.threadId !== null && event.threadId !== acc.threadId ? acc : applyEvent(acc, event)), state);
    case 'local_user': {
      const next = finishStreaming(state, undefined, true);
      return {
        ...push(next, { kind: 'user', key: '', text: action.text, ...(action.attachments?.length ? { attachments: action.attachments } : {}) }),
        running: true,
        textSeen: { ...next.textSeen, '': false },
      };
    }
    case 'local_error':
      return push(state, { kind: 'error', key: '', message: action.message, local: true, ...(action.settings ? { settings: true } : {}) });
    case 'local_approval':
      return updateTool(
        state,
        action.toolCallId,
        action.parent,
        (tool) => ({ ...withApproval(tool, action.status, action.args), ...(action.status === 'approved' || action.status === 'edited' ? { startedAt: Date.now() } : {}) }),
        (t) => t.output === undefined,
      );
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
    if (item.parent === undefined) {
      top.push(item);
      continue;
    }
    const list = children.get(item.parent);
    if (list) list.push(item);
    else children.set(item.parent, [item]);
  }
  return { top, children };
}

// ------------------------------------------------------------------ loading

function loadView(view: ThreadView): ThreadDisplayState {
  let state: ThreadDisplayState = {
    ...emptyThreadState(view.thread.id),
    todos: view.todos,
    usage: view.usage,
    lastRun: view.lastRun ?? null,
    contextTokens: view.contextTokens,
    contextWindow: view.contextWindow,
    running: view.thread.running,
    queued: view.queued,
    page: view.page,
    goal: view.goal ?? null,
  };
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
      const tool: ToolItem = { kind: 'tool', key: '', id: item.id, name: item.name, args: item.args };
      if (item.output !== undefined) tool.output = item.output;
      if (item.isError !== undefined) tool.isError = item.isError;
      Object.assign(tool, factsOf(item));
      if (item.change !== undefined) tool.change = item.change;
      if (item.omitted !== undefined) tool.omitted = { index: item.index, ...item.omitted };
      if (item.edited) {
        tool.edited = true;
        tool.originalArgs = item.originalArgs;
        if (item.editedByHook) tool.editedByHook = true;
      }
      return withParent(fromDecided(tool), item.parentToolCallId);
    }
    case 'summary':
      return { kind: 'summary', key: '', archivePath: item.archivePath, summarizedMessages: item.summarizedMessages, text: item.text };
    case 'notice':
      return { kind: 'notice', key: '', text: item.text, restore: item.checkpointId !== undefined ? { checkpointId: item.checkpointId } : {} };
  }
}

// ------------------------------------------------------------------ live events

function applyEvent(state: ThreadDisplayState, event: RawAgentEvent): ThreadDisplayState {
  const parent = typeof event.parentToolCallId === 'string' && event.parentToolCallId !== '' ? event.parentToolCallId : undefined;
  // Anything the model produced (or the run ending) means the retry wait is over.
  if (state.retry !== null && parent === undefined && PROGRESS.has(event.type)) state = { ...state, retry: null };
  const scope = parent ?? '';
  // Every kind of the contract's union has its case (a new kind does not compile until it has one); an unknown one changes nothing.
  const type = event.type as AgentEventType;
  switch (type) {
    case 'text': {
      const text = str(event.text);
      if (text === '') return state;
      const seen = { ...state.textSeen, [scope]: true };
      const index = lastIndexInScope(state.items, parent);
      const last = index >= 0 ? state.items[index] : undefined;
      if (last?.kind === 'assistant' && last.streaming) {
        return { ...replaceAt(state, index, { ...last, text: last.text + text }), textSeen: seen };
      }
      return { ...push(state, withParent({ kind: 'assistant', key: '', text, streaming: true }, parent)), textSeen: seen };
    }
    case 'tool_call': {
      const id = str(event.id);
      const next = finishStreaming(state, parent);
      const existing = findTool(next.items, id, parent, (t) => t.output === undefined, true);
      const tool: ToolItem = { kind: 'tool', key: '', id, name: str(event.name, 'tool'), args: event.args, startedAt: Date.now() };
      if (typeof event.parseError === 'string') tool.parseError = event.parseError;
      if (existing >= 0) {
        const old = next.items[existing] as ToolItem;
        return replaceAt(next, existing, { ...old, name: tool.name, args: tool.args, ...(tool.parseError ? { parseError: tool.parseError } : {}) });
      }
      return push(next, withParent(tool, parent));
    }
    case 'tool_result': {
      const id = str(event.id);
      const patch = (tool: ToolItem): ToolItem => {
        const next: ToolItem = { ...tool, output: str(event.output), isError: event.isError === true };
        Object.assign(next, factsOf(event));
        const change = fileChangeSchema.safeParse(event.change);
        if (change.success) next.change = change.data;
        const image = event.image as { mimeType?: unknown } | undefined;
        if (image && typeof image.mimeType === 'string') next.image = { mimeType: image.mimeType };
        if (next.approval === 'pending') delete next.approval;
        delete next.liveOutput;
        return fromDecided(next);
      };
      if (findTool(state.items, id, parent, () => true) < 0) {
        state = push(state, withParent({ kind: 'tool', key: '', id, name: str(event.name, 'tool'), args: undefined }, parent));
      }
      return updateTool(state, id, parent, patch, (t) => t.output === undefined);
    }
    case 'approval': {
      const id = str(event.id);
      const status = APPROVAL_STATUSES.has(str(event.status)) ? (event.status as ApprovalStatus) : 'pending';
      const reason = str(event.reason);
      if (findTool(state.items, id, parent, () => true) < 0) {
        state = push(state, withParent({ kind: 'tool', key: '', id, name: str(event.name, 'tool'), args: event.args }, parent));
      }
      const restart = status === 'approved' || status === 'edited';
      // A hook's decision (SPEC §11): its `updatedInput` is an edit of its own; its deny names it.
      const hook = hookCommand(event.hook);
      return updateTool(state, id, parent, (tool) => ({
        ...withApproval(tool, status, event.args),
        approvalReason: reason || tool.approvalReason,
        ...whyOf(event.why, reason, tool),
        ...(restart ? { startedAt: Date.now() } : {}),
        ...(hook !== undefined && status === 'edited' ? { editedByHook: true } : {}),
        ...(hook !== undefined && status === 'denied' ? { blockedByHook: hook } : {}),
        ...reviewOf(event),
        ...(event.answeredIn === 'terminal' ? { answeredInTerminal: true } : {}),
        ...(event.answeredIn === 'protocol' ? { answeredOverProtocol: str(event.answeredBy) } : {}),
      }));
    }
    case 'tool_output': {
      // Streamed output of a running call, if the harness sends it: keep the end only.
      const chunk = str(event.chunk, str(event.text, str(event.output)));
      if (chunk === '') return state;
      return updateTool(state, str(event.id), parent, (tool) => ({ ...tool, liveOutput: ((tool.liveOutput ?? '') + chunk).slice(-LIVE_OUTPUT_CHARS) }), (t) => t.output === undefined);
    }
    case 'retry': {
      if (parent !== undefined) return state;
      return {
        ...state,
        retry: { attempt: num(event.attempt, 2), maxAttempts: num(event.maxAttempts, 0), at: Date.now() + num(event.delayMs), message: str(event.message) },
      };
    }
    case 'queued':
      return parent === undefined ? { ...state, queued: queuedOf(event.queued) } : state;
    case 'user_message': {
      if (parent !== undefined) return state;
      const next = finishStreaming(state, undefined, true);
      const queuedId = str(event.queuedId);
      const { text, attachments } = splitAttachmentLines(str(event.text));
      return {
        ...push(next, { kind: 'user', key: '', text, ...(attachments.length > 0 ? { attachments } : {}) }),
        queued: next.queued.filter((q) => q.id !== queuedId),
        textSeen: { ...next.textSeen, '': false },
      };
    }
    case 'note': {
      // A note the agent was given (a restore of files): shown where it went into the history.
      if (parent !== undefined) return state;
      const checkpointId = str(event.checkpointId);
      const about = event.kind === 'reviewer' ? { reviewer: true } : { restore: checkpointId !== '' ? { checkpointId } : {} };
      return push(finishStreaming(state, undefined), { kind: 'notice', key: '', text: str(event.text), ...about });
    }
    case 'todos': {
      const todos = todosOf(event.todos);
      if (parent === undefined) return { ...state, todos };
      return { ...state, subTodos: { ...state.subTodos, [parent]: todos } };
    }
    case 'summarized': {
      const next = finishStreaming(state, parent);
      return push(next, withParent({
        kind: 'summary',
        key: '',
        archivePath: str(event.archivePath),
        summarizedMessages: num(event.summarizedMessages),
        text: str(event.summary),
      }, parent));
    }
    case 'usage':
      if (parent !== undefined) return state;
      return {
        ...state,
        usage: usageOf(event.total ?? event.usage),
        contextTokens: num(event.contextTokens, state.contextTokens),
        contextWindow: num(event.contextWindow, state.contextWindow),
      };
    case 'hook': {
      // A hook that failed is told (nothing was blocked); a refused message leaves the conversation (it was not sent).
      if (str(event.outcome) === 'error') return push(state, withParent({ kind: 'notice', key: '', text: str(event.message) }, parent));
      if (str(event.event) === 'UserPromptSubmit' && parent === undefined) {
        const last = state.items.map((item) => item.kind).lastIndexOf('user');
        if (last >= 0) return { ...state, items: state.items.filter((_, i) => i !== last) };
      }
      return state;
    }
    case 'error':
      return push(
        state,
        withParent(
          {
            kind: 'error',
            key: '',
            message: str(event.message, 'Unknown error'),
            ...(parent === undefined && event.refused !== true ? { retryable: true } : {}),
            // The app says when the fix is in Settings (a server not reached, a refused key); a 401 or 403 always is,
            // and so is a budget's stop (budgets and prices are set there).
            ...(event.settings === true || event.budget === true || event.status === 401 || event.status === 403 ? { settings: true } : {}),
            ...(event.budget === true ? { budget: true } : {}),
            ...(typeof event.detail === 'string' && event.detail !== '' ? { detail: event.detail } : {}),
          },
          parent,
        ),
      );
    case 'done': {
      let next = finishStreaming(state, parent, parent === undefined);
      const text = str(event.text);
      // Nothing streamed in this window — but a thread loaded mid-run (its host's check waiting) may already show the answer.
      if (!next.textSeen[scope] && text.trim() !== '' && !answeredSinceAsked(next.items, parent, text)) {
        next = push(next, withParent({ kind: 'assistant', key: '', text, streaming: false }, parent));
      }
      next = { ...next, textSeen: { ...next.textSeen, [scope]: false } };
      if (parent !== undefined) return next;
      const reason = str(event.reason);
      // A stop is told by the note the app keeps in the thread (a reload shows it too).
      if (reason === 'max_steps') next = push(next, { kind: 'notice', key: '', text: 'Stopped: the step limit was reached.' });
      if (event.usage !== undefined) next = { ...next, lastRun: usageOf(event.usage) };
      // A budget's stop: its `error` event has said so in one line (with Open settings); only if none came, it is said here, once.
      const said = next.items.findLast((i) => i.parent === undefined);
      if (reason === 'budget' && !(said?.kind === 'error' && said.budget === true)) {
        next = push(next, { kind: 'error', key: '', message: 'Stopped: the budget was reached.', settings: true, budget: true });
      }
      return { ...next, running: false };
    }
    // The thread header shows the goal's state (SPEC §21).
    case 'goal':
      if (parent !== undefined) return state;
      {
        const goal = goalJsonSchema.safeParse(event.goal);
        return goal.success ? { ...state, goal: goal.data } : state;
      }
    // Told elsewhere: the Changes region follows checkpoints, the session reloads a rewound thread.
    case 'checkpoint':
    case 'rewound':
      return state;
    default:
      unhandledEvent(type);
      return state;
  }
}

/** An approval's reason as data, kept with its words: a new reason without valid data leaves none (its words are shown as written). */
function whyOf(value: unknown, reason: string, tool: ToolItem): { approvalWhy: ApprovalWhyDto | undefined } {
  const why = approvalWhySchema.safeParse(value);
  return { approvalWhy: why.success ? why.data : reason === '' ? tool.approvalWhy : undefined };
}

/** Who decided as the stored result says it (a result's facts, a loaded call's), as the approval events say it. */
function fromDecided(tool: ToolItem): ToolItem {
  const { decided } = tool;
  return decided === undefined ? tool : { ...tool, decidedBy: decided.by, ...(decided.review !== undefined ? { review: decided.review } : {}) };
}

/** Who decided, the reviewer's verdict and why it could not answer, as far as they are well formed. */
function reviewOf(event: RawAgentEvent): Pick<ToolItem, 'decidedBy' | 'review' | 'reviewFailed'> {
  const decidedBy = str(event.decidedBy);
  const review = reviewVerdictSchema.safeParse(event.review);
  return {
    ...(DECIDED_BY.has(decidedBy) ? { decidedBy: decidedBy as DecidedBy } : {}),
    ...(review.success ? { review: review.data } : {}),
    ...(typeof event.reviewFailed === 'string' && event.reviewFailed !== '' ? { reviewFailed: event.reviewFailed } : {}),
  };
}
const DECIDED_BY: ReadonlySet<string> = new Set<DecidedBy>(['rule', 'mode', 'sandbox', 'hook', 'reviewer', 'person']);

/** The facts a result carries (none when they are malformed). */
function factsOf(source: unknown): ToolResultFactsDto {
  const facts = toolResultFactsSchema.safeParse(source);
  return facts.success ? Object.fromEntries(Object.entries(facts.data).filter(([, value]) => value !== undefined)) : {};
}

const PROGRESS: ReadonlySet<string> = new Set<AgentEventType>(['text', 'tool_call', 'error', 'done', 'usage']);
const LIVE_OUTPUT_CHARS = 8000;

const APPROVAL_STATUSES = new Set(['pending', 'reviewing', 'approved', 'edited', 'rejected', 'responded', 'denied']);

function hookCommand(value: unknown): string | undefined {
  const command = (value as { command?: unknown } | null)?.command;
  return typeof command === 'string' ? command : undefined;
}

/** An "edited" decision: the card shows the arguments that run, and keeps what the agent proposed. */
function withApproval(tool: ToolItem, status: ApprovalStatus, args: unknown): ToolItem {
  if (status !== 'edited' || args === undefined) return { ...tool, approval: status };
  return { ...tool, approval: status, edited: true, originalArgs: tool.edited ? tool.originalArgs : tool.args, args };
}

function queuedOf(value: unknown): QueuedMessageDto[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((q: unknown) => {
    const item = q as { id?: unknown; text?: unknown; createdAt?: unknown };
    return typeof item.id === 'string' && typeof item.text === 'string' ? [{ id: item.id, text: item.text, createdAt: str(item.createdAt) }] : [];
  });
}

// ------------------------------------------------------------------ helpers

function withParent<T extends ConvItem>(item: T, parent: string | undefined): T {
  return parent === undefined ? item : { ...item, parent };
}

function push(state: ThreadDisplayState, item: ConvItem): ThreadDisplayState {
  return { ...state, items: [...state.items, { ...item, key: `i${state.seq}` }], seq: state.seq + 1 };
}

function replaceAt(state: ThreadDisplayState, index: number, item: ConvItem): ThreadDisplayState {
  const items = state.items.slice();
  items[index] = item;
  return { ...state, items };
}

/** Whether this answer is shown in the scope already, after the person's latest message. */
function answeredSinceAsked(items: readonly ConvItem[], parent: string | undefined, text: string): boolean {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.parent !== parent) continue;
    if (item.kind === 'user') return false;
    if (item.kind === 'assistant' && item.text.trim() === text.trim()) return true;
  }
  return false;
}

function lastIndexInScope(items: readonly ConvItem[], parent: string | undefined): number {
  for (let i = items.length - 1; i >= 0; i--) if (items[i]?.parent === parent) return i;
  return -1;
}

/** The latest tool item with this id in this scope (ids can repeat with some providers). */
function findTool(items: readonly ConvItem[], id: string, parent: string | undefined, accept: (tool: ToolItem) => boolean, strict = false): number {
  let fallback = -1;
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item?.kind !== 'tool' || item.id !== id) continue;
    if (item.parent === parent && accept(item)) return i;
    if (fallback < 0) fallback = i;
  }
  return strict ? -1 : fallback;
}

function updateTool(
  state: ThreadDisplayState,
  id: string,
  parent: string | undefined,
  patch: (tool: ToolItem) => ToolItem,
  prefer: (tool: ToolItem) => boolean = () => true,
): ThreadDisplayState {
  const index = findTool(state.items, id, parent, prefer);
  if (index < 0) return state;
  return replaceAt(state, index, patch(state.items[index] as ToolItem));
}

/** Marks streaming text as finished: in one scope, or everywhere. */
function finishStreaming(state: ThreadDisplayState, parent: string | undefined, everywhere = false): ThreadDisplayState {
  let changed = false;
  const items = state.items.map((item) => {
    if (item.kind !== 'assistant' || !item.streaming) return item;
    if (!everywhere && item.parent !== parent) return item;
    changed = true;
    return { ...item, streaming: false };
  });
  return changed ? { ...state, items } : state;
}
