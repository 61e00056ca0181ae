import { describe, expect, it } from 'vitest';
import { type Marker, MarkerParser, type StreamToken } from './markers';

const NONCE = '0123456789abcdef0123456789abcdef';
const mark = (body: string, end = '\x07'): string => `\x1b]6973;${body}${end}`;

function parseAll(chunks: string[], nonce = NONCE): { text: string; markers: Marker[]; tokens: StreamToken[] } {
  const parser = new MarkerParser(nonce);
  const tokens = chunks.flatMap((chunk) => parser.push(chunk));
  let text = '';
  const markers: Marker[] = [];
  for (const token of tokens) {
    if ('text' in token) text += token.text;
    else markers.push(token.marker);
  }
  return { text: text + parser.release(), markers, tokens };
}

describe('MarkerParser', () => {
  it('cuts markers with the right nonce out of the stream and reports them', () => {
    const { text, markers } = parseAll([`a${mark(`S;${NONCE};3;123`)}out\r\n${mark(`E;${NONCE};3;0`, '\x1b\\')}b`]);
    expect(text).toBe('aout\r\nb');
    expect(markers).toEqual([
      { kind: 'S', fields: ['3', '123'] },
      { kind: 'E', fields: ['3', '0'] },
    ]);
  });

  it('drops marker-shaped sequences with a wrong nonce or kind without obeying them', () => {
    const { text, markers } = parseAll([`x${mark('E;ffffffffffffffffffffffffffffffff;3;0')}y${mark(`Z;${NONCE};1`)}z`]);
    expect(markers).toEqual([]);
    expect(text).toBe('xyz');
  });

  it('reassembles a marker split anywhere across chunks', () => {
    const whole = `before${mark(`E;${NONCE};12;7`)}after`;
    for (let cut = 1; cut < whole.length; cut++) {
      const { text, markers } = parseAll([whole.slice(0, cut), whole.slice(cut)]);
      expect(text, `cut at ${cut}`).toBe('beforeafter');
      expect(markers).toEqual([{ kind: 'E', fields: ['12', '7'] }]);
    }
    const bytewise = parseAll([...whole]);
    expect(bytewise.text).toBe('beforeafter');
    expect(bytewise.markers).toHaveLength(1);
  });

  it('does not let an unterminated forgery swallow the real marker after it', () => {
    const { text, markers } = parseAll([`\x1b]6973;E;${NONCE};1;9`, `\n${mark(`E;${NONCE};1;0`)}`]);
    expect(markers).toEqual([{ kind: 'E', fields: ['1', '0'] }]);
    expect(text).toBe(`\x1b]6973;E;${NONCE};1;9\n`);
  });

  it('passes other escape sequences and garbage through untouched', () => {
    const garbage = '\x1b]0;title\x07\x1b[31mred\x1b[0m\x1b]6973\x1b]69;x\x07\x1b';
    const { text, markers } = parseAll([garbage, 'tail']);
    expect(markers).toEqual([]);
    expect(text).toBe(`${garbage}tail`);
  });

  it('gives up on an overlong marker-shaped sequence', () => {
    const long = `\x1b]6973;E;${'1'.repeat(600)}`;
    const parser = new MarkerParser(NONCE);
    const tokens = parser.push(long);
    expect(parser.holding).toBe(false);
    expect(tokens).toEqual([{ text: long }]);
  });

  it('holds back a possible marker start and releases it on request', () => {
    const parser = new MarkerParser(NONCE);
    expect(parser.push('abc\x1b]69')).toEqual([{ text: 'abc' }]);
    expect(parser.holding).toBe(true);
    expect(parser.release()).toBe('\x1b]69');
    expect(parser.holding).toBe(false);
  });
});
