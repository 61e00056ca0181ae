// `@path` in a person's message attaches that file, as Claude Code does: the model gets the
// message followed by each mentioned file's text (its first part for a big file, with how
// to read the rest), so it need not spend a step reading what the person pointed at.
// Mentions that name no readable file stay plain text.

import type { Backend } from '../../core/backends/protocol';
import { normalizeVirtualPath } from '../../core/backends/paths';

export const MAX_ATTACHED_FILES = 10;
/** A file's first part: this many lines, and at most ATTACH_MAX_CHARS characters. */
export const ATTACH_MAX_LINES = 2000;
export const ATTACH_MAX_CHARS = 100_000;

const MENTION = /(^|\s)@([^\s@]+)/g;

/** The virtual paths `@mentioned` in `text`, in order, without repeats. */
export function mentionedPaths(text: string): string[] {
  const paths: string[] = [];
  for (const match of text.matchAll(MENTION)) {
    // A mention at the end of a sentence keeps its punctuation out of the path.
    const raw = match[2]!.replace(/[.,;:!?)\]]+$/, '');
    const checked = normalizeVirtualPath(raw);
    if (checked.ok && checked.path !== '/' && !paths.includes(checked.path)) paths.push(checked.path);
  }
  return paths;
}

/** The `<attached_file>` blocks of the readable text files that `text` mentions. */
export async function fileAttachments(text: string, backend: Backend): Promise<string[]> {
  const blocks: string[] = [];
  for (const path of mentionedPaths(text).slice(0, MAX_ATTACHED_FILES)) {
    const result = await backend.read(path, 0, ATTACH_MAX_LINES);
    const data = result.fileData;
    if (result.error !== undefined || data === undefined || data.encoding !== 'utf-8') continue;
    let content = data.content;
    let shownLines = (result.endLine ?? 0) - (result.startLine ?? 1) + 1;
    if (content.length > ATTACH_MAX_CHARS) {
      content = content.slice(0, content.lastIndexOf('\n', ATTACH_MAX_CHARS) + 1 || ATTACH_MAX_CHARS);
      shownLines = content.split('\n').length - 1;
    }
    const total = result.totalLines ?? shownLines;
    const part = shownLines < total ? ` lines="1-${shownLines} of ${total}"` : '';
    const rest = shownLines < total ? `\n(The first ${shownLines} of ${total} lines; read_file ${path} with offset=${shownLines} for the rest.)` : '';
    blocks.push(`<attached_file path="${path}"${part}>\n${content.replace(/\n?$/, '\n')}</attached_file>${rest}`);
  }
  return blocks;
}
