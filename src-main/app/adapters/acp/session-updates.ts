// The agent's events as ACP `session/update`s (SPEC §14): streamed text as
// agent_message_chunk, tool calls as tool_call / tool_call_update with kind, locations and
// diffs, the todo list as a plan; and a stored thread replayed as the same updates.

import type { ContentBlock, PlanEntry, SessionUpdate, ToolCallContent, ToolCallUpdate } from '@agentclientprotocol/sdk';
import { isPersonMessage } from '../../../core/agent/notes';
import { unhandledEvent } from '../../contract/agent-events';
import type { AgentEvent, ChatMessage, Todo } from '../../../core/agent/types';
import { shownText } from '../../../core/text/shown-text';
import type { FileChangeSummary } from '../../../core/tools/file-change';
import type { EditorPaths } from '../../../core/backends/mounts/real-paths';
import { toolDiff, toolKind, toolLocations, toolTitle } from './tool-calls';

/** A subagent's call ids are its own: under its task call they are told apart by that call's id. */
export function acpToolCallId(id: string, parentToolCallId?: string): string {
  return parentToolCallId === undefined ? id : `${parentToolCallId}/${id}`;
}

export function planUpdate(todos: readonly Todo[]): SessionUpdate {
  // The model's words, shown as one line each with nothing hidden (like a card's title).
  const entries: PlanEntry[] = todos.map((t) => ({ content: shownText(t.content, { singleLine: true }), status: t.status, priority: 'medium' }));
  return { sessionUpdate: 'plan', entries };
}

/** A call as the editor first sees it: its title, kind, input, locations and the diff its arguments would make. */
export function toolCallShown(paths: EditorPaths, id: string, name: string, args: unknown, status: 'pending' | 'in_progress') {
  return {
    toolCallId: id,
    title: toolTitle(name, args),
    kind: toolKind(name),
    status,
    rawInput: args,
    locations: toolLocations(paths, name, args),
    content: toolDiff(paths, name, args),
  } satisfies ToolCallUpdate;
}

export function toolCallStarted(paths: EditorPaths, id: string, name: string, args: unknown, status: 'pending' | 'in_progress'): SessionUpdate {
  return { sessionUpdate: 'tool_call', ...toolCallShown(paths, id, name, args, status) };
}

export function toolCallFinished(
  paths: EditorPaths,
  id: string,
  name: string,
  args: unknown,
  result: { output: string; isError: boolean; change?: FileChangeSummary | undefined },
): SessionUpdate {
  const text: ToolCallContent = { type: 'content', content: { type: 'text', text: result.output } };
  const diff = result.isError ? [] : toolDiff(paths, name, args, result.change);
  return {
    sessionUpdate: 'tool_call_update',
    toolCallId: id,
    status: result.isError ? 'failed' : 'completed',
    locations: toolLocations(paths, name, args, result.change),
    content: [...diff, text],
    rawOutput: { output: result.output },
  };
}

/** A running command's output shown live in its card: the last this many characters. */
const LIVE_OUTPUT_CHARS = 20_000;

export interface OpenCall {
  name: string;
  args: unknown;
  /** What a running execute printed so far (its tail). */
  output?: string;
}

/** What one agent event shows in the editor (none for events it has no place for). */
export function updatesForEvent(paths: EditorPaths, event: AgentEvent, args: Map<string, OpenCall>): SessionUpdate[] {
  switch (event.type) {
    case 'text':
      // A subagent's words stay under its task call: only its final answer comes back.
      return event.parentToolCallId === undefined ? [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.text } }] : [];
    case 'tool_call': {
      const id = acpToolCallId(event.id, event.parentToolCallId);
      args.set(id, { name: event.name, args: event.args });
      return [toolCallStarted(paths, id, event.name, event.args, 'in_progress')];
    }
    case 'tool_result': {
      const id = acpToolCallId(event.id, event.parentToolCallId);
      const call = args.get(id);
      args.delete(id);
      return [toolCallFinished(paths, id, event.name, call?.args, event)];
    }
    case 'tool_output': {
      const call = args.get(acpToolCallId(event.id, event.parentToolCallId));
      if (call === undefined) return [];
      call.output = ((call.output ?? '') + event.chunk).slice(-LIVE_OUTPUT_CHARS);
      return [{ sessionUpdate: 'tool_call_update', toolCallId: acpToolCallId(event.id, event.parentToolCallId), content: [{ type: 'content', content: { type: 'text', text: call.output } }] }];
    }
    case 'todos':
      return event.parentToolCallId === undefined ? [planUpdate(event.todos)] : [];
    case 'summarized':
      return [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `\n\n_(Earlier messages were summarized; the full text is in ${event.archivePath}.)_\n\n` } }];
    case 'error':
      // A budget's stop is the turn's end, said in one line (other failures end the prompt with an error).
      return event.budget === true && event.parentToolCallId === undefined ? [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `\n\n${event.message}\n` } }] : [];
    case 'paused':
      // A call waiting at a cap (SPEC §26): its line, once; going on says nothing.
      return event.line !== undefined && event.parentToolCallId === undefined ? [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `\n\n${event.line}\n` } }] : [];
    // No place in an editor's session updates (approvals go as permission requests).
    case 'approval':
    case 'usage':
    case 'checkpoint':
    case 'user_message':
    case 'queued':
    case 'note':
    case 'hook':
    case 'rewound':
    case 'retry':
    case 'goal':
    case 'done':
      return [];
    default:
      unhandledEvent(event);
      return [];
  }
}

/** A stored thread as the updates an editor shows it with (session/load). */
export function replayUpdates(paths: EditorPaths, messages: readonly ChatMessage[], todos: readonly Todo[]): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  const open = new Map<string, OpenCall>();
  for (const message of messages) {
    if (message.role === 'user') {
      if (!isPersonMessage(message)) continue;
      for (const content of userContent(message.content)) updates.push({ sessionUpdate: 'user_message_chunk', content });
    } else if (message.role === 'assistant') {
      if (message.content !== '') updates.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: message.content } });
      for (const call of message.toolCalls ?? []) {
        open.set(call.id, { name: call.name, args: call.args });
        updates.push(toolCallStarted(paths, call.id, call.name, call.args, 'pending'));
      }
    } else {
      const call = open.get(message.toolCallId);
      open.delete(message.toolCallId);
      const output = typeof message.content === 'string' ? message.content : message.content.map((p) => (p.type === 'text' ? p.text : `[${p.type}]`)).join('\n');
      updates.push(
        toolCallFinished(paths, message.toolCallId, message.toolName, call?.args, {
          output,
          isError: message.isError ?? output.startsWith('Error:'),
          ...(message.change ? { change: message.change } : {}),
        }),
      );
    }
  }
  // A call that never got its result (the process stopped) did not finish.
  for (const id of open.keys()) updates.push({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'failed' });
  if (todos.length > 0) updates.push(planUpdate(todos));
  return updates;
}

function userContent(content: string | Extract<ChatMessage, { role: 'user' }>['content']): ContentBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((part): ContentBlock => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    if (part.type === 'image') return { type: 'image', mimeType: part.mimeType, data: part.data };
    return { type: 'text', text: `[attached ${part.name ?? 'file'} (${part.mimeType})]` };
  });
}
