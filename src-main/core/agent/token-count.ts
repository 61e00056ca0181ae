// Token estimates with a real tokenizer (o200k_base). Messages are immutable once stored,
// so each one is counted once and cached; a step over a long thread costs only the new ones.

import { countTokens } from 'gpt-tokenizer';
import type { ChatMessage, ContentPart, ToolSpec } from '../models/types';

const NO_SPECIAL = { disallowedSpecial: new Set<string>() };
/** Per-message framing the providers add (role markers, separators). */
const MESSAGE_OVERHEAD = 4;
/** What providers bill for an image, roughly, independent of its bytes. */
const IMAGE_TOKENS = 1_000;

const messageCache = new WeakMap<ChatMessage, number>();
const toolCache = new WeakMap<ToolSpec, number>();
const textCache = new Map<string, number>();

/**
 * Byte-pair merging is quadratic in a run of text without spaces (190 KB of a model's
 * `[[[…((( ` took 11 s, holding the event loop): such runs are counted in pieces of this
 * many characters, linear in their length, at most a token more per piece.
 */
const MAX_RUN = 256;
const LONG_RUN = new RegExp(`\\S{${MAX_RUN}}`, 'gu');

export function countTextTokens(text: string): number {
  if (text === '') return 0;
  LONG_RUN.lastIndex = 0;
  if (!LONG_RUN.test(text)) return countTokens(text, NO_SPECIAL);
  let n = 0;
  let from = 0;
  for (const run of text.matchAll(LONG_RUN)) {
    if (run.index > from) n += countTokens(text.slice(from, run.index), NO_SPECIAL);
    n += countTokens(run[0], NO_SPECIAL);
    from = run.index + run[0].length;
  }
  if (from < text.length) n += countTokens(text.slice(from), NO_SPECIAL);
  return n;
}

function countParts(content: string | ContentPart[]): number {
  if (typeof content === 'string') return countTextTokens(content);
  let n = 0;
  for (const part of content) n += part.type === 'text' ? countTextTokens(part.text) : IMAGE_TOKENS;
  return n;
}

export function countMessageTokens(message: ChatMessage): number {
  const cached = messageCache.get(message);
  if (cached !== undefined) return cached;
  let n = MESSAGE_OVERHEAD + countParts(message.content);
  if (message.role === 'assistant') {
    for (const call of message.toolCalls ?? []) n += MESSAGE_OVERHEAD + countTextTokens(call.name) + countTextTokens(call.argsText);
  }
  messageCache.set(message, n);
  return n;
}

export function countToolTokens(tool: ToolSpec): number {
  const cached = toolCache.get(tool);
  if (cached !== undefined) return cached;
  const n = countTextTokens(`${tool.name}\n${tool.description}\n${JSON.stringify(tool.parameters)}`);
  toolCache.set(tool, n);
  return n;
}

/** The system prompt changes rarely (memory files); a small cache keyed by the text avoids recounting. */
export function countSystemTokens(system: string): number {
  const cached = textCache.get(system);
  if (cached !== undefined) return cached;
  const n = countTextTokens(system);
  if (textCache.size > 32) textCache.clear();
  textCache.set(system, n);
  return n;
}

export function countRequestTokens(request: { system: string; messages: readonly ChatMessage[]; tools: readonly ToolSpec[] }): number {
  let n = countSystemTokens(request.system);
  for (const tool of request.tools) n += countToolTokens(tool);
  for (const message of request.messages) n += countMessageTokens(message);
  return n;
}
