// Which code points are never shown as themselves where a person must read model-controlled
// text exactly (a command or a path to approve, a line printed to a terminal). One
// definition for the window (src-renderer/src/lib/visible-text.ts, escapes like ⟨U+202E⟩)
// and the terminal (terminal-safe.ts, escapes like \u202e), built from Unicode's own
// classes rather than a hand list:
//
// - every control (Cc: C0, DEL, C1), format character (Cf: bidi controls, zero-width
//   characters, tags, Arabic number signs, …), line separator (Zl) and paragraph
//   separator (Zp), and every lone surrogate (Cs);
// - every default-ignorable code point (variation selectors, the combining grapheme joiner,
//   Hangul fillers, Mongolian free variation selectors, …): drawn as nothing;
// - every combining mark (M) standing alone. A mark stands alone unless it directly follows
//   a base character it can sit on, through at most MAX_STACKED_MARKS - 1 marks that sit on
//   it too. A base character is any code point that is not whitespace (which includes line
//   breaks), not a mark and not itself escaped. So a mark at the start of the text, after a
//   space, a tab, a line break, a control or another escape is escaped (it would otherwise
//   sit on nothing, or on the escape's bracket), and so is each mark past the fourth stacked
//   on one character (a tall stack draws over the lines around it). Marks on letters,
//   digits and symbols, as real text writes them (é as e + U+0301, Devanagari, Thai,
//   pointed Hebrew), are kept.
//
// Tab and newline are controls too: each caller decides whether to keep them.

/** How many combining marks one character may carry before the rest are shown escaped. */
export const MAX_STACKED_MARKS = 4;

/**
 * The source of a `u`-flag regex that matches, one code point at a time, each code point to
 * show escaped. `also` is a character-class body of further characters the caller escapes
 * (a mark after one of them stands alone too).
 */
export function invisiblePatternSource(also = ''): string {
  const hidden = `[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Cs}\\p{Default_Ignorable_Code_Point}${also}]`;
  const base = `(?!${hidden})[^\\p{M}\\p{White_Space}]`;
  const attachedMark = `(?!${hidden})\\p{M}`;
  return `${hidden}|(?<!${base}(?:${attachedMark}){0,${MAX_STACKED_MARKS - 1}})\\p{M}`;
}
