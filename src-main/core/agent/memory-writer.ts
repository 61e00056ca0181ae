// Who writes a memory from inside a run, and beside what (SPEC §25): the agent or a subagent
// of this thread and turn on this model; the untrusted sources of its request (its own
// messages, and for a subagent its parents' too, since its task was written beside them);
// and the person's own words of the turn.

import type { ChatMessage } from '../models/types';
import type { MemoryWriteContext } from '../memories/write-context';
import { untrustedSources } from '../memories/untrusted-sources';
import { contentText } from './model-view';
import { isPersonMessage } from './notes';
import { rootRun, type RunContext } from './run-context';

export function memoryWriterOf(ctx: RunContext): MemoryWriteContext {
  const model = ctx.model.id;
  const writer = ctx.parent === undefined || ctx.parentToolCallId === undefined
    ? { kind: 'agent' as const, thread: ctx.threadId, turn: ctx.turn, model }
    : { kind: 'subagent' as const, thread: ctx.threadId, turn: ctx.turn, model, parentCall: ctx.parentToolCallId, ...subagentType(ctx.parent.state.messages, ctx.parentToolCallId) };
  return {
    writer,
    sources: () => {
      const all = new Set<string>();
      for (let run: RunContext | undefined = ctx; run !== undefined; run = run.parent) for (const s of untrustedSources(run.state.messages)) all.add(s);
      return [...all];
    },
    personText: () => personWordsOfTurn(rootRun(ctx).state.messages),
  };
}

/** The person's messages since the agent last ended a turn (its last answer without tool calls). */
function personWordsOfTurn(messages: readonly ChatMessage[]): string {
  const words: string[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'assistant' && (m.toolCalls?.length ?? 0) === 0 && words.length > 0) break;
    if (isPersonMessage(m)) words.unshift(contentText(m.content));
  }
  return words.join('\n');
}

function subagentType(messages: readonly ChatMessage[], callId: string): { subagent?: string } {
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    const call = m.toolCalls?.find((c) => c.id === callId);
    const type = (call?.args as { subagent_type?: unknown } | undefined)?.subagent_type;
    if (call !== undefined) return typeof type === 'string' ? { subagent: type } : {};
  }
  return {};
}
