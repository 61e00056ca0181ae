// A Deepdesk thread as the reference server reports a thread and its states (SPEC §19): the
// Thread object, and one ThreadState per completed turn (a person's message and all that
// answered it), built from the stored messages alone. A checkpoint id says how many messages
// its state holds, so a state is found again without reading anything but the thread.

import type { GoalJson } from '../../../core/goals/goal';
import { createHash } from 'node:crypto';
import { isPersonMessage } from '../../../core/agent/notes';
import type { Todo } from '../../../core/agent/types';
import type { ChatMessage } from '../../../core/models/types';
import { DEEPDESK_GRAPH_ID, type ProtocolInterrupt, type ProtocolThreadStatus } from './context';
import { toLangChainMessages, type LangChainMessage } from './messages';
import { JsonArrayText } from '../../../core/text/json-chunks';
import type { ProtocolThreadRecord, ThreadMetadata } from './protocol-threads';
import type { ProtocolFile } from './thread-files';

/** Where a paused run waits, as Deep Agents' human-in-the-loop middleware names its node. */
export const INTERRUPT_NODE = 'HumanInTheLoopMiddleware.after_model';

export interface ProtocolCheckpoint {
  thread_id: string;
  checkpoint_ns: '';
  checkpoint_id: string;
  checkpoint_map: null;
}

export interface ProtocolTask {
  id: string;
  name: string;
  path: string[];
  error: null;
  interrupts: ProtocolInterrupt[];
  checkpoint: null;
  state: null;
  result: null;
}

export interface ProtocolThreadState {
  /** `todos` and `files` only in the newest state: Deepdesk keeps a thread's todos and files, not their history. */
  values: { messages?: LangChainMessage[]; todos?: Todo[]; files?: Record<string, ProtocolFile>; goal?: GoalJson };
  next: string[];
  tasks: ProtocolTask[];
  metadata?: ThreadMetadata;
  created_at: string | null;
  checkpoint: ProtocolCheckpoint | null;
  parent_checkpoint: ProtocolCheckpoint | null;
}

export interface ProtocolThread {
  thread_id: string;
  created_at: string;
  updated_at: string;
  metadata: ThreadMetadata;
  status: ProtocolThreadStatus;
  config: Record<string, never>;
  values?: { messages: LangChainMessage[]; todos: Todo[]; files: Record<string, ProtocolFile>; goal?: GoalJson };
  interrupts?: Record<string, ProtocolInterrupt[]>;
}

