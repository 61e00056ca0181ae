/** `value` single-quoted for a POSIX shell, whatever it holds. */
export function shQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** A word as a shell would need it written: single-quoted unless it is plain. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : shQuote(word);
}
