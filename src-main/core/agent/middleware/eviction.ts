// Large result eviction (SPEC §4): a big tool result is written to
// /large_tool_results/<id> and replaced by a pointer with a head/tail preview; a huge user
// message goes to /conversation_history/ the same way. Nothing is lost; the context stays small.

import { createHash } from 'node:crypto';
import { NON_EVICTABLE_TOOLS } from '../../tools/filesystem-tools';
import type { ChatMessage } from '../../models/types';
import type { Middleware } from '../middleware';

export const DEFAULT_EVICT_CHARS = 80_000;
export const DEFAULT_USER_MESSAGE_EVICT_CHARS = 200_000;
const PREVIEW_LINES = 5;
const PREVIEW_LINE_CHARS = 1_000;

export interface EvictionOptions {
  toolResultChars?: number;
}

/** The file name for a tool-call id: `.`, `/` and `\` become `_`; ids over 100 characters are hashed. */
export function evictionFileName(id: string): string {
  if (id.length > 100) return createHash('sha256').update(id).digest('hex').slice(0, 32);
  return id.replace(/[./\\]/g, '_');
}

export function previewOf(content: string): string {
  const lines = content.split('\n');
  const cut = (l: string) => (l.length > PREVIEW_LINE_CHARS ? l.slice(0, PREVIEW_LINE_CHARS) + '…' : l);
  if (lines.length <= PREVIEW_LINES * 2) return lines.map(cut).join('\n');
  const head = lines.slice(0, PREVIEW_LINES).map(cut);
  const tail = lines.slice(-PREVIEW_LINES).map(cut);
  return [...head, `... [${lines.length - PREVIEW_LINES * 2} lines truncated] ...`, ...tail].join('\n');
}

export function evictionNotice(kind: 'tool result' | 'message', path: string, content: string): string {
  const lines = content.split('\n').length;
  return [
    `The ${kind} was too large to include (${content.length} characters, ${lines} lines), so it was saved to ${path}.`,
    `Read it with read_file (file_path "${path}"), paging with offset and limit (e.g. offset=0, limit=100, then continue with the offset the output suggests), or search it with grep (path "${path}").`,
    'Preview (first and last lines):',
    previewOf(content),
  ].join('\n');
}

/** Where the notice of a result stored before results carried `evictedTo` says it was saved. */
const SAVED_TO = /saved to (\/large_tool_results\/[^\s.]+(?:\.[^\s.]+)*)/;

/** Where a stored tool result was evicted to: its `evictedTo`, else (a result stored before it had one) the path its notice names. */
export function evictedPathOf(message: Extract<ChatMessage, { role: 'tool' }>): string | undefined {
  if (message.evictedTo !== undefined) return message.evictedTo;
  const text = typeof message.content === 'string' ? message.content : message.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
  return SAVED_TO.exec(text)?.[1];
}

export function evictionMiddleware(options: EvictionOptions = {}): Middleware {
  const toolLimit = options.toolResultChars ?? DEFAULT_EVICT_CHARS;
  return {
    name: 'eviction',
    async wrapToolCall(ctx, info, next) {
      const output = await next(info.call);
      if (NON_EVICTABLE_TOOLS.has(info.call.name) || output.text.length <= toolLimit) return output;
      const path = `/large_tool_results/${evictionFileName(info.call.id)}`;
      const written = await ctx.backend.write(path, output.text);
      if (written.error !== undefined) return output;
      return { ...output, text: evictionNotice('tool result', path, output.text), evictedTo: path };
    },
    async onUserMessage(ctx, message): Promise<ChatMessage> {
      if (message.role !== 'user' || typeof message.content !== 'string' || message.content.length <= DEFAULT_USER_MESSAGE_EVICT_CHARS) return message;
      const id = `message_${ctx.state.messages.length}_${Date.now().toString(36)}`;
      const path = `/conversation_history/${evictionFileName(id)}`;
      const written = await ctx.backend.write(path, message.content);
      if (written.error !== undefined) return message;
      return { role: 'user', content: evictionNotice('message', path, message.content) };
    },
  };
}
