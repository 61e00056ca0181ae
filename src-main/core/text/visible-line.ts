// How a trust entry is shown to the person (SPEC §9): one line that says exactly what would
// run. The text comes from a file anyone may have written (a cloned repository), so every
// control or invisible character is shown as an escape: a label cannot hide or reorder
// what it lists.

import { terminalSafe } from './terminal-safe';

/** One line, with nothing hidden: controls, newlines and invisible characters as escapes. */
export function visibleLine(text: string): string {
  return terminalSafe(text, { singleLine: true });
}
