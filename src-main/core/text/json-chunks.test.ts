import { describe, expect, it } from 'vitest';
import { JsonArrayText, jsonChunks } from './json-chunks';

const joined = (value: unknown): string => Buffer.concat([...jsonChunks(value)].map((piece) => (typeof piece === 'string' ? Buffer.from(piece) : piece))).toString('utf8');
/** Members' text a batch at a time, every other batch as UTF-8 bytes. */
const pieces = (members: readonly unknown[]): Array<string | Uint8Array> =>
  Array.from({ length: Math.ceil(members.length / 64) }, (_, b) => {
    const text = JSON.stringify(members.slice(b * 64, b * 64 + 64)).slice(1, -1);
    return b % 2 === 0 ? text : Buffer.from(text);
  });

describe('jsonChunks', () => {
  it('joins to exactly what JSON.stringify writes', () => {
    const long = Array.from({ length: 200 }, (_, i) => (i % 7 === 0 ? undefined : i % 5 === 0 ? () => i : { i, s: `"x${i}"\n`, d: new Date(i), nested: [1, undefined, { a: undefined }] }));
    for (const value of [
      { values: { messages: long, todos: [] }, next: [], metadata: { step: 3, parents: {} }, created_at: null, skipped: undefined },
      long,
      [],
      {},
      null,
      'text',
      42,
      { toJSON: () => ({ replaced: true }) },
      Object.assign(Object.create(null) as object, { a: 1 }),
      { map: new Map([[1, 2]]), nan: Number.NaN, inf: -Infinity },
    ]) {
      expect(joined(value)).toBe(JSON.stringify(value));
    }
  });

  it('writes a long array a batch of members at a time', () => {
    const pieces = [...jsonChunks({ messages: Array.from({ length: 1000 }, (_, i) => ({ i })) })];
    expect(pieces.length).toBeGreaterThan(10);
  });

  it('writes an array given as its JSON text as it is: the same text JSON.stringify writes of the array', () => {
    const members = Array.from({ length: 150 }, (_, i) => (i % 9 === 0 ? undefined : { i, s: `"m${i}"\u2028 é 😀`, nested: [i, null] }));
    for (const list of [members, members.slice(0, 1), []]) {
      const value = { values: { messages: new JsonArrayText(pieces(list)), todos: [] }, next: [] };
      const expected = JSON.stringify({ values: { messages: list, todos: [] }, next: [] });
      expect(joined(value)).toBe(expected);
      expect(JSON.stringify(value)).toBe(expected);
    }
  });
});
