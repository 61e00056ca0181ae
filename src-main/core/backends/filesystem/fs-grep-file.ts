// Literal search inside one file, streaming it in chunks; shared byte-level rules so the
// Node search and the ripgrep driver produce identical matches.

import fs from 'node:fs';
import { promisify } from 'node:util';
import { READ_FLAGS } from './fs-resolve';
import { isPathInside } from '../../fs/path-inside';
import { looksBinary } from '../text';

const CHUNK_BYTES = 1024 * 1024;
const SNIFF_BYTES = 8192;
const NEWLINE = 0x0a;
const CR = 0x0d;

export interface LineHit {
  /** 1-based. */
  line: number;
  /** The line's bytes without '\n'. */
  bytes: Buffer;
}

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** A matched line's text: one trailing '\r' dropped, decoded as UTF-8 (invalid bytes become U+FFFD). */
export function decodeLine(bytes: Uint8Array): string {
  const end = bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.length - 1 : bytes.length;
  return decoder.decode(bytes.subarray(0, end));
}

// Plain descriptors: a search opens thousands of files, and FileHandle costs several
// times more per open/close on the main thread.
const open = promisify(fs.open);
const close = promisify(fs.close);
const fstat = promisify(fs.fstat);
const read = promisify(fs.read);

/** Whether the file at `real` has a NUL byte in its first 8 KiB; unreadable files count as binary (skipped). */
export function fileLooksBinary(real: string): Promise<boolean> {
  return withOpenFile(real, true, async (fd) => {
    const buf = Buffer.allocUnsafe(SNIFF_BYTES);
    const n = await readFull(fd, buf, 0);
    return looksBinary(buf.subarray(0, n));
  });
}

/** `use` of the file at `real` opened for reading; `failed` when it cannot be opened or `use` throws. */
async function withOpenFile<T>(real: string, failed: T, use: (fd: number) => Promise<T>): Promise<T> {
  let fd: number;
  try {
    fd = await open(real, READ_FLAGS);
  } catch {
    return failed;
  }
  try {
    return await use(fd);
  } catch {
    return failed;
  } finally {
    await close(fd).catch(() => {});
  }
}

/**
 * Lines of the file at `real` that contain `needle` (bytes, no '\n'), at most `maxHits`.
 * Returns null when the file is skipped: not a regular file, over `maxBytes`, binary
 * (NUL in its first 8 KiB) or unreadable. An empty needle matches every line.
 */
export function searchFile(real: string, needle: Buffer, maxHits: number, maxBytes: number, root?: string): Promise<LineHit[] | null> {
  return withOpenFile<LineHit[] | null>(real, null, async (fd) => {
    // A folder swapped for a link while the walk ran must not hand over an outside file.
    if (root !== undefined && !(await openedInside(fd, root))) return null;
    const st = await fstat(fd);
    if (!st.isFile() || st.size > maxBytes) return null;
    return scan(fd, st.size, needle, maxHits);
  });
}

const readlink = promisify(fs.readlink);

/** On Linux, whether the kernel's path of the open file lies inside `root`; elsewhere true. */
async function openedInside(fd: number, root: string): Promise<boolean> {
  if (process.platform !== 'linux') return true;
  try {
    return isPathInside(root, (await readlink(`/proc/self/fd/${fd}`)).replace(/ \(deleted\)$/, ''));
  } catch {
    return true;
  }
}

async function scan(fd: number, size: number, needle: Buffer, maxHits: number): Promise<LineHit[] | null> {
  const hits: LineHit[] = [];
  if (size === 0 || maxHits <= 0) return hits;
  let carry: Buffer | null = null;
  let linesBefore = 0;
  let pos = 0;
  while (pos < size && hits.length < maxHits) {
    const buf = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size - pos));
    const n = await readFull(fd, buf, pos);
    if (n === 0) break;
    if (pos === 0 && looksBinary(buf.subarray(0, Math.min(n, SNIFF_BYTES)))) return null;
    pos += n;
    const data: Buffer = carry ? Buffer.concat([carry, buf.subarray(0, n)]) : buf.subarray(0, n);
    const atEnd = pos >= size;
    const complete = atEnd ? data.length : data.lastIndexOf(NEWLINE) + 1;
    linesBefore = searchRegion(data.subarray(0, complete), needle, linesBefore, hits, maxHits);
    carry = complete < data.length ? data.subarray(complete) : null;
  }
  if (carry && hits.length < maxHits) searchRegion(carry, needle, linesBefore, hits, maxHits);
  return hits;
}

/** Searches whole lines in `region`; returns the number of lines before the next region. */
function searchRegion(region: Buffer, needle: Buffer, linesBefore: number, hits: LineHit[], maxHits: number): number {
  let line = linesBefore;
  let counted = 0;
  let from = 0;
  while (hits.length < maxHits && from < region.length) {
    const hit = needle.length === 0 ? from : region.indexOf(needle, from);
    if (hit < 0) break;
    const start = hit === 0 ? 0 : region.lastIndexOf(NEWLINE, hit - 1) + 1;
    let end = region.indexOf(NEWLINE, hit);
    if (end < 0) end = region.length;
    line += countNewlines(region, counted, start);
    counted = start;
    hits.push({ line: line + 1, bytes: Buffer.from(region.subarray(start, end)) });
    from = end + 1;
  }
  return line + countNewlines(region, counted, region.length);
}

function countNewlines(buf: Buffer, from: number, to: number): number {
  let n = 0;
  for (let i = buf.indexOf(NEWLINE, from); i >= 0 && i < to; i = buf.indexOf(NEWLINE, i + 1)) n++;
  return n;
}

async function readFull(fd: number, buf: Buffer, position: number): Promise<number> {
  let got = 0;
  while (got < buf.length) {
    const { bytesRead } = await read(fd, buf, got, buf.length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return got;
}
