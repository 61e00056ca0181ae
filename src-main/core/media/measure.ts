// What a provider bills a media block by, read from the file's own bytes: an image's pixel
// size (PNG, JPEG, GIF, WEBP headers), a PDF's page count, an audio or video file's
// duration (WAV header, MP4 `mvhd`; else the size at a typical bitrate). Pure: no I/O.

import { ByteBudget, inflateWithin } from './inflate-budget';
import type { MediaKind } from './kinds';

export type MediaMeasure =
  | { kind: 'image'; width: number; height: number }
  | { kind: 'document'; pages: number }
  | { kind: 'audio' | 'video'; seconds: number };

/** Pixels assumed for an image whose header says nothing we read (HEIC, a cut file). */
const UNKNOWN_IMAGE_SIDE = 1024;
/** Bytes per second assumed when a duration is not in the header: 128 kbit/s audio, 1 Mbit/s video. */
const AUDIO_BYTES_PER_SECOND = 16_000;
const VIDEO_BYTES_PER_SECOND = 125_000;

export function measureMedia(kind: MediaKind, bytes: Uint8Array): MediaMeasure {
  switch (kind) {
    case 'image': {
      const size = imageSize(bytes) ?? { width: UNKNOWN_IMAGE_SIDE, height: UNKNOWN_IMAGE_SIDE };
      return { kind, ...size };
    }
    case 'document':
      return { kind, pages: pdfPages(bytes) };
    case 'audio':
      return { kind, seconds: wavSeconds(bytes) ?? bytes.length / AUDIO_BYTES_PER_SECOND };
    case 'video':
      return { kind, seconds: mp4Seconds(bytes) ?? bytes.length / VIDEO_BYTES_PER_SECOND };
  }
}

