// Whether a snapshot's index (snapshot.ts: a copy of the repository's index after `git add -A`)
// is its HEAD's tree, read from the index files instead of a `git write-tree` process.
//
// git's cache tree (an index's `TREE` extension) names the tree of every folder none of whose
// entries changed since it was made (git invalidates a path up to the root on every change),
// and `git write-tree` answers with the root's tree when the whole record is valid. A snapshot
// is its HEAD's tree when either
// - its own record is whole and valid and its root is the HEAD tree; or
// - its entries are, byte for byte apart from the stat data git keeps for itself (times,
//   device, inode, owner, size), those of the index it was copied from, and that index's
//   record is whole and valid with the HEAD tree at its root. (`git add -A` re-reads files
//   whose stat cannot be trusted, "racy" ones written in the second their index was, and
//   invalidates their folders even when their contents turn out the same.)
// Only then is the answer used: both files' checksums hold, the format is one read here (index
// versions 2–4, neither split nor sparse), and the root equals a HEAD tree git named, whose
// objects are there. Anything else answers false and git writes the tree as before.
//
// Format (Documentation/gitformat-index.txt): "DIRC", version, entry count; entries (v2/v3 padded
// to 8 bytes, v4 with prefix-compressed names); extensions (signature, size, data); the checksum
// of all before it (the object format's hash).

import { createHash } from 'node:crypto';

/** Extensions after which the entries are not the whole index (split index, sparse folders): not read. */
const NOT_WHOLE = new Set(['link', 'sdir']);

/** An index file read: its version, where each entry starts (and where the last ends), its cache tree's root when whole and valid. */
interface ParsedIndex {
  version: number;
  starts: number[];
  root: string | undefined;
}

/**
 * Whether `snapshot` (the index after `git add -A`) is exactly the tree `headTree` (hex), given
 * `original`, the index it was copied from (undefined when there was none).
 */
export function indexIsTree(snapshot: Buffer, original: Buffer | undefined, headTree: string): boolean {
  const hashBytes = headTree.length / 2;
  if (hashBytes !== 20 && hashBytes !== 32) return false;
  const ours = parseIndex(snapshot, hashBytes);
  if (ours === undefined) return false;
  if (ours.root === headTree) return true;
  if (original === undefined) return false;
  const theirs = parseIndex(original, hashBytes);
  if (theirs === undefined || theirs.root !== headTree) return false;
  return sameEntries(snapshot, ours, original, theirs);
}

/** Entries compared a block at a time first (most are the same bytes, stat data included). */
const BLOCK = 64;

/** Every entry the same but for its stat data (bytes 0–23: times, device, inode; 28–39: owner, size). */
function sameEntries(a: Buffer, ia: ParsedIndex, b: Buffer, ib: ParsedIndex): boolean {
  if (ia.version !== ib.version || ia.starts.length !== ib.starts.length) return false;
  const count = ia.starts.length - 1;
  for (let first = 0; first < count; first += BLOCK) {
    const last = Math.min(first + BLOCK, count);
    const [sa, ea, sb, eb] = [ia.starts[first]!, ia.starts[last]!, ib.starts[first]!, ib.starts[last]!];
    if (ea - sa === eb - sb && a.compare(b, sb, eb, sa, ea) === 0) continue;
    for (let i = first; i < last; i++) {
      const [sa, ea, sb, eb] = [ia.starts[i]!, ia.starts[i + 1]!, ib.starts[i]!, ib.starts[i + 1]!];
      if (ea - sa !== eb - sb) return false;
      if (a.compare(b, sb + 24, sb + 28, sa + 24, sa + 28) !== 0) return false; // mode
      if (a.compare(b, sb + 40, eb, sa + 40, ea) !== 0) return false; // object id, flags, name
    }
  }
  return true;
}

/**
 * The paths whose entry differs between two indexes of the same repository (added, removed, or
 * another object or mode), in git's order: what `git diff-tree -r --name-only --no-renames`
 * lists between the trees they hold. Undefined when either is not read here (a format with
 * prefix-compressed names, entries not all at stage 0, or any reason parseIndex gives).
 */
