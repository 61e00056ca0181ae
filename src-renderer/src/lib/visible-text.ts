// Makes invisible and direction-changing characters visible, for the moment of trust: a
// command or path the person approves must read exactly as it will run. Model-controlled
// text can hide a `touch` behind a right-to-left override (U+202E), a zero-width space or
// a terminal control; each such character is shown as an escape like ⟨U+202E⟩ instead.

import { invisiblePatternSource } from '../../../src-main/app/contract';

// Which characters: src-main/core/text/invisible.ts (every control but tab and newline,
// every format character, line and paragraph separator, lone surrogate and default-ignorable
// code point, and combining marks standing alone), plus the escape's own opening bracket ⟨:
// a ⟨ the model wrote is shown as ⟨U+27E8⟩, so every ⟨ on screen starts an escape and the
// text shown decodes to exactly one text. Spaces other than U+0020 (no-break, em, ideographic
// …) are escaped too: `rm a⟨U+00A0⟩b` removes one file, not two.
const SOURCE = `(?![\\t\\n])(?:${invisiblePatternSource('⟨\\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000')})`;
const PATTERN = new RegExp(SOURCE, 'gu');
const TEST = new RegExp(SOURCE, 'u');

export interface VisiblePart {
  text: string;
  /** True when `text` is an escape standing for an invisible character. */
  escaped: boolean;
}

export function codePointEscape(char: string): string {
  const cp = char.codePointAt(0) ?? 0;
  return `⟨U+${cp.toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

/** Whether `text` holds a character that `visibleText` would escape. */
export function hasInvisible(text: string): boolean {
  return TEST.test(text);
}

/** `text` cut into runs of plain text and escapes (for styling the escapes). */
export function visibleParts(text: string): VisiblePart[] {
  const parts: VisiblePart[] = [];
  let last = 0;
  for (const match of text.matchAll(PATTERN)) {
    const at = match.index;
    if (at > last) parts.push({ text: text.slice(last, at), escaped: false });
    parts.push({ text: codePointEscape(match[0]), escaped: true });
    last = at + match[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last), escaped: false });
  return parts;
}

/** `text` with every invisible or control character replaced by a visible escape. */
export function visibleText(text: string): string {
  return text.replace(PATTERN, codePointEscape);
}
