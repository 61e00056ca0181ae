// Dangling tool calls (SPEC §4): a tool call without a result (the run was stopped or
// killed mid-step) gets a synthetic error result, so providers never reject the history.

import type { ChatMessage, ToolCall } from '../models/types';

export const INTERRUPTED_RESULT = 'Error: this tool call was interrupted before it finished (the run was stopped or the app closed); its effects, if any, are unknown. Check the current state before retrying.';

/** Tool calls of the last assistant message that have no result yet. */
export function unresolvedToolCalls(messages: readonly ChatMessage[]): ToolCall[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'assistant') {
      const answered = new Set(messages.slice(i + 1).flatMap((r) => (r.role === 'tool' ? [r.toolCallId] : [])));
      return (m.toolCalls ?? []).filter((c) => !answered.has(c.id));
    }
  }
  return [];
}

/**
 * Returns the messages with a synthetic result right after the results of every
 * assistant turn whose tool calls are not all answered. Unchanged input is returned as is.
 */
export function repairDanglingToolCalls(messages: ChatMessage[]): ChatMessage[] {
  let out: ChatMessage[] | null = null;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== 'assistant' || !m.toolCalls || m.toolCalls.length === 0) {
      out?.push(m);
      continue;
    }
    let j = i + 1;
    const answered = new Set<string>();
    while (j < messages.length && messages[j]!.role === 'tool') {
      answered.add((messages[j] as Extract<ChatMessage, { role: 'tool' }>).toolCallId);
      j++;
    }
    const missing = m.toolCalls.filter((c) => !answered.has(c.id));
    if (missing.length === 0) {
      out?.push(...messages.slice(i, j));
    } else {
      out ??= messages.slice(0, i);
      out.push(...messages.slice(i, j));
      for (const call of missing) out.push({ role: 'tool', toolCallId: call.id, toolName: call.name, content: INTERRUPTED_RESULT, isError: true, interrupted: true });
    }
    i = j - 1;
  }
  return out ?? messages;
}
