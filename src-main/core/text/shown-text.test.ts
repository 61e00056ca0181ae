import { describe, expect, it } from 'vitest';
import { invisiblePatternSource } from './invisible';
import { shownCodeBlock, shownText } from './shown-text';

const hidden = new RegExp(invisiblePatternSource(), 'u');
const tail = '; touch /tmp/marker';

describe('shownText', () => {
  it.each([
    ['zero-width spaces', '\u200b'.repeat(300)],
    ['bidi overrides', '\u202e\u2066'.repeat(50)],
    ['tag characters', '\u{e0041}'.repeat(50)],
    ['no-break and em spaces', '\u00a0\u2003'.repeat(50)],
    ['many spaces', ' '.repeat(300)],
    ['many line breaks', '\n'.repeat(200)],
    ['carriage returns', '\r'.repeat(20)],
    ['escape sequences', '\x1b[2K\x1b[1A'.repeat(20)],
  ])('keeps the whole text with %s escaped or counted, on one line', (_name, padding) => {
    const shown = shownText(`git status${padding}${tail}`, { singleLine: true });
    expect(shown.startsWith('git status')).toBe(true);
    expect(shown.endsWith(tail)).toBe(true);
    expect(shown).not.toMatch(hidden);
    expect(shown).not.toMatch(/[\n\r\u00a0\u2003]| {16}/);
  });

  it('escapes as \\uXXXX and counts long runs of blanks', () => {
    expect(shownText('a\u200bb\u202ec', { singleLine: true })).toBe('a\\u200bb\\u202ec');
    expect(shownText(`a${' '.repeat(300)}b`)).toBe('a [300 spaces] b');
    expect(shownText(`a${' '.repeat(15)}b`)).toBe(`a${' '.repeat(15)}b`);
    expect(shownText('one\ntwo', { singleLine: true })).toBe('one\\x0atwo');
  });

  it('on several lines keeps line breaks, tabs and a little blank, and counts a screenful of blank lines', () => {
    expect(shownText('if x; then\n\techo y\nfi\n\nz')).toBe('if x; then\n\techo y\nfi\n\nz');
    expect(shownText(`a${'\n'.repeat(200)}b`)).toBe('a\n[199 blank lines]\nb');
    expect(shownText(`a\n \n\t\n  \nb`)).toBe('a\n[3 blank lines]\nb');
  });

  it('keeps real text: accents, scripts, emoji', () => {
    for (const text of ['café', 'नमस्ते', 'שָׁלוֹם', '日本語', 'git commit -m "fix"']) expect(shownText(text)).toBe(text);
  });
});

describe('shownCodeBlock', () => {
  it('fences the text with more backticks than it holds, so it cannot close the block', () => {
    expect(shownCodeBlock('ls')).toBe('```\nls\n```');
    expect(shownCodeBlock('echo ```; rm x')).toBe('````\necho ```; rm x\n````');
  });
});
