// What a span says of the conversation when content capture is on (SPEC §17): the GenAI
// semantic conventions' JSON shapes for gen_ai.system_instructions, gen_ai.input.messages and
// gen_ai.output.messages (messages of `parts`: text, tool_call, tool_call_response), tool
// arguments and results. Each value is valid JSON of at most CONTENT_CAP characters (long
// strings cut, then the oldest messages left out) and never carries base64 media: a media
// block becomes a short text placeholder. Every value is scrubbed of secrets before it is cut.
import type { ChatMessage, ContentPart, StopReason } from '../models/types';
import { scrubSecrets, scrubSecretsIn } from '../process/scrub-secrets';

/** The longest attribute value written, in characters. */
export const CONTENT_CAP = 64 * 1024;
/** What a single string is cut to, tried in turn until the whole value fits. */
const STRING_CAPS = [CONTENT_CAP, 16 * 1024, 4 * 1024, 1024, 256];

type Part =
  | { type: 'text'; content: string }
  | { type: 'reasoning'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: unknown };

interface Message {
  role: 'user' | 'assistant' | 'tool';
  parts: Part[];
  finish_reason?: string;
}

/** StopReason as the conventions' finish reasons name them. */
export function finishReason(reason: StopReason): string {
  switch (reason) {
    case 'tool-calls':
      return 'tool_call';
    case 'content-filter':
      return 'content_filter';
    default:
      return reason;
  }
}

export function systemInstructionsJson(system: string): string {
  return fitList([{ type: 'text', content: system }]).json;
}

/** `omitted`: how many of the oldest messages were left out to fit. */
export function inputMessagesJson(messages: readonly ChatMessage[]): { json: string; omitted: number } {
  return fitList(messages.map(toMessage));
}

/** `finishReason` as the conventions name it (finishReason() of a StopReason). */
export function outputMessagesJson(output: {
  text?: string;
  toolCalls?: ReadonlyArray<{ id: string; name: string; args: unknown }>;
  finishReason?: string;
}): string {
  const parts: Part[] = [];
  if (output.text) parts.push({ type: 'text', content: output.text });
  for (const call of output.toolCalls ?? []) parts.push({ type: 'tool_call', id: call.id, name: call.name, arguments: call.args });
  const message: Message = { role: 'assistant', parts, ...(output.finishReason !== undefined ? { finish_reason: output.finishReason } : {}) };
  return fitList([message]).json;
}

/** A tool's result text, cut to the cap. */
export function resultText(output: string): string {
  return cut(scrubSecrets(output), CONTENT_CAP);
}

function toMessage(message: ChatMessage): Message {
  switch (message.role) {
    case 'user':
      return { role: 'user', parts: contentParts(message.content) };
    case 'assistant': {
      const parts: Part[] = [];
      for (const block of message.reasoning ?? []) if (block.text) parts.push({ type: 'reasoning', content: block.text });
      if (message.content) parts.push({ type: 'text', content: message.content });
      for (const call of message.toolCalls ?? []) parts.push({ type: 'tool_call', id: call.id, name: call.name, arguments: call.args });
      return { role: 'assistant', parts };
    }
    case 'tool':
      return { role: 'tool', parts: [{ type: 'tool_call_response', id: message.toolCallId, response: contentText(message.content) }] };
  }
}

function contentParts(content: string | ContentPart[]): Part[] {
  if (typeof content === 'string') return [{ type: 'text', content }];
  return content.map((part) => ({ type: 'text', content: part.type === 'text' ? part.text : mediaPlaceholder(part) }));
}

function contentText(content: string | ContentPart[]): string {
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : mediaPlaceholder(part))).join('\n');
}

function mediaPlaceholder(part: Exclude<ContentPart, { type: 'text' }>): string {
  const bytes = part.bytes ?? Math.floor((part.data.length * 3) / 4);
  return `[${part.mimeType}${part.name ? ` ${part.name}` : ''}, ${bytes} bytes, not exported]`;
}

/**
 * The list as JSON within the cap: strings cut shorter and shorter, then the oldest items left
 * out. Items are scrubbed and serialized newest first and each try stops once past the cap, so
 * a long history costs about the cap, not its own size.
 */
function fitList(items: readonly unknown[]): { json: string; omitted: number } {
  const scrubbed: unknown[] = [];
  for (const [i, cap] of STRING_CAPS.entries()) {
    const last = i === STRING_CAPS.length - 1;
    const kept: string[] = [];
    let total = 2;
    for (let at = items.length - 1; at >= 0; at--) {
      const json = safeStringify(cutStrings((scrubbed[at] ??= scrubSecretsIn(items[at])), cap));
      if (total + json.length + 1 > CONTENT_CAP) break;
      total += json.length + 1;
      kept.push(json);
    }
    if (kept.length === items.length || last) return { json: `[${kept.reverse().join(',')}]`, omitted: items.length - kept.length };
  }
  return { json: '[]', omitted: items.length };
}

/** A tool call's arguments (any JSON value) as a JSON string within the cap. */
export function argumentsJson(given: unknown): string {
  const value = scrubSecretsIn(given);
  for (const cap of STRING_CAPS) {
    const json = safeStringify(cutStrings(value, cap));
    if (json.length <= CONTENT_CAP) return json;
  }
  // Still too big (a huge array of small values): a JSON string of its cut text.
  return JSON.stringify(cut(safeStringify(value), CONTENT_CAP - 64));
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return JSON.stringify(String(value));
  }
}

/** A copy with every string longer than `cap` cut (plain data only: what JSON.parse gives and our messages). */
function cutStrings(value: unknown, cap: number, depth = 0): unknown {
  if (typeof value === 'string') return cut(value, cap);
  if (value === null || typeof value !== 'object' || depth > 32) return value;
  if (Array.isArray(value)) return value.map((item) => cutStrings(item, cap, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = cutStrings(item, cap, depth + 1);
  return out;
}

function cut(text: string, cap: number): string {
  if (text.length <= cap) return text;
  const note = `…[${text.length - cap} more characters not exported]`;
  let end = Math.max(0, cap - note.length);
  // Not between the halves of a surrogate pair.
  if (end > 0 && /[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end -= 1;
  return text.slice(0, end) + note;
}
