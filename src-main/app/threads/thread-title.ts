// A thread's title (shown in the Threads list until the person renames it): from what the
// person typed — a command as typed (`/review-pr 42`), a mention as written — never from what
// that became for the model (a skill's body, an MCP prompt's text, attached files' contents);
// a message of files alone is titled by the files' names. Short: the first line, up to the
// end of its first sentence, at most 8 words and 60 characters (`…` where it was cut).

import type { ChatMessage } from '../../core/models/types';
import { splitAttachmentLines } from '../contract/attachments';

const MAX_TITLE = 60;
const MAX_WORDS = 8;
/** A sentence this short ("Hi.", "Quick question:") is not the title yet: the next one is read too. */
const MIN_SENTENCE_WORDS = 3;

/** The first line's first sentence, cut at MAX_WORDS words and MAX_TITLE characters. */
function shortTitle(text: string): string {
  const line = text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  const words = line.trim().split(/\s+/).filter((w) => w !== '');
  const kept: string[] = [];
  for (const word of words) {
    if (kept.length === MAX_WORDS) break;
    kept.push(word);
    if (kept.length >= MIN_SENTENCE_WORDS && /[.!?]$/.test(word)) return fit(kept, false);
  }
  return fit(kept, kept.length < words.length);
}

function fit(words: readonly string[], cut: boolean): string {
  let title = words.join(' ');
  if ([...title].length > MAX_TITLE) {
    // At a word's end where there is one in the second half; else mid-word (a path, a URL).
    const chars = [...title].slice(0, MAX_TITLE - 1).join('');
    const space = chars.lastIndexOf(' ');
    title = space > MAX_TITLE / 2 ? chars.slice(0, space) : chars;
    cut = true;
  }
  return cut ? `${title.replace(/[\s,;:–—-]+$/, '')}…` : title;
}

/** The title of a thread whose first message the person typed as `typed`, with these files attached. */
export function titleFromTyped(typed: string, attachmentNames: readonly string[]): string {
  return shortTitle(typed.trim() !== '' ? typed : attachmentNames.join(', '));
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
