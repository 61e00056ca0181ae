// Token estimates with a real tokenizer (o200k_base). Messages are immutable once stored,
// so each one is counted once and cached; a step over a long thread costs only the new ones.
// A media block costs what its model's provider bills for it (core/media/tokens.ts), or
// its §12 notice when the model does not take it: the text part of a message is cached
// alone, the media's measure (pixels, pages, seconds) per block, so another provider is
// only arithmetic.

import { takesMedia } from '../media/capabilities';
import { base64Bytes, mediaKindOf, notTakenNotice } from '../media/kinds';
import { measureMedia, type MediaMeasure } from '../media/measure';
import { mediaTokens } from '../media/tokens';
import { isMediaPart, type ChatMessage, type ChatModel, type ContentPart, type MediaPart, type ToolSpec } from '../models/types';
import { countO200k } from './o200k';

/** Per-message framing the providers add (role markers, separators). */
const MESSAGE_OVERHEAD = 4;

/** Whose tokens: a media block costs by the provider's rules, or as its notice when the model does not take it. */
export type TokenCosting = Pick<ChatModel, 'provider' | 'mediaInput'>;
/** Without a model (benchmarks, tools): media costed as OpenAI bills images, every kind taken. */
const ANY_MODEL: TokenCosting = { provider: 'openai' };

interface MessageCount {
  /** Everything but the media blocks. */
  text: number;
  media: readonly MediaPart[] | null;
}

/** What is known of a media block, each part found when first needed. */
interface MediaCount {
  measure?: MediaMeasure;
  /** The tokens of its notice. */
  notice?: number;
}

const messageCache = new WeakMap<ChatMessage, MessageCount>();
const mediaCache = new WeakMap<MediaPart, MediaCount>();
const toolCache = new WeakMap<ToolSpec, number>();
const textCache = new Map<string, number>();
/** Tools by their text: a run's tool specs are new objects with the same text as the last run's. */
const toolTextCache = new Map<string, number>();
/** Tools told apart at most (the built-in ones, MCP servers' and subagents'): past it the cache starts over. */
const TOOL_TEXTS = 512;

/**
 * Byte-pair merging is quadratic in a run of text without spaces (190 KB of a model's
 * `[[[…((( ` took 11 s, holding the event loop), and in a run of spaces (600 lines of a list
 * indented one level deeper each: 1.8 s): such runs are counted in pieces of this many
 * characters, linear in their length, at most a token more per piece.
 */
const MAX_RUN = 256;
const LONG_RUN = new RegExp(`\\S{${MAX_RUN}}|\\s{${MAX_RUN}}`, 'gu');

export function countTextTokens(text: string): number {
  if (text === '') return 0;
  LONG_RUN.lastIndex = 0;
  if (!LONG_RUN.test(text)) return countO200k(text);
  let n = 0;
  let from = 0;
  for (const run of text.matchAll(LONG_RUN)) {
    if (run.index > from) n += countO200k(text.slice(from, run.index));
    n += countO200k(run[0]);
    from = run.index + run[0].length;
  }
  if (from < text.length) n += countO200k(text.slice(from));
  return n;
}

function countText(content: string | ContentPart[]): number {
  if (typeof content === 'string') return countTextTokens(content);
  let n = 0;
  for (const part of content) if (part.type === 'text') n += countTextTokens(part.text);
  return n;
}

/** A media block's tokens for this model: the provider's cost, or its §12 notice's when the model does not take it. */
export function countMediaTokens(part: MediaPart, costing: TokenCosting = ANY_MODEL): number {
  let count = mediaCache.get(part);
  if (count === undefined) {
    count = {};
    mediaCache.set(part, count);
  }
  if (takesMedia(costing.mediaInput, part.mimeType)) {
    count.measure ??= measureMedia(mediaKindOf(part), Buffer.from(part.data, 'base64'));
    return mediaTokens(count.measure, costing.provider);
  }
  count.notice ??= countTextTokens(notTakenNotice(mediaKindOf(part), part.name ?? 'attachment', part.bytes ?? base64Bytes(part.data)));
  return count.notice;
}

export function countMessageTokens(message: ChatMessage, costing: TokenCosting = ANY_MODEL): number {
  let cached = messageCache.get(message);
  if (cached === undefined) {
    let text = MESSAGE_OVERHEAD + countText(message.content);
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) text += MESSAGE_OVERHEAD + countTextTokens(call.name) + countTextTokens(call.argsText);
    }
    const media = typeof message.content === 'string' ? null : message.content.filter(isMediaPart);
    cached = { text, media: media !== null && media.length > 0 ? media : null };
    messageCache.set(message, cached);
  }
  if (cached.media === null) return cached.text;
  let n = cached.text;
  for (const part of cached.media) n += countMediaTokens(part, costing);
  return n;
}

export function countToolTokens(tool: ToolSpec): number {
  const cached = toolCache.get(tool);
  if (cached !== undefined) return cached;
  const text = `${tool.name}\n${tool.description}\n${JSON.stringify(tool.parameters)}`;
  let n = toolTextCache.get(text);
  if (n === undefined) {
    n = countTextTokens(text);
    if (toolTextCache.size >= TOOL_TEXTS) toolTextCache.clear();
    toolTextCache.set(text, n);
  }
  toolCache.set(tool, n);
  return n;
}

/** The system prompt (and the parts it is made of, the skills' listing) changes rarely (memory files); a small cache keyed by the text avoids recounting. */
export function countSystemTokens(system: string): number {
  const cached = textCache.get(system);
  if (cached !== undefined) return cached;
  const n = countTextTokens(system);
  if (textCache.size > 32) textCache.clear();
  textCache.set(system, n);
  return n;
}

export function countRequestTokens(request: { system: string; messages: readonly ChatMessage[]; tools: readonly ToolSpec[] }, costing: TokenCosting = ANY_MODEL): number {
  let n = countSystemTokens(request.system);
  for (const tool of request.tools) n += countToolTokens(tool);
  for (const message of request.messages) n += countMessageTokens(message, costing);
  return n;
}
