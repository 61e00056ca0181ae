// What a file is by its bytes as well as its name (SPEC §12, §2): media by magic number,
// text when the bytes say so. The backends ask here with a file's first bytes and store or
// return text or base64 with the MIME type decided here. Pure functions: no I/O.

import { PPT_MIME, PPTX_MIME, kindOfMime, mediaTypeOf } from './kinds';

/** How many leading bytes the decision looks at (git's and ripgrep's binary window). */
export const SNIFF_BYTES = 8192;

export type ContentClass = { text: true } | { text: false; mimeType: string };

const OCTET_STREAM = 'application/octet-stream';

export interface Sniffed {
  mimeType: string;
  /** Other types stored in the same container: a file named as one of them keeps its name's type. */
  family?: readonly string[];
}

const ISO_MEDIA = ['video/mp4', 'audio/mp4', 'video/quicktime', 'video/3gpp', 'image/heic', 'image/heif'];
const OLE = [PPT_MIME];
const ZIP = [PPTX_MIME];

const ascii = (head: Uint8Array, at: number, text: string) => {
  if (head.length < at + text.length) return false;
  for (let i = 0; i < text.length; i++) if (head[at + i] !== text.charCodeAt(i)) return false;
  return true;
};
const bytesAt = (head: Uint8Array, at: number, bytes: readonly number[]) => head.length >= at + bytes.length && bytes.every((b, i) => head[at + i] === b);
const latin1 = (head: Uint8Array, from: number, to: number) => String.fromCharCode(...head.subarray(from, Math.min(to, head.length)));

/** The brand of an ISO media file (`ftyp` box) as a MIME type. */
function isoMediaType(head: Uint8Array): string {
  const brand = latin1(head, 8, 12);
  if (/^(heic|heix|hevc|hevx|heim|heis|hevm|hevs)$/.test(brand)) return 'image/heic';
  if (brand === 'mif1' || brand === 'msf1') return 'image/heif';
  if (brand === 'avif' || brand === 'avis') return 'image/avif';
  if (brand === 'M4A ' || brand === 'M4B ') return 'audio/mp4';
  if (brand === 'qt  ') return 'video/quicktime';
  if (brand.startsWith('3g')) return 'video/3gpp';
  return 'video/mp4';
}

/**
 * An MPEG audio frame header: MP3 (Layer III, a real bitrate and sample rate) or AAC in
 * ADTS. Strict, so that other bytes starting 0xFF (a UTF-16 BOM, FF FE) are not audio.
 */
function mpegAudioType(head: Uint8Array): string | null {
  if (head.length < 4 || head[0] !== 0xff) return null;
  const b1 = head[1]!;
  const b2 = head[2]!;
  if ((b1 & 0xe0) === 0xe0 && (b1 & 0x06) === 0x02 && (b1 & 0x18) !== 0x08) {
    const bitrate = b2 >> 4;
    return bitrate !== 0 && bitrate !== 0xf && (b2 & 0x0c) !== 0x0c ? 'audio/mpeg' : null;
  }
  if ((b1 & 0xf6) === 0xf0 && ((b2 >> 2) & 0x0f) < 13) return 'audio/aac';
  return null;
}

