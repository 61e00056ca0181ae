// What the model sees of a thread: the summary (if any), the person's latest request,
// then the recent messages, with older ones compacted (media blocks replaced by a note
// naming them, long tool results cut to a preview that names where the full text is, long
// arguments truncated) and dangling calls closed. The stored history itself is never
// changed by this: the window still shows everything.

import { base64Bytes, formatSize, mediaKindOf } from '../media/kinds';
import { isMediaPart, type ChatMessage, type ContentPart, type MediaPart, type ToolCall } from '../models/types';
import { evictedPathOf, evictionFileName, previewOf } from './middleware/eviction';
import { repairDanglingToolCalls } from './dangling';
import { latestPersonMessage } from './notes';
import type { ThreadState } from './types';

/** Tool results and arguments longer than this are cut when their message is compacted. */
export const COMPACT_CHARS = 2_000;
const PREVIEW_CHARS = 600;
const ARG_PREVIEW_CHARS = 200;

export function modelView(state: ThreadState): ChatMessage[] {
  const recent = state.messages.slice(state.contextStart).map((_, i) => viewMessage(state, state.contextStart + i));
  if (state.summary === undefined) return repairDanglingToolCalls(recent);
  // The person's latest request always stays (its text verbatim), even when it was summarized away.
  const view: ChatMessage[] = [{ role: 'user', content: state.summary }];
  const latestUser = latestPersonMessage(state.messages);
  if (latestUser >= 0 && latestUser < state.contextStart) view.push(viewMessage(state, latestUser));
  view.push(...recent);
  return repairDanglingToolCalls(view);
}

/** The message at `index` as the model sees it: media dropped and long text compacted where the thread says so. */
export function viewMessage(state: ThreadState, index: number): ChatMessage {
  let message = state.messages[index]!;
  if (index < (state.mediaDroppedBefore ?? 0)) message = dropMedia(message);
  if (index < (state.compactedBefore ?? 0)) message = compactMessage(message);
  return message;
}

/** `image /pic.png, 12.1 KB`: what a media block is, for notes and transcripts. */
export function describeMedia(part: MediaPart): string {
  return `${mediaKindOf(part)} ${part.name ?? 'attachment'}, ${formatSize(part.bytes ?? base64Bytes(part.data))}`;
}

/** The one line standing in for a media block taken out of the model's view. */
export function droppedMediaNote(part: MediaPart): string {
  const again = part.name?.startsWith('/') === true ? 'read_file it again if needed' : 'ask for it again if needed';
  return `[${describeMedia(part)}: dropped from the context to save space; ${again}]`;
}

export function hasMedia(message: ChatMessage): boolean {
  return message.role !== 'assistant' && typeof message.content !== 'string' && message.content.some(isMediaPart);
}

const withoutMedia = new WeakMap<ChatMessage, ChatMessage>();

/** The same message with each media block replaced by its note; cached, so token counts and prompt caches stay stable. */
export function dropMedia(message: ChatMessage): ChatMessage {
  if (!hasMedia(message)) return message;
  const cached = withoutMedia.get(message);
  if (cached) return cached;
  const content = (message.content as ContentPart[]).map((p): ContentPart => (isMediaPart(p) ? { type: 'text', text: droppedMediaNote(p) } : p));
  const out = { ...message, content } as ChatMessage;
  withoutMedia.set(message, out);
  return out;
}

/** Where the full text of a compacted tool result is: its eviction file, or one written for the compaction. */
export function fullTextPath(message: Extract<ChatMessage, { role: 'tool' }>): { path: string; exists: boolean } {
  const evicted = evictedPathOf(message);
  return evicted !== undefined ? { path: evicted, exists: true } : { path: `/large_tool_results/${evictionFileName(message.toolCallId)}`, exists: false };
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

/** A tool result's text; its media blocks as the note of their dropping (a preview or a file cannot hold them). */
export function textOf(message: Extract<ChatMessage, { role: 'tool' }>): string {
  return contentText(message.content);
}

/** A message's content as text, media blocks as the note of their dropping. */
export function contentText(content: string | ContentPart[]): string {
  return typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? p.text : droppedMediaNote(p))).join('\n');
}
