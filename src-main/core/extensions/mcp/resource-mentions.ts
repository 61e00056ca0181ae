// `@server:URI` in a message (SPEC §10 "Resources and prompts"): the resource of that server to
// attach. The server is an mcpServers key; the URI runs to the next whitespace and has a scheme,
// so prose like `@alice: hi` or an e-mail address is no mention.
export interface ResourceMention {
  server: string;
  uri: string;
  /** Where the mention (from its `@`) starts in the text, and its length. */
  index: number;
  length: number;
}

const MENTION = /(?<![^\s([{"'`])@([A-Za-z0-9_.-]+):([A-Za-z][A-Za-z0-9+.-]*:\S+)/g;
/** Sentence punctuation after a mention is not part of its URI. */
const TRAILING = /[.,;:!?'"`]+$/;

export function parseResourceMentions(text: string): ResourceMention[] {
  const out: ResourceMention[] = [];
  for (const match of text.matchAll(MENTION)) {
    let uri = match[2]!.replace(TRAILING, '');
    // A closing bracket belongs to the URI only when the URI opened one.
    while (/[)\]}]$/.test(uri) && count(uri, closerOf(uri.at(-1)!)) < count(uri, uri.at(-1)!)) uri = uri.slice(0, -1).replace(TRAILING, '');
    if (!/^[A-Za-z][A-Za-z0-9+.-]*:.+/.test(uri)) continue;
    out.push({ server: match[1]!, uri, index: match.index, length: 1 + match[1]!.length + 1 + uri.length });
  }
  return out;
}

function closerOf(close: string): string {
  return close === ')' ? '(' : close === ']' ? '[' : '{';
}

function count(text: string, char: string): number {
  let n = 0;
  for (const c of text) if (c === char) n++;
  return n;
}