/** The type the first bytes announce, or null when no known signature matches. */
export function sniffMimeType(head: Uint8Array): Sniffed | null {
  if (bytesAt(head, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { mimeType: 'image/png' };
  if (bytesAt(head, 0, [0xff, 0xd8, 0xff])) return { mimeType: 'image/jpeg' };
  if (ascii(head, 0, 'GIF87a') || ascii(head, 0, 'GIF89a')) return { mimeType: 'image/gif' };
  if (ascii(head, 0, 'RIFF')) {
    if (ascii(head, 8, 'WEBP')) return { mimeType: 'image/webp' };
    if (ascii(head, 8, 'WAVE')) return { mimeType: 'audio/wav' };
    if (ascii(head, 8, 'AVI ')) return { mimeType: 'video/x-msvideo' };
  }
  if (ascii(head, 0, 'FORM') && (ascii(head, 8, 'AIFF') || ascii(head, 8, 'AIFC'))) return { mimeType: 'audio/aiff' };
  if (ascii(head, 4, 'ftyp')) return { mimeType: isoMediaType(head), family: ISO_MEDIA };
  if (ascii(head, 0, 'ID3')) return { mimeType: 'audio/mpeg' };
  if (ascii(head, 0, 'OggS')) return { mimeType: 'audio/ogg' };
  if (ascii(head, 0, 'fLaC')) return { mimeType: 'audio/flac' };
  if (ascii(head, 0, 'FLV\x01')) return { mimeType: 'video/x-flv' };
  if (bytesAt(head, 0, [0x1a, 0x45, 0xdf, 0xa3])) return { mimeType: latin1(head, 0, 64).includes('matroska') ? 'video/x-matroska' : 'video/webm' };
  if (bytesAt(head, 0, [0x00, 0x00, 0x01]) && (head[3] === 0xba || head[3] === 0xb3)) return { mimeType: 'video/mpeg' };
  if (bytesAt(head, 0, [0x30, 0x26, 0xb2, 0x75, 0x8e, 0x66, 0xcf, 0x11])) return { mimeType: 'video/x-ms-wmv' };
  if (bytesAt(head, 0, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) return { mimeType: 'application/x-ole-storage', family: OLE };
  if (ascii(head, 0, 'PK\x03\x04')) return { mimeType: latin1(head, 0, 2048).includes('ppt/') ? PPTX_MIME : 'application/zip', family: ZIP };
  // %PDF- may follow some junk: PDF readers look for it in the first 1024 bytes.
  if (latin1(head, 0, 1024).includes('%PDF-')) return { mimeType: 'application/pdf' };
  const mpeg = mpegAudioType(head);
  return mpeg === null ? null : { mimeType: mpeg };
}

/** Whether the bytes hold a NUL (the git/ripgrep test for binary). */
function hasNul(head: Uint8Array): boolean {
  return head.indexOf(0) >= 0;
}

/** Whether the bytes are valid UTF-8, allowing a character cut off at the end (a file's head). */
function isUtf8Prefix(head: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/** Binary types of files outside §12 by name, for the MIME type a binary read reports. */
const BINARY_BY_EXTENSION: Record<string, string> = {
  bmp: 'image/bmp', ico: 'image/x-icon', tif: 'image/tiff', tiff: 'image/tiff', avif: 'image/avif', svgz: 'image/svg+xml',
  opus: 'audio/opus', mkv: 'video/x-matroska',
  zip: 'application/zip', gz: 'application/gzip', tar: 'application/x-tar', '7z': 'application/x-7z-compressed',
  wasm: 'application/wasm', sqlite: 'application/vnd.sqlite3',
  woff: 'font/woff', woff2: 'font/woff2', ttf: 'font/ttf', otf: 'font/otf',
};

function binaryTypeByName(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot < 0 ? OCTET_STREAM : (BINARY_BY_EXTENSION[name.slice(dot + 1).toLowerCase()] ?? OCTET_STREAM);
}

/**
 * Text or binary (with its MIME type), from the path and the file's first bytes
 * (`SNIFF_BYTES` of them, or the whole file when shorter):
 * - a §12 media name (`x.png`) is that media when the bytes are some media (the magic
 *   number's type wins over a wrong name, a container keeps its name's type: `.m4a`);
 *   bytes that are plainly text (UTF-8, no NUL) are text; other bytes are not the media
 *   the name claims (every §12 type has a signature): they are `application/octet-stream`,
 *   never sent to a model as that media (an executable named `shot.png`);
 * - any other name (`Dockerfile`, `.jsonl`, `.env`, `.db`, none) is text unless the bytes
 *   hold a NUL, as git and ripgrep decide; binary bytes are the media their magic number
 *   says, else the name's binary type or `application/octet-stream`.
 */
export function classifyContent(path: string, head: Uint8Array): ContentClass {
  const named = mediaTypeOf(path);
  const sniffed = sniffMimeType(head);
  if (named !== null) {
    if (sniffed !== null) return { text: false, mimeType: sniffed.family?.includes(named.mimeType) ? named.mimeType : sniffed.mimeType };
    if (!hasNul(head) && isUtf8Prefix(head)) return { text: true };
    return { text: false, mimeType: OCTET_STREAM };
  }
  if (!hasNul(head)) {
    // Text unless the bytes are a known format that is not UTF-8 (a PDF or MP3 without a NUL in its head).
    if (sniffed === null || isUtf8Prefix(head)) return { text: true };
    return { text: false, mimeType: sniffed.mimeType };
  }
  return { text: false, mimeType: sniffed?.mimeType ?? binaryTypeByName(path) };
}

/**
 * The MIME type to send media declared as `declared` under (a block from a server, say): the
 * type its bytes are when they are media of the same kind (a PNG that is really a JPEG goes
 * as JPEG; a container keeps the declared type of its family), or null when they are not
 * that kind of media at all (an executable declared as an image is never sent as one).
 */
export function mediaTypeByContent(declared: string, head: Uint8Array): string | null {
  const kind = kindOfMime(declared);
  const sniffed = sniffMimeType(head);
  if (kind === null || sniffed === null) return null;
  if (sniffed.family?.includes(declared)) return declared;
  return kindOfMime(sniffed.mimeType) === kind ? sniffed.mimeType : null;
}

/** The first SNIFF_BYTES bytes of base64 data, decoded. */
export function base64Head(data: string): Buffer {
  return Buffer.from(data.slice(0, Math.ceil(SNIFF_BYTES / 3) * 4), 'base64');
}
