// Text that is data, put into Markdown as code: in a transcript a person reads, or in a prompt
// a model reads (a goal's evidence for its grader). Nothing inside can close the block or
// span and go on as Markdown of its own: the backticks around it outnumber any run within.

/** `text` in a fence longer than any run of backticks inside it: nothing in it can close the block. */
export function fence(text: string, info: string): string {
  const ticks = '`'.repeat(Math.max(3, longestRun(text) + 1));
  return `${ticks}${info}\n${text}${text.endsWith('\n') || text === '' ? '' : '\n'}${ticks}`;
}

/** One line as a code span whose backticks outnumber any run inside it. */
export function inlineCode(text: string): string {
  const line = oneLine(text);
  if (line === '') return '``';
  const ticks = '`'.repeat(longestRun(line) + 1);
  const pad = line.startsWith('`') || line.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${line}${pad}${ticks}`;
}

/** Whitespace runs (newlines too) as one space, trimmed; cut to `cap` characters with an ellipsis. */
export function oneLine(text: string, cap = Infinity): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > cap ? `${flat.slice(0, cap - 1)}…` : flat;
}

function longestRun(text: string): number {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return longest;
}
