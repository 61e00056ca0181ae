// JSON.stringify's text in pieces: an answer of many megabytes (a long thread's state) is
// written as it is made, never held whole as one string. The pieces joined are exactly
// JSON.stringify(value) for the data a reply holds (plain objects, arrays, strings, numbers,
// booleans, null; toJSON honoured): objects are walked key by key, a long array batch of
// members at a time, and everything else is left to JSON.stringify.

/** Arrays longer than this are written a member at a time. */
const LONG_ARRAY = 64;
/** Members of a long array stringified together. */
const ARRAY_BATCH = 64;

/**
 * An array already written as JSON: `pieces` are its members' text (JSON.stringify's), as a
 * string or UTF-8 bytes, each piece one member or several joined by commas, without the
 * brackets. jsonChunks writes it as it is; JSON.stringify (toJSON) writes the same text,
 * parsed back.
 */
export class JsonArrayText {
  constructor(readonly pieces: readonly (string | Uint8Array)[]) {}

  /** Written as the array it stands for (slow: parsed back), so any writer agrees with jsonChunks. */
  toJSON(): unknown[] {
    return JSON.parse(`[${this.pieces.map((piece) => (typeof piece === 'string' ? piece : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength).toString('utf8'))).join(',')}]`) as unknown[];
  }
}

/** The pieces of JSON.stringify(value)'s text, a JsonArrayText's bytes among them as they are (UTF-8). */
export function* jsonChunks(value: unknown): Generator<string | Uint8Array> {
  if (value instanceof JsonArrayText) {
    yield '[';
    let first = true;
    for (const piece of value.pieces) {
      if (piece.length === 0) continue;
      if (!first) yield ',';
      yield piece;
      first = false;
    }
    yield ']';
    return;
  }
  if (Array.isArray(value) && value.length > LONG_ARRAY) {
    // A batch of members at a time: JSON.stringify is fastest on one call, and a batch's text
    // is the array's own between its brackets (a missing member is null in both).
    yield '[';
    for (let i = 0; i < value.length; i += ARRAY_BATCH) {
      const text = JSON.stringify(value.slice(i, i + ARRAY_BATCH));
      yield `${i > 0 ? ',' : ''}${text.slice(1, -1)}`;
    }
    yield ']';
    return;
  }
  if (isPlainObject(value)) {
    yield '{';
    let first = true;
    for (const key of Object.keys(value)) {
      const member = value[key];
      if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
      yield `${first ? '' : ','}${JSON.stringify(key)}:`;
      first = false;
      yield* jsonChunks(member);
    }
    yield '}';
    return;
  }
  yield (JSON.stringify(value) as string | undefined) ?? 'null';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
