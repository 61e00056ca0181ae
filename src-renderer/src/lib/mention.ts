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

/** Replaces the `@query` (and the rest of that word) with `path` and a space. */
export function applyMention(text: string, mention: Mention, caret: number, path: string): { text: string; caret: number } {
  let end = caret;
  while (end < text.length && !/\s/.test(text[end] ?? '')) end++;
  const insert = `${path} `;
  const after = text.slice(end).replace(/^ /, '');
  return { text: text.slice(0, mention.start) + insert + after, caret: mention.start + insert.length };
}
