// Token estimates stay close to the tokenizer's exact count, and a run of text without spaces
// (which byte-pair merging handles in quadratic time) is counted in pieces.
import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { countTextTokens } from './token-count';

const exact = (text: string): number => countTokens(text, { disallowedSpecial: new Set<string>() });

describe('countTextTokens', () => {
  it('is the exact count for text without long runs', () => {
    const text = 'Read the tests first, then src/app.ts: `const a = 1;` and https://example.com/a/b?c=d.\n'.repeat(50);
    expect(countTextTokens(text)).toBe(exact(text));
    expect(countTextTokens('')).toBe(0);
  });

  it('counts long runs in pieces: never fewer tokens, at most one more per piece', () => {
    const base64 = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7919) % 256)).toString('base64');
    const astral = '😀'.repeat(700);
    for (const text of ['['.repeat(3000), `before ${'a'.repeat(2000)} after`, `x ${base64} y`, `${astral}\n${'>'.repeat(1500)} q`]) {
      const pieces = Math.ceil(text.length / 256);
      const counted = countTextTokens(text);
      expect(counted).toBeGreaterThanOrEqual(exact(text));
      expect(counted).toBeLessThanOrEqual(exact(text) + pieces);
    }
  });
});
