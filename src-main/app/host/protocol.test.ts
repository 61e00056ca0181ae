import { describe, expect, it } from 'vitest';
import { textPieces } from './protocol';

describe('textPieces', () => {
  it('cuts text into pieces of at most the size, never between the halves of a character', () => {
    const text = 'ab😀cd😀😀e';
    for (let max = 1; max <= text.length + 1; max++) {
      const pieces = textPieces(text, max);
      expect(pieces.join('')).toBe(text);
      for (const piece of pieces) {
        expect(piece.length).toBeLessThanOrEqual(Math.max(max, 2));
        // Each piece survives UTF-8 on its own.
        expect(new TextDecoder().decode(new TextEncoder().encode(piece))).toBe(piece);
      }
    }
    expect(textPieces('', 4)).toEqual([]);
  });
});
