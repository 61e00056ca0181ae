// What a model request costs before the person's words (SPEC §20): the system prompt's parts
// by what added them, each tool offered and the messages, each counted as the context meter
// counts them (token-count.ts: o200k_base), and the whole request.

import type { ChatMessage, ToolSpec } from '../models/types';
import type { SystemPart } from './middleware';
import { countMessageTokens, countRequestTokens, countTextTokens, countToolTokens, type TokenCosting } from './token-count';

export interface RequestPartCost {
  kind: 'system' | 'tool' | 'messages';
  /** What added it (`base`, `memory`, `sandbox`, `skills`, …), the tool's name, or how many messages. */
  name: string;
  /** Counted alone: the parts of the system prompt are sent joined by blank lines. */
  tokens: number;
}

export interface RequestCost {
  parts: RequestPartCost[];
  /** The system prompt and the tools: what every call of the thread pays before its messages. */
  base: number;
  /** The whole request as the context meter counts it. */
  total: number;
}

export function requestCost(
  request: { system: string; tools: readonly ToolSpec[]; messages: readonly ChatMessage[] },
  systemParts: readonly SystemPart[],
  costing?: TokenCosting,
): RequestCost {
  const parts: RequestPartCost[] = [
    ...systemParts.map((part): RequestPartCost => ({ kind: 'system', name: part.name, tokens: countTextTokens(part.text) })),
    ...request.tools.map((tool): RequestPartCost => ({ kind: 'tool', name: tool.name, tokens: countToolTokens(tool) })),
  ];
  const messages = request.messages.reduce((n, message) => n + countMessageTokens(message, costing), 0);
  if (request.messages.length > 0) parts.push({ kind: 'messages', name: request.messages.length === 1 ? '1 message' : `${request.messages.length} messages`, tokens: messages });
  const total = countRequestTokens(request, costing);
  return { parts, base: total - messages, total };
}
