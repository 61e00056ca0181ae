// Model-controlled text that a person approves or reads as what will run, outside the window
// (an ACP editor's permission request and tool call cards, SPEC §14): always whole, never
// cut, with nothing in it that hides what follows. Every character of invisible.ts's classes
// and every space other than U+0020 (as the window escapes them: `rm a\u00a0b` removes one
// file) is shown as an escape like `\u200b`; a run of BLANK_RUN or more spaces, or (on several
// lines) of BLANK_LINES or more blank lines, which pushes what follows out of sight, is shown
// by its count: `[N spaces]`, `[N blank lines]`. An editor may fold the text; nothing in it
// can make the editor hide part of it.

import { invisiblePatternSource } from './invisible';
import { visibleEscape } from './terminal-safe';

/** Spaces in a row from which a run is shown by its count. */
export const BLANK_RUN = 16;
/** Blank lines in a row from which they are shown by their count. */
export const BLANK_LINES = 3;

const OTHER_SPACES = '\\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000';
const HIDDEN = new RegExp(`(?:${invisiblePatternSource(OTHER_SPACES)})| {${BLANK_RUN},}`, 'gu');
const BLANK_LINE_RUN = new RegExp(`\\n(?:[ \\t]*\\n){${BLANK_LINES},}`, 'g');

/** `text` shown whole; on one line (line breaks and tabs escaped too) when `singleLine`. */
export function shownText(text: string, options: { singleLine?: boolean } = {}): string {
  const lines = options.singleLine ? text : text.replace(BLANK_LINE_RUN, (run) => `\n[${run.split('\n').length - 2} blank lines]\n`);
  return lines.replace(HIDDEN, (match) => {
    if (match.startsWith(' ')) return ` [${match.length} spaces] `;
    if (!options.singleLine && (match === '\n' || match === '\t')) return match;
    return visibleEscape(match);
  });
}

/**
 * `text` as a Markdown code block (editors render a card's text as Markdown): shown whole,
 * its fence longer than any run of backticks inside, so nothing in it closes the block early.
 */
export function shownCodeBlock(text: string): string {
  const shown = shownText(text);
  const longest = Math.max(0, ...[...shown.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}\n${shown}\n${fence}`;
}
