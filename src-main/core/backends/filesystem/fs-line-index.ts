// Reads a window of lines from a file of any size without loading it: the file is
// streamed in chunks, newlines are counted with Buffer.indexOf and only the window's
// bytes are kept. A sparse index (the byte offset of every INDEX_EVERY-th line, plus the
// line count) is cached per file version so later windows of a big file seek directly.

import type { FileHandle } from 'node:fs/promises';

const CHUNK_BYTES = 1024 * 1024;
const INDEX_EVERY = 1024;
/** A window is cut to this many bytes (whole lines, or the start of one huge line). */
export const MAX_WINDOW_BYTES = 16 * 1024 * 1024;
/** Files smaller than this are cheap to rescan, so they do not take a cache slot. */
const MIN_CACHED_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

interface LineIndex {
  /** offsets[k] = byte offset where line k * INDEX_EVERY starts (0-based lines). */
  offsets: number[];
  totalLines: number;
}

/** A small LRU of line indexes, keyed by file identity and version. */
export class LineIndexCache {
  private readonly entries = new Map<string, LineIndex>();

  constructor(private readonly capacity = 8) {}

  get(key: string): LineIndex | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, index: LineIndex): void {
    this.entries.delete(key);
    this.entries.set(key, index);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

export interface LineWindow {
  /** The window's lines, without '\n' and one trailing '\r'. */
  lines: string[];
  totalLines: number;
}

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/**
 * Lines [offset, offset + limit) of the open file of `size` bytes, and the file's line
 * count (`a\nb\n` has 2 lines). When offset >= totalLines, lines is empty.
 */
export async function readLineWindow(
  handle: FileHandle,
  size: number,
  offset: number,
  limit: number,
  cache?: { store: LineIndexCache; key: string },
): Promise<LineWindow> {
  if (size === 0) return { lines: [], totalLines: 0 };
  const cached = cache?.store.get(cache.key);
  const scan = new Scanner(handle, size, offset, limit);
  if (cached) {
    if (offset >= cached.totalLines) return { lines: [], totalLines: cached.totalLines };
    const k = Math.min(Math.floor(offset / INDEX_EVERY), cached.offsets.length - 1);
    await scan.run(cached.offsets[k]!, k * INDEX_EVERY, null);
    return { lines: await scan.windowLines(), totalLines: cached.totalLines };
  }
  const offsets: number[] = [];
  await scan.run(0, 0, offsets);
  const totalLines = scan.totalLines();
  if (cache && size >= MIN_CACHED_BYTES) cache.store.set(cache.key, { offsets, totalLines });
  return { lines: offset >= totalLines ? [] : await scan.windowLines(), totalLines };
}

class Scanner {
  /** Byte offsets where the window's lines start; one more entry marks the window's end. */
  private readonly starts: number[] = [];
  private newlines = 0;
  private lastByte = -1;

  constructor(
    private readonly handle: FileHandle,
    private readonly size: number,
    private readonly offset: number,
    private readonly limit: number,
  ) {}

  /**
   * Scans from byte `from`, where line `line` starts. With `offsets`, scans to the end of
   * the file recording the sparse index; without, stops once the window is complete.
   */
  async run(from: number, line: number, offsets: number[] | null): Promise<void> {
    const windowEnd = this.offset + this.limit;
    const buf = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, this.size - from));
    let pos = from;
    let current = line;
    if (offsets) offsets.push(0);
    if (current >= this.offset && current <= windowEnd) this.starts.push(from);
    while (pos < this.size) {
      const { bytesRead } = await this.handle.read(buf, 0, Math.min(buf.length, this.size - pos), pos);
      if (bytesRead === 0) break;
      const chunk = bytesRead === buf.length ? buf : buf.subarray(0, bytesRead);
      for (let i = chunk.indexOf(NEWLINE); i >= 0; i = chunk.indexOf(NEWLINE, i + 1)) {
        current++;
        const next = pos + i + 1;
        if (offsets && current % INDEX_EVERY === 0) offsets.push(next);
        if (current >= this.offset && current <= windowEnd) this.starts.push(next);
      }
      this.lastByte = chunk[bytesRead - 1]!;
      pos += bytesRead;
      if (!offsets && current >= windowEnd) break;
    }
    this.newlines = current;
  }

  totalLines(): number {
    return this.newlines + (this.lastByte === NEWLINE ? 0 : 1);
  }

  async windowLines(): Promise<string[]> {
    const starts = this.starts;
    if (starts.length === 0) return [];
    const first = starts[0]!;
    // Line starts at EOF (after a final '\n') begin no line.
    let count = Math.min(this.limit, starts.length);
    if (count === starts.length && starts[count - 1]! >= this.size) count--;
    if (count <= 0) return [];
    const endOf = (n: number) => (n < starts.length ? starts[n]! : this.size);
    let end = endOf(count);
    let cut = false;
    if (end - first > MAX_WINDOW_BYTES) {
      let fit = count - 1;
      while (fit >= 1 && endOf(fit) - first > MAX_WINDOW_BYTES) fit--;
      if (fit >= 1) {
        count = fit;
        end = endOf(fit);
      } else {
        count = 1;
        end = first + MAX_WINDOW_BYTES;
        cut = true;
      }
    }
    const bytes = Buffer.allocUnsafe(end - first);
    let got = 0;
    while (got < bytes.length) {
      const { bytesRead } = await this.handle.read(bytes, got, bytes.length - got, first + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    const raw = bytes.subarray(0, got);
    const text = decoder.decode(cut ? trimPartialUtf8(raw) : raw);
    const lines = text.split('\n');
    if (lines.length > count) lines.length = count;
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i]!;
      if (l.endsWith('\r')) lines[i] = l.slice(0, -1);
    }
    return lines;
  }
}

/** Drops a UTF-8 sequence cut off at the end of `bytes` (when a huge line was cut). */
function trimPartialUtf8(bytes: Buffer): Buffer {
  let i = bytes.length - 1;
  let back = 0;
  while (i >= 0 && back < 4 && (bytes[i]! & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i < 0) return bytes;
  const lead = bytes[i]!;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return need > back + 1 ? bytes.subarray(0, i) : bytes;
}