const ascii = (b: Uint8Array, at: number, length: number): string => String.fromCharCode(...b.subarray(at, at + length));
const u16be = (b: Uint8Array, at: number): number => (b[at]! << 8) | b[at + 1]!;
const u16le = (b: Uint8Array, at: number): number => b[at]! | (b[at + 1]! << 8);
const u24le = (b: Uint8Array, at: number): number => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
const u32be = (b: Uint8Array, at: number): number => b[at]! * 0x1000000 + ((b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!);
const u32le = (b: Uint8Array, at: number): number => b[at + 3]! * 0x1000000 + ((b[at + 2]! << 16) | (b[at + 1]! << 8) | b[at]!);

/** Width and height from the image's header, or null when it is none of PNG, JPEG, GIF, WEBP. */
export function imageSize(b: Uint8Array): { width: number; height: number } | null {
  if (b.length >= 24 && b[0] === 0x89 && ascii(b, 1, 3) === 'PNG') return positive(u32be(b, 16), u32be(b, 20));
  if (b.length >= 10 && ascii(b, 0, 3) === 'GIF') return positive(u16le(b, 6), u16le(b, 8));
  if (b.length >= 30 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') {
    const chunk = ascii(b, 12, 4);
    if (chunk === 'VP8 ') return positive(u16le(b, 26) & 0x3fff, u16le(b, 28) & 0x3fff);
    if (chunk === 'VP8L') {
      const bits = u32le(b, 21);
      return positive((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
    }
    if (chunk === 'VP8X') return positive(u24le(b, 24) + 1, u24le(b, 27) + 1);
    return null;
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) return jpegSize(b);
  return null;
}

/** The frame size from the first start-of-frame marker (SOF0–SOF15 but DHT, JPG, DAC). */
function jpegSize(b: Uint8Array): { width: number; height: number } | null {
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return positive(u16be(b, at + 7), u16be(b, at + 5));
    at += 2 + u16be(b, at + 2);
  }
  return null;
}

function positive(width: number, height: number): { width: number; height: number } | null {
  return width > 0 && height > 0 ? { width, height } : null;
}

const PAGE = /\/Type\s*\/Page(?![A-Za-z])/g;
const PAGE_TREE = /\/Type\s*\/Pages\b/g;
/** How far around `/Type /Pages` its `/Count` is looked for, and in how many page trees. */
const DICTIONARY_WINDOW = 2048;
const MAX_PAGE_TREES = 64;
/** Pages assumed per this many bytes when a PDF's page objects cannot be found (a scan is ~100 KB a page). */
const BYTES_PER_UNFOUND_PAGE = 100_000;

/**
 * Page objects (`/Type /Page`, not `/Pages`), also inside compressed object streams (PDF
 * 1.5+ writers put them there); else the root's `/Count`; else a guess from the size.
 */
export function pdfPages(b: Uint8Array): number {
  const text = Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');
  const pages = text.match(PAGE)?.length ?? 0;
  if (pages > 0) return pages;
  const streams = objectStreams(text);
  const inStreams = streams.reduce((n, s) => n + (s.match(PAGE)?.length ?? 0), 0);
  if (inStreams > 0) return inStreams;
  for (const body of [text, ...streams]) {
    const count = pageTreeCount(body);
    if (count !== null) return Math.max(1, count);
  }
  return Math.max(1, Math.round(b.length / BYTES_PER_UNFOUND_PAGE));
}

/**
 * The `/Count` of the first page tree (`/Type /Pages`) that has one within its dictionary,
 * looked for in a bounded window around each of the first few trees (a regex spanning the
 * text from every `/Count` is quadratic on a file full of them).
 */
function pageTreeCount(body: string): number | null {
  let trees = 0;
  for (const tree of body.matchAll(PAGE_TREE)) {
    if (++trees > MAX_PAGE_TREES) break;
    const from = Math.max(0, tree.index - DICTIONARY_WINDOW);
    const open = body.lastIndexOf('<<', tree.index);
    const close = body.indexOf('>>', tree.index);
    const window = body.slice(Math.max(from, open), close < 0 ? tree.index + DICTIONARY_WINDOW : Math.min(close, tree.index + DICTIONARY_WINDOW));
    const count = /\/Count\s+(\d+)/.exec(window);
    if (count) return Number(count[1]);
  }
  return null;
}

/** What counting pages may inflate of a PDF's object streams, all together: past it, the pages found so far count. */
const OBJECT_STREAMS_BUDGET_BYTES = 32 * 1024 * 1024;
/** How far before its `stream` keyword an object stream's `/Type /ObjStm` may stand (its dictionary). */
const DICTIONARY_CHARS = 4096;

/** The inflated text of each Flate-compressed object stream (`/Type /ObjStm`) within the budget; one that does not inflate is skipped. */
function objectStreams(text: string): string[] {
  const out: string[] = [];
  const budget = new ByteBudget(OBJECT_STREAMS_BUDGET_BYTES);
  for (let at = text.indexOf('/ObjStm'); at >= 0; at = text.indexOf('/ObjStm', at + 7)) {
    if (!/\/Type\s*$/.test(text.slice(Math.max(0, at - 16), at))) continue;
    const keyword = text.indexOf('stream', at);
    if (keyword < 0) break;
    if (keyword - at > DICTIONARY_CHARS) continue;
    let from = keyword + 6;
    if (text[from] === '\r') from++;
    if (text[from] !== '\n') continue;
    from++;
    const to = text.indexOf('endstream', from);
    if (to < 0) break;
    const inflated = inflateWithin(Buffer.from(text.slice(from, to), 'latin1'), budget, { zlib: true, keep: true });
    if (inflated.status === 'over-budget') break;
    // Not Flate, or cut short (inflate takes the trailing end-of-line too): what came out still counts.
    out.push(Buffer.from(inflated.bytes).toString('latin1'));
    at = to;
  }
  return out;
}

/** Exact duration of a RIFF/WAVE file: the data chunk's size over the format's bytes per second. */
export function wavSeconds(b: Uint8Array): number | null {
  if (b.length < 12 || ascii(b, 0, 4) !== 'RIFF' || ascii(b, 8, 4) !== 'WAVE') return null;
  let byteRate = 0;
  for (let at = 12; at + 8 <= b.length; ) {
    const id = ascii(b, at, 4);
    const size = u32le(b, at + 4);
    if (id === 'fmt ' && at + 16 <= b.length) byteRate = u32le(b, at + 16);
    if (id === 'data') return byteRate > 0 ? size / byteRate : null;
    at += 8 + size + (size % 2);
  }
  return null;
}

/** Duration from the movie header (`moov/mvhd`) of an MP4/MOV/3GP file, when there is one. */
export function mp4Seconds(b: Uint8Array): number | null {
  const moov = findBox(b, 0, b.length, 'moov');
  if (moov === null) return null;
  const mvhd = findBox(b, moov.start, moov.end, 'mvhd');
  if (mvhd === null || mvhd.start + 32 > b.length) return null;
  const version = b[mvhd.start]!;
  const timescale = version === 1 ? u32be(b, mvhd.start + 20) : u32be(b, mvhd.start + 12);
  const duration = version === 1 ? u32be(b, mvhd.start + 24) * 0x100000000 + u32be(b, mvhd.start + 28) : u32be(b, mvhd.start + 16);
  return timescale > 0 ? duration / timescale : null;
}

/** The content range of the first box of this type directly inside [from, to). */
function findBox(b: Uint8Array, from: number, to: number, type: string): { start: number; end: number } | null {
  for (let at = from; at + 8 <= to; ) {
    let size = u32be(b, at);
    let header = 8;
    if (size === 1 && at + 16 <= to) {
      size = u32be(b, at + 8) * 0x100000000 + u32be(b, at + 12);
      header = 16;
    } else if (size === 0) {
      size = to - at;
    }
    if (size < header) return null;
    if (ascii(b, at + 4, 4) === type) return { start: at + header, end: Math.min(to, at + size) };
    at += size;
  }
  return null;
}
