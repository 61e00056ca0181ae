import { describe, expect, it } from 'vitest';
import type { GrepMatch } from '../protocol';
import { grepLines } from './store-records';
import { splitLines } from '../text';

/** The obvious definition: every line that contains the pattern. */
function reference(content: string, pattern: string): Array<[number, string]> {
  return splitLines(content).flatMap((text, i) => (text.includes(pattern) ? [[i + 1, text] as [number, string]] : []));
}

describe('grepLines', () => {
  it('matches the line-by-line definition on tricky texts', () => {
    const texts = ['', 'x', 'x\n', '\nx\n\nxx x\n', 'a\r\nxa\r\n\r\nx', 'no match here', 'xyx\nyxy\nxxyy', '\uFEFFxy\n', 'x'.repeat(5) + '\n' + 'y\n'.repeat(3) + 'x'];
    for (const text of texts) {
      for (const pattern of ['x', 'xy', 'y\n', 'a\r', '\r\n', 'zz']) {
        const out: GrepMatch[] = [];
        grepLines('/f', text, pattern, out, 1000);
        expect(out.map((m) => [m.line, m.text]), `${JSON.stringify(text)} / ${JSON.stringify(pattern)}`).toEqual(reference(text, pattern));
      }
    }
  });

  it('stops at the limit and says more remain', () => {
    const out: GrepMatch[] = [];
    expect(grepLines('/f', 'x\nx\nx\n', 'x', out, 2)).toBe(true);
    expect(out.map((m) => m.line)).toEqual([1, 2]);
  });
});
