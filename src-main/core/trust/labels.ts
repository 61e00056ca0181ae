// How a trust entry is shown to the person (SPEC §9): one line that says exactly what would
// run. The text comes from a file anyone may have written (a cloned repository), so every
// control or invisible character is shown as an escape: a label cannot hide or reorder
// what it lists.

import { terminalSafe } from '../text/terminal-safe';

/** A word as a shell would need it written: single-quoted unless it is plain. */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** One line, with nothing hidden: controls, newlines and invisible characters as escapes. */
export function visibleLine(text: string): string {
  return terminalSafe(text, { singleLine: true });
}
