// Inflating what a file claims to hold, within a byte budget (issue 37): a zip entry or a
// PDF stream is fed to the inflater a small piece at a time, so no single step makes more
// than ~1,000 times that piece (deflate's largest ratio), and the reading stops as soon as
// the running total passes the budget. Nothing is ever inflated in one go.

import { Inflate, Unzlib } from 'fflate';

/** Compressed bytes fed per step: at most ~16 MB comes out of one. */
const STEP_BYTES = 16 * 1024;

/** Bytes that may still be unpacked, shared by every part of one file. */
export class ByteBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  /** Takes `bytes` from the budget; false once the total is past the limit. */
  spend(bytes: number): boolean {
    this.used += bytes;
    return this.used <= this.limit;
  }
}

export type Inflated =
  | { status: 'ok'; bytes: Uint8Array }
  | { status: 'over-budget' }
  /** Not deflate data, or cut short: `bytes` is what came out before. */
  | { status: 'invalid'; bytes: Uint8Array; message: string };

/**
 * Inflates `data` (raw deflate, or zlib-wrapped as PDF streams are) within `budget`.
 * With `keep: false` the output is only counted (a size check), and `bytes` is empty.
 */
export function inflateWithin(data: Uint8Array, budget: ByteBudget, options: { zlib: boolean; keep: boolean }): Inflated {
  const kept: Uint8Array[] = [];
  let over = false;
  const onData = (chunk: Uint8Array) => {
    if (over) return;
    if (!budget.spend(chunk.length)) over = true;
    else if (options.keep) kept.push(chunk);
  };
  const inflater = options.zlib ? new Unzlib(onData) : new Inflate(onData);
  try {
    for (let at = 0; at < data.length && !over; at += STEP_BYTES) {
      inflater.push(data.subarray(at, at + STEP_BYTES), at + STEP_BYTES >= data.length);
    }
    if (data.length === 0) inflater.push(new Uint8Array(0), true);
  } catch (err) {
    if (over) return { status: 'over-budget' };
    return { status: 'invalid', bytes: joined(kept), message: err instanceof Error ? err.message : String(err) };
  }
  return over ? { status: 'over-budget' } : { status: 'ok', bytes: joined(kept) };
}

function joined(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
