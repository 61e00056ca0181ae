// Trailing spaces and tabs off each line, in linear time: `/[ \t]+$/` (with or without the
// m flag) retries from every space of a run that is not at the line's end, which is
// quadratic on a line of spaces followed by a word (issue 37: a crafted file stalls a read).

/** The line without its trailing spaces and tabs. */
export function trimSpacesEnd(line: string): string {
  let end = line.length;
  while (end > 0 && (line.charCodeAt(end - 1) === 0x20 || line.charCodeAt(end - 1) === 0x09)) end--;
  return end === line.length ? line : line.slice(0, end);
}

/** Each `\n`-separated line of the text without its trailing spaces and tabs. */
export function trimLineEnds(text: string): string {
  return text.split('\n').map(trimSpacesEnd).join('\n');
}