export function changedIndexPaths(before: Buffer, after: Buffer, hashBytes: number): string[] | undefined {
  // No checksum: a listing, not a check (the move itself was git's, checked against its index).
  const a = parseIndex(before, hashBytes, false);
  const b = parseIndex(after, hashBytes, false);
  if (a === undefined || b === undefined || a.version === 4 || b.version === 4) return undefined;
  const nameOf = (data: Buffer, start: number): [number, number] | undefined => {
    const flagsAt = start + 40 + hashBytes;
    const flags = data.readUInt16BE(flagsAt);
    if ((flags & 0x3000) !== 0) return undefined; // A conflict stage: git decides.
    const at = flagsAt + 2 + ((flags & 0x4000) !== 0 ? 2 : 0);
    return [at, data.indexOf(0, at)];
  };
  const na = a.starts.length - 1;
  const nb = b.starts.length - 1;
  // Entries i..i+n and j..j+n byte for byte the same (stat data included): untouched by the move.
  const same = (i: number, j: number, n: number) => {
    const [sa, ea, sb, eb] = [a.starts[i]!, a.starts[i + n]!, b.starts[j]!, b.starts[j + n]!];
    return ea - sa === eb - sb && before.compare(after, sb, eb, sa, ea) === 0;
  };
  const changed: string[] = [];
  let i = 0;
  let j = 0;
  while (i < na || j < nb) {
    // Runs of the same bytes skipped a block at a time: most of an index is untouched.
    for (let step = 64; step >= 1; ) {
      if (i + step <= na && j + step <= nb && same(i, j, step)) [i, j] = [i + step, j + step];
      else step >>= 1;
    }
    if (i >= na && j >= nb) break;
    const x = i < na ? nameOf(before, a.starts[i]!) : undefined;
    const y = j < nb ? nameOf(after, b.starts[j]!) : undefined;
    if ((i < na && x === undefined) || (j < nb && y === undefined)) return undefined;
    const order = x === undefined ? 1 : y === undefined ? -1 : before.compare(after, y[0], y[1], x[0], x[1]);
    if (order < 0) {
      changed.push(before.toString('utf8', x![0], x![1]));
      i++;
    } else if (order > 0) {
      changed.push(after.toString('utf8', y![0], y![1]));
      j++;
    } else {
      const [sa, sb] = [a.starts[i]!, b.starts[j]!];
      const sameMode = before.compare(after, sb + 24, sb + 28, sa + 24, sa + 28) === 0;
      if (!sameMode || before.compare(after, sb + 40, sb + 40 + hashBytes, sa + 40, sa + 40 + hashBytes) !== 0) changed.push(before.toString('utf8', x![0], x![1]));
      i++;
      j++;
    }
  }
  return changed;
}

function parseIndex(data: Buffer, hashBytes: number, verify = true): ParsedIndex | undefined {
  try {
    return parse(data, hashBytes, verify);
  } catch {
    return undefined; // Cut short or malformed: git decides.
  }
}

function parse(data: Buffer, hashBytes: number, verify: boolean): ParsedIndex | undefined {
  if (data.length < 12 + hashBytes || data.toString('latin1', 0, 4) !== 'DIRC') return undefined;
  const body = data.length - hashBytes;
  if (verify && !createHash(hashBytes === 20 ? 'sha1' : 'sha256').update(data.subarray(0, body)).digest().equals(data.subarray(body))) return undefined;
  const version = data.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const count = data.readUInt32BE(8);
  const starts: number[] = [];
  let offset = 12;
  for (let i = 0; i < count; i++) {
    starts.push(offset);
    const flagsAt = offset + 40 + hashBytes;
    const flags = data.readUInt16BE(flagsAt);
    const extended = (flags & 0x4000) !== 0;
    if (extended && version < 3) return undefined;
    const nameAt = flagsAt + 2 + (extended ? 2 : 0);
    if (version === 4) {
      let at = nameAt;
      while (data[at]! & 0x80) at++; // The varint of the previous name's length to strip.
      const end = data.indexOf(0, at + 1);
      if (end < 0 || end >= body) return undefined;
      offset = end + 1;
    } else {
      // The name's length is in the flags unless it is 0xFFF or longer; a NUL ends it either way.
      let length = flags & 0xfff;
      if (length === 0xfff || data[nameAt + length] !== 0) {
        const end = data.indexOf(0, nameAt);
        if (end < 0 || end >= body) return undefined;
        length = end - nameAt;
      }
      offset += (40 + hashBytes + 2 + (extended ? 2 : 0) + length + 8) & ~7;
    }
    if (offset > body) return undefined;
  }
  starts.push(offset);
  let root: string | undefined;
  while (offset + 8 <= body) {
    const signature = data.toString('latin1', offset, offset + 4);
    const size = data.readUInt32BE(offset + 4);
    const start = offset + 8;
    if (start + size > body || NOT_WHOLE.has(signature)) return undefined;
    if (signature === 'TREE') root = validRoot(data.subarray(start, start + size), hashBytes);
    offset = start + size;
  }
  if (offset !== body) return undefined;
  return { version, starts, root };
}

/** The record's root tree when every folder in it is valid (`git write-tree` answers it then); undefined otherwise. */
function validRoot(tree: Buffer, hashBytes: number): string | undefined {
  let root: string | undefined;
  let at = 0;
  while (at < tree.length) {
    const nul = tree.indexOf(0, at);
    if (nul < 0) return undefined;
    const newline = tree.indexOf(0x0a, nul + 1);
    if (newline < 0) return undefined;
    const match = /^(-?\d+) (\d+)$/.exec(tree.toString('latin1', nul + 1, newline));
    if (match === null || Number(match[1]) < 0) return undefined; // A folder that changed: git would write it again.
    const oid = tree.subarray(newline + 1, newline + 1 + hashBytes);
    if (oid.length !== hashBytes) return undefined;
    if (at === 0) {
      if (nul !== 0) return undefined; // The first record is the root (an empty path).
      root = oid.toString('hex');
    }
    at = newline + 1 + hashBytes;
  }
  return root;
}