/** A UUID-shaped id derived from `name`, whose last 12 hex digits are `tail` when given. */
function derivedUuid(name: string, tail?: number): string {
  const h = createHash('sha1').update(name).digest('hex');
  const last = tail === undefined ? h.slice(20, 32) : tail.toString(16).padStart(12, '0');
  const variant = (8 | (parseInt(h[16]!, 16) & 3)).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${last}`;
}

/** The id of the thread's state holding its first `count` messages. */
export function checkpointId(threadId: string, count: number): string {
  return derivedUuid(`${threadId}\0checkpoint`, count);
}

/** The message count a checkpoint id of this thread stands for; undefined for any other id. */
export function checkpointCount(threadId: string, id: string): number | undefined {
  const match = /-([0-9a-f]{12})$/.exec(id);
  if (match === null) return undefined;
  const count = parseInt(match[1]!, 16);
  return checkpointId(threadId, count) === id ? count : undefined;
}

function taskId(threadId: string, count: number): string {
  return derivedUuid(`${threadId}\0task\0${count}`);
}

/** The message counts at which the thread's turns end, oldest first: a state for each. */
export function turnEnds(messages: readonly ChatMessage[]): number[] {
  const ends: number[] = [];
  for (let i = 1; i < messages.length; i++) if (isPersonMessage(messages[i]!)) ends.push(i);
  if (messages.length > 0) ends.push(messages.length);
  return ends;
}

/** A Deepdesk thread as read for the protocol: its messages once, and what the thread routes know of it. */
export interface ThreadView extends ProtocolThreadRecord {
  status: ProtocolThreadStatus;
  interrupts: ProtocolInterrupt[];
  /** Undefined for a thread that has not run yet (no Deepdesk thread). */
  messages?: readonly ChatMessage[];
  /** The thread's todos (read with its messages). */
  todos?: readonly Todo[];
  /** The thread's folder (undefined before its first run). */
  folder?: string;
  /** The files the thread wrote, as they are now (read with its messages: thread-files.ts). */
  files?: Record<string, ProtocolFile>;
  /** The thread's goal (SPEC §21): in the newest state's values as `goal`. */
  goal?: GoalJson;
}

export function threadJson(view: ThreadView, withValues: boolean): ProtocolThread {
  const thread: ProtocolThread = {
    thread_id: view.threadId,
    created_at: view.createdAt,
    updated_at: view.updatedAt,
    metadata: view.metadata,
    status: view.status,
    config: {},
  };
  if (view.messages === undefined) return thread;
  if (withValues) thread.values = { messages: toLangChainMessages(view.threadId, view.messages), todos: [...(view.todos ?? [])], files: { ...view.files }, ...goalOf(view) };
  thread.interrupts = view.interrupts.length === 0 ? {} : { [taskId(view.threadId, view.messages.length)]: view.interrupts };
  return thread;
}

/** The reference's state of a thread that has no checkpoint yet. */
function emptyState(): ProtocolThreadState {
  return { values: {}, next: [], tasks: [], created_at: null, checkpoint: null, parent_checkpoint: null };
}

/**
 * The thread's states, newest first: the state after each turn (the newest holds every
 * message and the pending interrupts). `atMost`: the newest state holding no more than that
 * many messages comes first.
 */
export function threadStates(view: ThreadView, options: { atMost?: number; limit?: number } = {}): ProtocolThreadState[] {
  if (view.messages === undefined || view.messages.length === 0) return [];
  const messages = toLangChainMessages(view.threadId, view.messages);
  const ends = turnEnds(view.messages);
  const states: ProtocolThreadState[] = [];
  for (let k = ends.length - 1; k >= 0 && states.length < (options.limit ?? Infinity); k--) {
    const count = ends[k]!;
    if (options.atMost !== undefined && count > options.atMost) continue;
    states.push(stateAt(view, messages, ends, k));
  }
  return states;
}

/**
 * The same state as latestState, its messages given as their JSON text (messages.ts's
 * LangChainMessagesText, read one at a time from the store): `view` carries no messages.
 */
export function latestStateOfText(view: ThreadView, messages: { json: JsonArrayText; count: number; ends: readonly number[] }): ProtocolThreadState {
  if (messages.count === 0) return { ...emptyState(), values: { messages: [], todos: [...(view.todos ?? [])], files: { ...view.files } } };
  return stateAt(view, messages.json, messages.ends, messages.ends.length - 1);
}

/** The thread's newest state (the reference's empty state for a thread that has not run). */
export function latestState(view: ThreadView): ProtocolThreadState {
  return threadStates(view, { limit: 1 })[0] ?? (view.messages === undefined ? emptyState() : { ...emptyState(), values: { messages: [], todos: [...(view.todos ?? [])], files: { ...view.files } } });
}

function goalOf(view: ThreadView): { goal?: GoalJson } {
  return view.goal !== undefined ? { goal: view.goal } : {};
}

/** `messages`: the thread's, or the JSON text of all of them (for its newest state only). */
function stateAt(view: ThreadView, all: readonly LangChainMessage[] | JsonArrayText, ends: readonly number[], k: number): ProtocolThreadState {
  const count = ends[k]!;
  const newest = k === ends.length - 1;
  if (all instanceof JsonArrayText && !newest) throw new Error('the JSON text of the messages stands for the newest state only');
  // The text is written by jsonChunks as it is (JSON.stringify parses it back): the same JSON as the messages.
  const messages = all instanceof JsonArrayText ? (all as unknown as LangChainMessage[]) : all.slice(0, count);
  const interrupts = newest ? view.interrupts : [];
  const checkpoint = (n: number): ProtocolCheckpoint => ({ thread_id: view.threadId, checkpoint_ns: '', checkpoint_id: checkpointId(view.threadId, n), checkpoint_map: null });
  return {
    values: newest ? { messages, todos: [...(view.todos ?? [])], files: { ...view.files }, ...goalOf(view) } : { messages },
    next: interrupts.length > 0 ? [INTERRUPT_NODE] : [],
    tasks:
      interrupts.length > 0
        ? [{ id: taskId(view.threadId, count), name: INTERRUPT_NODE, path: ['__pregel_pull', INTERRUPT_NODE], error: null, interrupts, checkpoint: null, state: null, result: null }]
        : [],
    metadata: { source: 'loop', step: k, parents: {}, graph_id: view.metadata.graph_id ?? DEEPDESK_GRAPH_ID, assistant_id: view.metadata.assistant_id ?? DEEPDESK_GRAPH_ID },
    // Deepdesk keeps no time per message: only the newest state's is known (the thread's last save).
    created_at: newest ? view.updatedAt : null,
    checkpoint: checkpoint(count),
    parent_checkpoint: k > 0 ? checkpoint(ends[k - 1]!) : null,
  };
}
