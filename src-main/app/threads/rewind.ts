// Rewinding a thread's conversation to before one of the person's messages (the window's
// "Restore files and conversation"), and putting it back (Undo restore right after). Pure
// functions on the thread's state; the thread service saves the result.

import { isNote } from '../../core/agent/notes';
import type { ThreadState, Todo } from '../../core/agent/types';
import type { ChatMessage } from '../../core/models/types';

/** What a rewind took out of the state: enough to put it back as it was. */
export interface RewoundPart {
  index: number;
  messages: ChatMessage[];
  contextStart: number;
  summary?: string;
  compactedBefore?: number;
  mediaDroppedBefore?: number;
  todos: Todo[];
  /** The subagent runs of the calls taken out. */
  subagentRuns: Record<string, ChatMessage[]>;
}

/** Removes messages[index…] from the state (summary, compaction, todos and subagent runs follow) and returns them. */
export function cutConversation(state: ThreadState, index: number): RewoundPart {
  const removed = state.messages.slice(index);
  const callIds = new Set(removed.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : [])));
  const runs = Object.entries(state.subagentRuns ?? {});
  const part: RewoundPart = {
    index,
    messages: removed,
    contextStart: state.contextStart,
    ...(state.summary !== undefined ? { summary: state.summary } : {}),
    ...(state.compactedBefore !== undefined ? { compactedBefore: state.compactedBefore } : {}),
    ...(state.mediaDroppedBefore !== undefined ? { mediaDroppedBefore: state.mediaDroppedBefore } : {}),
    todos: state.todos,
    subagentRuns: Object.fromEntries(runs.filter(([id]) => callIds.has(id))),
  };
  state.messages = state.messages.slice(0, index);
  // A summary that stood in for messages that are gone no longer holds: the model sees what
  // is left verbatim (and it is summarized again if it is too long).
  if (state.contextStart > index) {
    state.contextStart = 0;
    delete state.summary;
    delete state.compactedBefore;
    delete state.mediaDroppedBefore;
  } else {
    if (state.compactedBefore !== undefined && state.compactedBefore > index) state.compactedBefore = index;
    if (state.mediaDroppedBefore !== undefined && state.mediaDroppedBefore > index) state.mediaDroppedBefore = index;
  }
  state.todos = todosAt(state.messages);
  if (state.subagentRuns) state.subagentRuns = Object.fromEntries(runs.filter(([id]) => !callIds.has(id)));
  return part;
}

/**
 * Puts a rewound conversation back, when nothing but notes was added since (the person
 * sent nothing, the agent did not run): the notes follow it. Returns false otherwise.
 */
export function putBackConversation(state: ThreadState, part: RewoundPart): boolean {
  if (state.messages.length < part.index) return false;
  const since = state.messages.slice(part.index);
  if (!since.every(isNote)) return false;
  state.messages = [...state.messages.slice(0, part.index), ...part.messages, ...since];
  state.contextStart = part.contextStart;
  if (part.summary !== undefined) state.summary = part.summary;
  else delete state.summary;
  if (part.compactedBefore !== undefined) state.compactedBefore = part.compactedBefore;
  else delete state.compactedBefore;
  if (part.mediaDroppedBefore !== undefined) state.mediaDroppedBefore = part.mediaDroppedBefore;
  else delete state.mediaDroppedBefore;
  state.todos = part.todos;
  if (Object.keys(part.subagentRuns).length > 0) state.subagentRuns = { ...state.subagentRuns, ...part.subagentRuns };
  return true;
}

/** Whether a stored value is a RewoundPart (it comes back from SQLite as JSON). */
export function isRewoundPart(value: unknown): value is RewoundPart {
  const v = value as Partial<RewoundPart> | null;
  return typeof v === 'object' && v !== null && typeof v.index === 'number' && Array.isArray(v.messages) && typeof v.contextStart === 'number' && Array.isArray(v.todos);
}

/** The todo list as the last successful write_todos in `messages` left it (empty when none). */
export function todosAt(messages: readonly ChatMessage[]): Todo[] {
  const failed = new Set(messages.flatMap((m) => (m.role === 'tool' && m.isError ? [m.toolCallId] : [])));
  const answered = new Set(messages.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])));
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'assistant') continue;
    for (const call of [...(m.toolCalls ?? [])].reverse()) {
      if (call.name !== 'write_todos' || !answered.has(call.id) || failed.has(call.id)) continue;
      const todos = (call.args as { todos?: unknown } | null)?.todos;
      if (!Array.isArray(todos)) continue;
      return todos.flatMap((t: { content?: unknown; status?: unknown }) =>
        typeof t?.content === 'string' && (t.status === 'pending' || t.status === 'in_progress' || t.status === 'completed') ? [{ content: t.content, status: t.status }] : [],
      );
    }
  }
  return [];
}
