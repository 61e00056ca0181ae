// `@`-mentions in the message box: which word the caret is in, and replacing it with a path.

export interface Mention {
  /** Index of the `@`. */
  start: number;
  /** The text typed after `@`, up to the caret. */
  query: string;
}

/** The mention being typed at `caret`: an `@` at the start or after whitespace, no space since. */
export function findMention(text: string, caret: number): Mention | null {
  const before = text.slice(0, caret);
  const match = /(^|\s)@([^\s@]*)$/.exec(before);
  if (!match) return null;
  const query = match[2] ?? '';
  return { start: caret - query.length - 1, query };
}

/** Replaces the `@query` (and the rest of that word) with `@path` and a space: the file is attached when sent. */
export function applyMention(text: string, mention: Mention, caret: number, path: string): { text: string; caret: number } {
  let end = caret;
  while (end < text.length && !/\s/.test(text[end] ?? '')) end++;
  const insert = `@${path} `;
  const after = text.slice(end).replace(/^ /, '');
  return { text: text.slice(0, mention.start) + insert + after, caret: mention.start + insert.length };
}

/** The `@/path` mentions in a message (what will be attached when it is sent), in order. */
export function mentionsIn(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(^|\s)@(\/[^\s@]*[^\s@.,;:!?)\]])/g)) if (!found.includes(match[2]!)) found.push(match[2]!);
  return found;
}

export interface AttachedFile {
  path: string;
  /** e.g. `1-2000 of 5000` when only the first part was attached. */
  lines?: string;
  content: string;
}

/** A sent message split into what the person typed and the files (and MCP resources, as `server:URI`) attached to it (see mention-attachments.ts, message-references.ts). */
export function splitAttachments(text: string): { text: string; files: AttachedFile[] } {
  const start = text.search(/\n\n<attached_(?:file path|resource server)="/);
  if (start < 0) return { text, files: [] };
  const files: AttachedFile[] = [];
  const block = /<attached_file path="([^"]*)"(?: lines="([^"]*)")?>\n([\s\S]*?)<\/attached_file>|<attached_resource server="([^"]*)" uri="([^"]*)">\n([\s\S]*?)<\/attached_resource>/g;
  for (const match of text.slice(start).matchAll(block)) {
    if (match[4] !== undefined) files.push({ path: `${unescapeAttribute(match[4])}:${unescapeAttribute(match[5]!)}`, content: match[6]! });
    else files.push({ path: match[1]!, ...(match[2] ? { lines: match[2] } : {}), content: match[3]! });
  }
  return files.length === 0 ? { text, files } : { text: text.slice(0, start), files };
}

function unescapeAttribute(value: string): string {
  return value.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&amp;/g, '&');
}
