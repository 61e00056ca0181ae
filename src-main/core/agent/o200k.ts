// o200k_base token counts, exact (tiktoken's byte-pair merge), with its 200,000 ranks held in
// typed arrays: the pieces' bytes end to end, where each starts, and a hash table of their
// indexes (~6 MB in all, outside V8's heap). gpt-tokenizer, which ships the same ranks, builds
// them as a 2.4 MB module of string literals and a Map of 200,000 strings: loading it cost the
// agent host ~60–70 MB resident for good (the parse's garbage and the Map), and every
// command's fork copied the page tables of that heap. Its rank file and its split pattern
// are what is read here, when the first count needs them.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

interface Ranks {
  /** Every piece's bytes, end to end, in rank order. */
  bytes: Uint8Array;
  /** Piece `r` is bytes[starts[r], starts[r + 1]). */
  starts: Uint32Array;
  /** Open addressing: rank + 1 at a slot, 0 for none. */
  table: Int32Array;
  split: RegExp;
}

const NONE = 0x7fffffff;
let ranks: Ranks | undefined;

const BASE64 = new Int8Array(128).fill(-1);
for (const [i, c] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].entries()) BASE64[c.charCodeAt(0)] = i;

function load(): Ranks {
  const require = createRequire(import.meta.url);
  const constants = require.resolve('gpt-tokenizer/encodingParams/constants');
  const { O200K_TOKEN_SPLIT_REGEX: split } = require(constants) as { O200K_TOKEN_SPLIT_REGEX: RegExp };
  // …/gpt-tokenizer/cjs/encodingParams/constants.js → …/gpt-tokenizer/data/o200k_base.tiktoken
  const file = readFileSync(path.join(path.dirname(constants), '..', '..', 'data', 'o200k_base.tiktoken'));
  // Lines of `BASE64 RANK`, ranks 0, 1, 2… in order. The bytes are decoded over the file's own
  // text (they never catch up with it: four characters make three bytes), so that loading
  // leaves no file-sized copy behind for the host to hold until a collection.
  const bytes = file;
  const starts = new Uint32Array(200_001);
  let count = 0;
  let at = 0;
  for (let i = 0; i < file.length; ) {
    let bits = 0;
    let held = 0;
    for (; file[i] !== 0x20; i++) {
      const v = BASE64[file[i]!] ?? -1;
      if (v < 0) continue; // '=' padding
      bits = (bits << 6) | v;
      held += 6;
      if (held >= 8) {
        held -= 8;
        bytes[at++] = (bits >> held) & 0xff;
      }
    }
    let rank = 0;
    for (i++; i < file.length && file[i] !== 0x0a; i++) rank = rank * 10 + file[i]! - 0x30;
    i++;
    if (rank !== count || count === starts.length - 1) throw new Error(`o200k_base.tiktoken: rank ${rank} on line ${count + 1}`);
    starts[++count] = at;
  }
  const table = new Int32Array(1 << Math.ceil(Math.log2(count * 2)));
  const kept = bytes.slice(0, at);
  const result: Ranks = { bytes: kept, starts: starts.slice(0, count + 1), table, split };
  for (let r = 0; r < count; r++) {
    let slot = hash(kept, starts[r]!, starts[r + 1]!) & (table.length - 1);
    while (table[slot] !== 0) slot = (slot + 1) & (table.length - 1);
    table[slot] = r + 1;
  }
  return result;
}

/** FNV-1a over bytes[from, to). */
function hash(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

/** The rank of bytes[from, to), or NONE. */
function rankOf(r: Ranks, bytes: Uint8Array, from: number, to: number): number {
  const mask = r.table.length - 1;
  for (let slot = hash(bytes, from, to) & mask; r.table[slot] !== 0; slot = (slot + 1) & mask) {
    const rank = r.table[slot]! - 1;
    const start = r.starts[rank]!;
    if (r.starts[rank + 1]! - start !== to - from) continue;
    let i = 0;
    while (i < to - from && r.bytes[start + i] === bytes[from + i]) i++;
    if (i === to - from) return rank;
  }
  return NONE;
}

let piece = new Uint8Array(1024);
let parts = new Int32Array(1025);
let partRanks = new Int32Array(1025);
const encoder = new TextEncoder();
const LONE_SURROGATE = /\p{Cs}/u;

/** Tokens of one piece of the split: 1 when it is a rank itself, else what byte-pair merging leaves. */
function countPiece(r: Ranks, text: string): number {
  if (piece.length < text.length * 3) piece = new Uint8Array(text.length * 3);
  const n = encoder.encodeInto(text, piece).written;
  // A piece with a lone surrogate is never a rank as text: only its merge decides.
  if (!LONE_SURROGATE.test(text) && rankOf(r, piece, 0, n) !== NONE) return 1;
  if (parts.length < n + 1) {
    parts = new Int32Array(n + 1);
    partRanks = new Int32Array(n + 1);
  }
  // tiktoken's _byte_pair_merge: parts are starts; partRanks[i], the rank of parts i and i+1 merged.
  let length = n + 1;
  for (let i = 0; i < length; i++) parts[i] = i;
  const pairRank = (i: number): number => (i + 2 < length ? rankOf(r, piece, parts[i]!, parts[i + 2]!) : NONE);
  for (let i = 0; i < length; i++) partRanks[i] = pairRank(i);
  for (;;) {
    let min = NONE;
    let at = -1;
    for (let i = 0; i < length - 1; i++) {
      if (partRanks[i]! < min) {
        min = partRanks[i]!;
        at = i;
      }
    }
    if (at < 0) return length - 1;
    parts.copyWithin(at + 1, at + 2, length);
    partRanks.copyWithin(at + 1, at + 2, length);
    length--;
    partRanks[at] = pairRank(at);
    if (at > 0) partRanks[at - 1] = pairRank(at - 1);
  }
}

/** o200k_base tokens in `text`, special tokens' text counted as text. */
export function countO200k(text: string): number {
  ranks ??= load();
  let n = 0;
  for (const [match] of text.matchAll(ranks.split)) n += countPiece(ranks, match);
  return n;
}
