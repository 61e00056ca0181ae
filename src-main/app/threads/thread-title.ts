// A thread's title (shown in the Threads list until the person renames it): from what the
// person typed — a command as typed (`/review-pr 42`), a mention as written — never from what
// that became for the model (a skill's body, an MCP prompt's text, attached files' contents);
// a message of files alone is titled by the files' names.

import type { ChatMessage } from '../../core/models/types';
import { splitAttachmentLines } from '../contract/attachments';

const MAX_TITLE = 80;

/** One line of at most 80 characters. */
function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_TITLE ? `${line.slice(0, MAX_TITLE - 1).trimEnd()}…` : line;
}

/** The title of a thread whose first message the person typed as `typed`, with these files attached. */
export function titleFromTyped(typed: string, attachmentNames: readonly string[]): string {
  return oneLine(typed.trim() !== '' ? typed : attachmentNames.join(', '));
}

/**
 * The title from a first message as it was stored, when what was typed is not known (a
 * thread of `deepdesk run` or ACP): its text without the lines naming attached files and
 * without the `<attached_…>` blocks of mentioned files and resources.
 */
export function titleFromMessage(message: ChatMessage): string {
  const content = typeof message.content === 'string' ? message.content : message.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
  const { text, attachments } = splitAttachmentLines(content);
  const block = text.search(/\n\n<attached_[a-z_]+[\s>]/);
  return titleFromTyped(block >= 0 ? text.slice(0, block) : text, attachments.map((a) => a.name));
}
