import { describe, expect, it } from 'vitest';
import { codePointEscape, hasInvisible, visibleParts, visibleText } from './visible-text';

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

/** Every character that must never reach the screen as itself (SPEC: the moment of trust). */
const HOSTILE = [
  ...range(0x202a, 0x202e), // bidi embeddings and overrides
  ...range(0x2066, 0x2069), // bidi isolates
  0x200e, 0x200f, // LRM, RLM
  ...range(0x200b, 0x200d), // zero-width space, non-joiner, joiner
  0x2060, // word joiner
  0xfeff, // BOM
  ...range(0x00, 0x08), ...range(0x0b, 0x1f), 0x7f, // C0 controls but tab and newline, DEL
  ...range(0x80, 0x9f), // C1 controls
  0x061c, 0x00ad, 0x2028, 0x2029, 0xe0001, 0xe0041, // Arabic letter mark, soft hyphen, separators, tags
];

/** A small deterministic PRNG, so failures reproduce. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const SAFE = ['a', 'Z', '0', ' ', '/', '.', '-', '$', '(', ')', '"', "'", 'é', 'ж', '中', 'ע', 'ب', '😀', '\t', '\n'];

function unescape(text: string): string {
  return text.replace(/⟨U\+([0-9A-F]{4,6})⟩/g, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)));
}

describe('visibleText', () => {
  it('shows every bidi control, invisible character and C0/C1 control as an escape', () => {
    for (const cp of HOSTILE) {
      const char = String.fromCodePoint(cp);
      const shown = visibleText(`rm${char}x`);
      expect(shown, `U+${cp.toString(16)}`).toBe(`rm⟨U+${cp.toString(16).toUpperCase().padStart(4, '0')}⟩x`);
      expect(hasInvisible(`a${char}`)).toBe(true);
    }
  });

  it('leaves nothing hidden in generated strings, and loses nothing', () => {
    const random = rng(42);
    const pick = <T,>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    const hostile = new Set(HOSTILE);
    const failures: string[] = [];
    for (let n = 0; n < 3000; n++) {
      let text = '';
      const length = 1 + Math.floor(random() * 40);
      for (let i = 0; i < length; i++) text += random() < 0.3 ? String.fromCodePoint(pick(HOSTILE)) : pick(SAFE);
      const shown = visibleText(text);
      const leaked = [...shown].some((char) => hostile.has(char.codePointAt(0)!));
      // (the escapes' own ⟨ brackets aside: a ⟨ is itself shown escaped)
      const ok = !leaked && !hasInvisible(shown.replace(/⟨/g, '')) && unescape(shown) === text && visibleParts(text).map((p) => p.text).join('') === shown;
      if (!ok) failures.push(text);
    }
    expect(failures.map((t) => JSON.stringify(t))).toEqual([]);
  });

  it('keeps ordinary text, tabs, newlines and other scripts as they are', () => {
    const text = 'echo "héllo 中文 עברית عربي 😀"\n\tcd /tmp && ls -la';
    expect(visibleText(text)).toBe(text);
    expect(hasInvisible(text)).toBe(false);
    expect(visibleParts(text)).toEqual([{ text, escaped: false }]);
  });

  it('escapes a lone surrogate but keeps a real pair', () => {
    expect(visibleText('a\uD800b')).toBe('a⟨U+D800⟩b');
    expect(visibleText('😀')).toBe('😀');
  });

  it('marks which parts are escapes', () => {
    expect(visibleParts('ab\u202Ecd')).toEqual([
      { text: 'ab', escaped: false },
      { text: '⟨U+202E⟩', escaped: true },
      { text: 'cd', escaped: false },
    ]);
  });
});

// ---- Every invisible code point, generated from Unicode's own classes (not a hand list) ----

/** Every code point (no lone surrogates) that `test` accepts. */
function codePoints(test: RegExp): string[] {
  const out: string[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const c = String.fromCodePoint(cp);
    if (test.test(c)) out.push(c);
  }
  return out;
}

const escapeOf = (c: string): string => `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`;
const FORMAT_AND_SEPARATORS = codePoints(/^[\p{Cf}\p{Zl}\p{Zp}]$/u);
const CONTROLS = codePoints(/^\p{Cc}$/u).filter((c) => c !== '\t' && c !== '\n');
const IGNORABLE = codePoints(/^\p{Default_Ignorable_Code_Point}$/u);
const MARKS = codePoints(/^\p{M}$/u);
/** Marks that are also default-ignorable (variation selectors, CGJ, …): escaped wherever they stand. */
const HIDDEN_MARKS = new Set(MARKS.filter((c) => /\p{Default_Ignorable_Code_Point}/u.test(c)));

