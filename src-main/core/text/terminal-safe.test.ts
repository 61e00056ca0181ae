import { describe, expect, it } from 'vitest';
import { terminalSafe, terminalSafeJson } from './terminal-safe';

// Everything a terminal obeys or that hides/reorders text, per Unicode (Cc, Cf) plus the
// line/paragraph separators and the invisible Hangul fillers.
const ACTIVE = /[\p{Cc}\p{Cf}\u2028\u2029\u115f\u1160\u3164\uffa0]/u;
const activeOutside = (s: string) => [...s].filter((c) => c !== '\n' && c !== '\t' && ACTIVE.test(c));

function allCodePoints(test: (c: string) => boolean): string[] {
  const out: string[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const c = String.fromCodePoint(cp);
    if (test(c)) out.push(c);
  }
  return out;
}

const ACTIVE_CHARS = allCodePoints((c) => ACTIVE.test(c));
const ESC = '\x1b';
const SEQUENCES = [
  `${ESC}[2J${ESC}[H`, `${ESC}[31m`, `${ESC}[?1049h`, `${ESC}]0;title\x07`, `${ESC}]8;;https://evil/\x1b\\link${ESC}]8;;${ESC}\\`,
  `${ESC}P+q544e${ESC}\\`, `${ESC}_apc${ESC}\\`, `${ESC}^pm${ESC}\\`, `${ESC}c`, `${ESC}7${ESC}8`, `${ESC}[6n`,
  '\x9b2J', '\x9d0;title\x9c', '\x90qdcs\x9c', '\x9b1;1H', '\r$ npm test\r\n', '\b\b\b\b', 'a\x7fb',
];
const BIDI = ['\u202e', '\u202d', '\u202a', '\u202b', '\u202c', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c'];
const INVISIBLE = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u180e', '\u{e0041}', '\u2028', '\u2029', '\u3164'];

describe('terminalSafe', () => {
  it(`escapes every one of the ${ACTIVE_CHARS.length} control and format characters (except \\n and \\t)`, () => {
    expect(ACTIVE_CHARS.length).toBeGreaterThan(200);
    for (const c of ACTIVE_CHARS) {
      const out = terminalSafe(`a${c}b`);
      if (c === '\n' || c === '\t') expect(out).toBe(`a${c}b`);
      else {
        expect(activeOutside(out)).toEqual([]);
        expect(out).toMatch(/^a\\(x[0-9a-f]{2}|u[0-9a-f]{4}|u\{[0-9a-f]+\})b$/);
      }
    }
  });

  it('neutralises generated hostile strings: CSI/OSC/DCS in 7 and 8 bits, bidi, zero-width, lone surrogates', () => {
    const parts = [...SEQUENCES, ...BIDI, ...INVISIBLE, '\ud800', '\udfff', 'plain', 'npm test', '日本', '🙂'];
    let seed = 9;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
    for (let i = 0; i < 3000; i++) {
      let s = '';
      for (let k = 0; k < 1 + rand(8); k++) s += parts[rand(parts.length)] ?? ACTIVE_CHARS[rand(ACTIVE_CHARS.length)]!;
      if (rand(2) === 0) s += ACTIVE_CHARS[rand(ACTIVE_CHARS.length)]!;
      for (const out of [terminalSafe(s), terminalSafe(s, { singleLine: true })]) {
        expect(out).not.toContain(ESC);
        expect(activeOutside(out)).toEqual([]);
        expect(out).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
      }
      expect(terminalSafe(s, { singleLine: true })).not.toMatch(/[\n\t]/);
    }
  });

  it('shows them visibly and leaves ordinary text alone', () => {
    expect(terminalSafe('touch x\u202e')).toBe('touch x\\u202e');
    expect(terminalSafe(`${ESC}[2J$ npm test`)).toBe('\\x1b[2J$ npm test');
    expect(terminalSafe('\x9b2J')).toBe('\\x9b2J');
    const plain = 'Hello, wörld! 日本語 🙂 tab\there\nnext line ~`!@#$%^&*()_+{}|:"<>?';
    expect(terminalSafe(plain)).toBe(plain);
  });
});

describe('terminalSafeJson', () => {
  it('is valid JSON that decodes to the same value and carries nothing a terminal obeys', () => {
    const value = { reason: SEQUENCES.join('') + BIDI.join('') + INVISIBLE.join(''), all: ACTIVE_CHARS.join(''), n: [1, 'a\u009bb'] };
    for (const text of [terminalSafeJson(value), terminalSafeJson(value, 2)]) {
      expect(JSON.parse(text)).toEqual(value);
      expect(activeOutside(text)).toEqual([]);
    }
  });

  it('holds strings of any length (an 11 MB line with escapes and a bidi control at its end)', () => {
    const value = { output: 'x"\\\n'.repeat(3 * 1024 * 1024) + '\u202e' };
    const text = terminalSafeJson(value);
    expect(JSON.parse(text)).toEqual(value);
    expect(text.endsWith('\\u202e"}')).toBe(true);
  });
});

/** Every code point (no lone surrogates) that `test` accepts. */
const every = (test: RegExp) => allCodePoints((c) => test.test(c));
const FORMAT_AND_SEPARATORS = every(/^[\p{Cf}\p{Zl}\p{Zp}]$/u);
const IGNORABLE = every(/^\p{Default_Ignorable_Code_Point}$/u);
const MARKS = every(/^\p{M}$/u);
const HIDDEN_MARKS = new Set(MARKS.filter((c) => /\p{Default_Ignorable_Code_Point}/u.test(c)));
const shownAs = (c: string) => terminalSafe(c, { singleLine: true });

describe('terminalSafe over whole Unicode classes (the same classes as the window, lib/visible-text.ts)', () => {
  it(`escapes every one of the ${FORMAT_AND_SEPARATORS.length} format (Cf), line (Zl) and paragraph (Zp) separator code points`, () => {
    expect(FORMAT_AND_SEPARATORS.length).toBeGreaterThanOrEqual(172);
    const missed = FORMAT_AND_SEPARATORS.filter((c) => !/^a\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|u\{[0-9a-f]+\})b$/.test(terminalSafe(`a${c}b`)));
    expect(missed.map((c) => c.codePointAt(0)!.toString(16))).toEqual([]);
  });

  it('escapes every default-ignorable code point (variation selectors, Hangul fillers, tags, …)', () => {
    const missed = IGNORABLE.filter((c) => terminalSafe(`a${c}b`) === `a${c}b`);
    expect(missed.map((c) => c.codePointAt(0)!.toString(16))).toEqual([]);
  });

  it(`escapes each of the ${MARKS.length} combining marks standing alone (start, after whitespace, a line break or an escape), and keeps one on its letter`, () => {
    const missed: string[] = [];
    for (const m of MARKS) {
      const escape = shownAs(m);
      if (escape === m) missed.push(`alone ${m.codePointAt(0)!.toString(16)}`);
      for (const before of [' ', '\n', '\t', '\u3000', '\u202e', '\x1b']) {
        if (terminalSafe(`${before}${m}x`) !== `${terminalSafe(before)}${escape}x`) missed.push(`${JSON.stringify(before)} ${m.codePointAt(0)!.toString(16)}`);
      }
      if (terminalSafe(`a${m}`) !== (HIDDEN_MARKS.has(m) ? `a${escape}` : `a${m}`)) missed.push(`on a ${m.codePointAt(0)!.toString(16)}`);
    }
    expect(missed).toEqual([]);
    expect(terminalSafe('a\u0301\u0302\u0303\u0304\u0305\u0306')).toBe('a\u0301\u0302\u0303\u0304\\u0305\\u0306');
    for (const text of ['cafe\u0301', 'नमस्ते', 'ที่นี่', 'שָׁלוֹם']) expect(terminalSafe(text)).toBe(text);
  });
});

describe('terminalSafeJson over whole Unicode classes', () => {
  it('escapes marks standing alone at the start of a string (where they would sit on the quote), and keeps plain JSON as JSON.stringify writes it', () => {
    const value = { '\u0301key': ['\u0301x', ' \u0336', 'e\u0301', '\u202e\u0301'], plain: 'line\nnext\t"q" \\ é', all: FORMAT_AND_SEPARATORS.join('') + IGNORABLE.join('') };
    for (const text of [terminalSafeJson(value), terminalSafeJson(value, 2)]) {
      expect(JSON.parse(text)).toEqual(value);
      expect(activeOutside(text)).toEqual([]);
      expect(text).not.toMatch(/["\s]\p{M}/u);
      expect(text).toContain('e\u0301');
    }
    const plain = { a: 'line\nnext\t"q" \\ é 日本 🙂', b: [1, true, null] };
    expect(terminalSafeJson(plain, 2)).toBe(JSON.stringify(plain, null, 2));
  });
});
