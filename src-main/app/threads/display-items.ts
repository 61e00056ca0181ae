// Turns a thread's stored messages into what the window shows: user and assistant text,
// tool calls paired with their results, a notice where history was summarized, and the
// notes the model was given (e.g. of a restore) as notices.

import type { ThreadState } from '../../core/agent/types';
import type { ChatMessage, ContentPart } from '../../core/models/types';
import { archivePathFor } from '../../core/agent/middleware/summarization';
import { splitAttachmentLines, type DisplayItem } from '../contract';
import { kindOfMime } from '../../core/media/kinds';
import { storedResultFacts } from './stored-result-facts';

/**
 * The items of messages[from…to) (all by default). Their `index` is the message's absolute
 * index in the thread, whatever the range. A range should start at a message that is not a
 * tool result (see thread-page.ts), so that every result meets its call.
 */
export function displayItems(state: ThreadState, from = 0, to = state.messages.length): DisplayItem[] {
  const items: DisplayItem[] = [];
  const toolItems = new Map<string, Extract<DisplayItem, { kind: 'tool' }>>();
  for (let index = from; index < to; index++) {
    const message = state.messages[index]!;
    if (index === state.contextStart && state.summary !== undefined && index > 0) {
      items.push({ kind: 'summary', archivePath: archivePathFor(state.id), summarizedMessages: index, text: state.summary, index });
    }
    pushMessage(message, index, items, toolItems);
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) {
        const run = state.subagentRuns?.[call.id];
        if (run) run.forEach((m) => pushMessage(m, index, items, toolItems, call.id));
      }
    }
  }
  if (to === state.messages.length && state.summary !== undefined && state.contextStart >= state.messages.length && state.contextStart > 0) {
    items.push({ kind: 'summary', archivePath: archivePathFor(state.id), summarizedMessages: state.contextStart, text: state.summary, index: state.contextStart });
  }
  return items;
}

/** `parent` is set for a subagent's messages: the id of the task call they belong under. */
function pushMessage(message: ChatMessage, index: number, items: DisplayItem[], toolItems: Map<string, Extract<DisplayItem, { kind: 'tool' }>>, parent?: string): void {
  const nested = parent !== undefined ? { parentToolCallId: parent } : {};
  switch (message.role) {
    case 'user':
      // A note for the model (e.g. of a restore) is shown as a notice, not as the person's message.
      if (message.note !== undefined) {
        if (parent === undefined) items.push({ kind: 'notice', text: message.note.display, index, ...(message.note.checkpointId !== undefined ? { checkpointId: message.note.checkpointId } : {}) });
        return;
      }
      // A subagent's only user message is its task description, already on the task card.
      if (parent === undefined) {
        const { text, attachments } = splitAttachmentLines(textOfContent(message.content));
        items.push({ kind: 'user', text, index, ...(attachments.length > 0 ? { attachments } : {}) });
      }
      return;
    case 'assistant':
      if (message.content !== '') items.push({ kind: 'assistant', text: message.content, index, ...nested });
      for (const call of message.toolCalls ?? []) {
        const item: Extract<DisplayItem, { kind: 'tool' }> = {
          kind: 'tool',
          id: call.id,
          name: call.name,
          args: call.args,
          index,
          ...nested,
          ...(call.originalArgs !== undefined ? { edited: true, originalArgs: call.originalArgs, ...(call.editedBy === 'hook' ? { editedByHook: true } : {}) } : {}),
        };
        toolItems.set(`${parent ?? ''}/${call.id}`, item);
        items.push(item);
      }
      return;
    case 'tool': {
      const item = toolItems.get(`${parent ?? ''}/${message.toolCallId}`);
      if (item === undefined) return;
      item.output = textOfContent(message.content);
      if (message.isError) item.isError = true;
      if (message.change) item.change = message.change;
      Object.assign(item, storedResultFacts(message, item.output));
    }
  }
}

/** A message's text; media parts stand as `[image image/png]` unless a line already names them (attachments). */
export function textOfContent(content: string | ContentPart[]): string {
  if (typeof content === 'string') return content;
  return content
    .flatMap((p) => (p.type === 'text' ? [p.text] : p.name !== undefined ? [] : [`[${kindOfMime(p.mimeType) ?? p.type} ${p.mimeType}]`]))
    .join('\n');
}