describe('visibleText over whole Unicode classes', () => {
  it(`escapes every one of the ${FORMAT_AND_SEPARATORS.length} format (Cf), line (Zl) and paragraph (Zp) separator code points`, () => {
    expect(FORMAT_AND_SEPARATORS.length).toBeGreaterThanOrEqual(172);
    const missed = FORMAT_AND_SEPARATORS.filter((c) => visibleText(`a${c}b`) !== `a${escapeOf(c)}b` || !hasInvisible(c));
    expect(missed.map(escapeOf)).toEqual([]);
  });

  it('escapes every control but tab and newline, and every default-ignorable code point', () => {
    const missed = [...CONTROLS, ...IGNORABLE].filter((c) => visibleText(`a${c}b`) !== `a${escapeOf(c)}b`);
    expect(missed.map(escapeOf)).toEqual([]);
  });

  it(`escapes each of the ${MARKS.length} combining marks standing alone: at the start, after whitespace, a line break or an escape`, () => {
    const missed: string[] = [];
    for (const m of MARKS) {
      for (const [before, shownBefore] of [['', ''], [' ', ' '], ['\n', '\n'], ['\t', '\t'], ['\u3000', '⟨U+3000⟩'], ['\u202E', '⟨U+202E⟩'], ['\u0000', '⟨U+0000⟩']]) {
        if (visibleText(`${before}${m}x`) !== `${shownBefore}${escapeOf(m)}x`) missed.push(`${JSON.stringify(before)} ${escapeOf(m)}`);
      }
    }
    expect(missed).toEqual([]);
  });

  it('keeps a combining mark on the letter it combines with (but never one that is invisible anyway)', () => {
    const wrong = MARKS.filter((m) => visibleText(`a${m}`) !== (HIDDEN_MARKS.has(m) ? `a${escapeOf(m)}` : `a${m}`));
    expect(wrong.map(escapeOf)).toEqual([]);
    // A mark after an escaped mark stands alone: it would otherwise sit on the escape's bracket.
    expect(visibleText('a\uFE0F\u0301')).toBe('a⟨U+FE0F⟩⟨U+0301⟩');
  });

  it('keeps real text with combining marks as it is', () => {
    for (const text of ['cafe\u0301', 'नमस्ते', 'ที่นี่', 'שָׁלוֹם', 'Tie\u0302\u0301ng Vie\u0323\u0302t', 'ক্ষ্মী', 'x\u20DD', '👍🏽', '1\u20E3']) {
      expect(visibleText(text), text).toBe(text);
      expect(hasInvisible(text)).toBe(false);
    }
  });

  it('shows at most four marks stacked on one character; the rest are escaped', () => {
    const stack = 'a' + '\u0301\u0302\u0303\u0304\u0305\u0306';
    expect(visibleText(stack)).toBe('a\u0301\u0302\u0303\u0304⟨U+0305⟩⟨U+0306⟩');
  });

  it('escapes the escape bracket itself, so that what is shown decodes to exactly one text', () => {
    expect(visibleText('x⟨U+202E⟩y')).toBe('x⟨U+27E8⟩U+202E⟩y');
    expect(unescape(visibleText('x⟨U+202E⟩y\u202E'))).toBe('x⟨U+202E⟩y\u202E');
  });

  it('decodes back to the input and leaves nothing invisible in generated hostile strings', () => {
    const random = rng(7);
    const pick = <T,>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    const pools = [FORMAT_AND_SEPARATORS, CONTROLS, MARKS, IGNORABLE, SAFE, ['⟨', '⟩', 'U+202E', ' ', '\n']];
    const failures: string[] = [];
    for (let n = 0; n < 3000; n++) {
      let text = '';
      const length = 1 + Math.floor(random() * 30);
      for (let i = 0; i < length; i++) text += pick(pick(pools));
      const shown = visibleText(text);
      const plain = shown.replace(/⟨U\+[0-9A-F]{4,6}⟩/g, '');
      const ok =
        unescape(shown) === text &&
        !/[\p{Cf}\p{Zl}\p{Zp}\p{Cs}⟨]|(?![\t\n])\p{Cc}/u.test(plain) &&
        // every mark left as itself sits on a character: not at the start, after whitespace or an escape
        !/(?:^|\s|⟨U\+[0-9A-F]{4,6}⟩)\p{M}/u.test(shown) &&
        visibleParts(text).map((p) => p.text).join('') === shown;
      if (!ok) failures.push(text);
    }
    expect(failures.map((t) => JSON.stringify(t))).toEqual([]);
  });
});

describe('look-alike spaces in commands and paths', () => {
  it('every Zs space but U+0020 is escaped', () => {
    for (let code = 0; code <= 0xffff; code++) {
      const c = String.fromCodePoint(code);
      if (!/^\p{Zs}$/u.test(c) || code === 0x20) continue;
      expect(visibleText(`rm a${c}b`), `U+${code.toString(16)}`).toBe(`rm a${codePointEscape(c)}b`);
    }
    expect(visibleText('rm a b')).toBe('rm a b');
  });
});
