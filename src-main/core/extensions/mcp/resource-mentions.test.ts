import { describe, expect, it } from 'vitest';
import { parseResourceMentions } from './resource-mentions';

const pairs = (text: string) => parseResourceMentions(text).map(({ server, uri }) => ({ server, uri }));

describe('parseResourceMentions (@server:URI)', () => {
  it('finds mentions with the URI up to whitespace, sentence punctuation left out', () => {
    expect(pairs('look at @every:demo://resource/static/document/a.md and @fs:file:///tmp/x.txt.')).toEqual([
      { server: 'every', uri: 'demo://resource/static/document/a.md' },
      { server: 'fs', uri: 'file:///tmp/x.txt' },
    ]);
    expect(pairs('(see @gh-issues:github://repo/issues/1)')).toEqual([{ server: 'gh-issues', uri: 'github://repo/issues/1' }]);
    expect(pairs('@w:https://en.wikipedia.org/wiki/Foo_(bar)')).toEqual([{ server: 'w', uri: 'https://en.wikipedia.org/wiki/Foo_(bar)' }]);
  });

  it('is no mention without a scheme, inside a word or an e-mail address', () => {
    expect(pairs('@alice: can you check')).toEqual([]);
    expect(pairs('mail me@host:demo://x')).toEqual([]);
    expect(pairs('@server:just-words')).toEqual([]);
  });

  it('reports where each mention is', () => {
    const text = 'a @s:x://y b';
    const [m] = parseResourceMentions(text);
    expect(text.slice(m!.index, m!.index + m!.length)).toBe('@s:x://y');
  });
});
