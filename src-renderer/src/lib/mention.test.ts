import { describe, it, expect } from 'vitest';
import { applyMention, findMention } from './mention';

describe('mentions', () => {
  it('finds the mention at the caret', () => {
    expect(findMention('@', 1)).toEqual({ start: 0, query: '' });
    expect(findMention('look at @src/ma', 15)).toEqual({ start: 8, query: 'src/ma' });
    expect(findMention('mail a@b.com', 12)).toBeNull();
    expect(findMention('@done and more', 14)).toBeNull();
    expect(findMention('line\n@x', 7)).toEqual({ start: 5, query: 'x' });
  });

  it('replaces the whole word with the path', () => {
    const text = 'see @sr please';
    const m = findMention(text, 7);
    expect(m).not.toBeNull();
    expect(applyMention(text, m!, 7, '/src/main.ts')).toEqual({ text: 'see /src/main.ts please', caret: 17 });
    const end = 'open @';
    expect(applyMention(end, findMention(end, 6)!, 6, '/a.txt')).toEqual({ text: 'open /a.txt ', caret: 12 });
  });
});
