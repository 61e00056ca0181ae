import { describe, expect, it } from 'vitest';
import { hasInvisible, visibleParts, visibleText } from './visible-text';

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
      const ok = !leaked && !hasInvisible(shown) && unescape(shown) === text && visibleParts(text).map((p) => p.text).join('') === shown;
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
