// What the model sees of a thread: the summary (if any), the person's latest request,
// then the recent messages, with older ones compacted (long tool results cut to a preview
// that names where the full text is, long arguments truncated) and dangling calls closed.
// The stored history itself is never changed by this: the window still shows everything.

import type { ChatMessage, ToolCall } from '../models/types';
import { evictionFileName, previewOf } from './middleware/eviction';
import { repairDanglingToolCalls } from './dangling';
import { latestPersonMessage } from './notes';
import type { ThreadState } from './types';

/** Tool results and arguments longer than this are cut when their message is compacted. */
export const COMPACT_CHARS = 2_000;
const PREVIEW_CHARS = 600;
const ARG_PREVIEW_CHARS = 200;
const EVICTED = /saved to (\/large_tool_results\/[^\s.]+(?:\.[^\s.]+)*)/;

export function modelView(state: ThreadState): ChatMessage[] {
  const compactedBefore = state.compactedBefore ?? 0;
  const recent = state.messages.slice(state.contextStart).map((m, i) => (state.contextStart + i < compactedBefore ? compactMessage(m) : m));
  if (state.summary === undefined) return repairDanglingToolCalls(recent);
  // The person's latest request always stays verbatim, even when it was summarized away.
  const view: ChatMessage[] = [{ role: 'user', content: state.summary }];
  const latestUser = latestPersonMessage(state.messages);
  if (latestUser >= 0 && latestUser < state.contextStart) view.push(state.messages[latestUser]!);
  view.push(...recent);
  return repairDanglingToolCalls(view);
}

/** Where the full text of a compacted tool result is: its eviction file, or one written for the compaction. */
export function fullTextPath(message: Extract<ChatMessage, { role: 'tool' }>): { path: string; exists: boolean } {
  const evicted = EVICTED.exec(textOf(message));
  return evicted ? { path: evicted[1]!, exists: true } : { path: `/large_tool_results/${evictionFileName(message.toolCallId)}`, exists: false };
}

/** Whether compacting this message changes it (so its full text must be kept first). */
export function needsCompaction(message: ChatMessage): boolean {
  if (message.role === 'tool') return typeof message.content !== 'string' || message.content.length > COMPACT_CHARS;
  if (message.role === 'assistant') return (message.toolCalls ?? []).some((c) => c.argsText.length > COMPACT_CHARS);
  return false;
}

const compacted = new WeakMap<ChatMessage, ChatMessage>();

/** The same message with long tool text cut to a preview; cached, so token counts and prompt caches stay stable. */
export function compactMessage(message: ChatMessage): ChatMessage {
  if (!needsCompaction(message)) return message;
  const cached = compacted.get(message);
  if (cached) return cached;
  let out: ChatMessage;
  if (message.role === 'tool') {
    const full = textOf(message);
    const { path } = fullTextPath(message);
    const preview = previewOf(full);
    out = {
      ...message,
      content: [
        `[This older tool result was cut to save context (${full.length} characters). The full text is in ${path}; read it with read_file if you need it again.]`,
        preview.length > PREVIEW_CHARS ? `${preview.slice(0, PREVIEW_CHARS)}…` : preview,
      ].join('\n'),
    };
  } else if (message.role === 'assistant') {
    out = { ...message, toolCalls: (message.toolCalls ?? []).map(truncateArgs) };
  } else {
    out = message;
  }
  compacted.set(message, out);
  return out;
}

function truncateArgs(call: ToolCall): ToolCall {
  if (call.argsText.length <= COMPACT_CHARS || call.args === null || typeof call.args !== 'object' || Array.isArray(call.args)) return call;
  const args = Object.fromEntries(
    Object.entries(call.args as Record<string, unknown>).map(([k, v]) =>
      typeof v === 'string' && v.length > ARG_PREVIEW_CHARS ? [k, `${v.slice(0, ARG_PREVIEW_CHARS)}… [argument truncated to save context: ${v.length} characters]`] : [k, v],
    ),
  );
  return { ...call, args, argsText: JSON.stringify(args) };
}

function textOf(message: Extract<ChatMessage, { role: 'tool' }>): string {
  return typeof message.content === 'string' ? message.content : message.content.map((p) => (p.type === 'text' ? p.text : `[image ${p.mimeType} omitted]`)).join('\n');
}
