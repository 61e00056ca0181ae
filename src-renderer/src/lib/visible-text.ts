// Makes invisible and direction-changing characters visible, for the moment of trust: a
// command or path the person approves must read exactly as it will run. Model-controlled
// text can hide a `touch` behind a right-to-left override (U+202E), a zero-width space or
// a terminal control; each such character is shown as an escape like ⟨U+202E⟩ instead.

/** Characters that change or hide what the text looks like. */
const INVISIBLE =
  // C0 controls except tab and newline, DEL and C1 controls
  '\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F' +
  // soft hyphen, combining grapheme joiner, Arabic letter mark, Hangul fillers, Mongolian vowel separator
  '\\u00AD\\u034F\\u061C\\u115F\\u1160\\u17B4\\u17B5\\u180E\\u3164\\uFFA0' +
  // zero-width space/non-joiner/joiner, LRM, RLM, line and paragraph separators
  '\\u200B-\\u200F\\u2028\\u2029' +
  // bidi embeddings and overrides, word joiner, invisible operators, bidi isolates, deprecated format characters
  '\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u206F' +
  // BOM / zero-width no-break space, variation selectors, interlinear annotations, tags
  '\\uFEFF\\uFE00-\\uFE0F\\uFFF9-\\uFFFB' +
  '\\u{E0000}-\\u{E007F}\\u{E0100}-\\u{E01EF}' +
  // unpaired surrogates
  '\\uD800-\\uDFFF';

// The class lists joiners and variation selectors one by one on purpose.
// eslint-disable-next-line no-misleading-character-class
const PATTERN = new RegExp(`[${INVISIBLE}]`, 'gu');
// eslint-disable-next-line no-misleading-character-class
const TEST = new RegExp(`[${INVISIBLE}]`, 'u');

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
