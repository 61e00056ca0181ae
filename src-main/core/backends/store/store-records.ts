// Files held as records rather than on disk (StateBackend in memory, StoreBackend in
// SQLite): how a record is read, searched, edited and built from uploaded bytes, so the
// two backends behave identically.

import type { FileEncoding, GrepMatch, ReadResult } from '../protocol';
import { MAX_BINARY_READ_BYTES } from '../protocol';
import { messages } from '../messages';
import { applyEdit, decodeUtf8, readTextWindow, splitLines, type EditOutcome } from '../text';
import { SNIFF_BYTES, classifyContent } from '../../media/sniff';
import { base64Bytes } from '../../media/kinds';

export interface FileRecord {
  content: string;
  encoding: FileEncoding;
  mimeType?: string;
  createdAt: string;
  modifiedAt: string;
}

/** grep skips files over this size, as the disk backend does. */
export const MAX_GREP_FILE_BYTES = 10 * 1024 * 1024;

export const DEFAULT_BINARY_MIME = 'application/octet-stream';

export function recordSize(content: string, encoding: FileEncoding): number {
  return encoding === 'utf-8' ? Buffer.byteLength(content, 'utf8') : base64Bytes(content);
}

export function recordBytes(record: Pick<FileRecord, 'content' | 'encoding'>): Uint8Array {
  return new Uint8Array(Buffer.from(record.content, record.encoding === 'base64' ? 'base64' : 'utf8'));
}

/** True when the text has a NUL byte within its first 8 KiB of UTF-8 (the disk backend's binary test). */
export function textLooksBinary(content: string): boolean {
  const nul = content.indexOf('\0');
  if (nul < 0 || nul >= 8192) return false;
  return Buffer.byteLength(content.slice(0, nul), 'utf8') < 8192;
}

/** Binary records (uploaded bytes, text with NUL) are read whole as base64; other text, whatever its name, as text. */
function isBinaryRecord(record: Pick<FileRecord, 'content' | 'encoding'>): boolean {
  return record.encoding === 'base64' || textLooksBinary(record.content);
}

export function readRecord(path: string, record: FileRecord, offset: number, limit: number): ReadResult {
  const times = { createdAt: record.createdAt, modifiedAt: record.modifiedAt };
  if (!isBinaryRecord(record)) return readTextWindow(record.content, offset, limit, times);
  const size = recordSize(record.content, record.encoding);
  if (size > MAX_BINARY_READ_BYTES) return { error: messages.binaryTooLarge(path, size) };
  const content = record.encoding === 'base64' ? record.content : Buffer.from(record.content, 'utf8').toString('base64');
  return { fileData: { content, encoding: 'base64', mimeType: record.mimeType ?? binaryMimeType(path, content), ...times } };
}

/** The MIME type of a binary record stored without one, from its name and first bytes. */
function binaryMimeType(path: string, base64: string): string {
  const head = Buffer.from(base64.slice(0, Math.ceil(SNIFF_BYTES / 3) * 4), 'base64');
  const kind = classifyContent(path, head);
  return kind.text ? DEFAULT_BINARY_MIME : kind.mimeType;
}

/** Uploaded bytes become text when their name and bytes say text (core/media/sniff) and they are valid UTF-8. */
export function recordFromBytes(path: string, bytes: Uint8Array): Pick<FileRecord, 'content' | 'encoding' | 'mimeType'> {
  const kind = classifyContent(path, bytes.subarray(0, SNIFF_BYTES));
  if (kind.text) {
    const text = decodeUtf8(bytes);
    if (text !== null) return { content: text, encoding: 'utf-8' };
  }
  return { content: Buffer.from(bytes).toString('base64'), encoding: 'base64', mimeType: kind.text ? DEFAULT_BINARY_MIME : kind.mimeType };
}

/** The record's text after the edit, or why it cannot be made (a binary record is never edited as text). */
export function editRecord(path: string, record: Pick<FileRecord, 'content' | 'encoding'>, oldString: string, newString: string, replaceAll: boolean): EditOutcome {
  if (record.encoding === 'base64' || textLooksBinary(record.content)) return { ok: false, error: messages.binaryEdit(path) };
  return applyEdit(record.content, oldString, newString, replaceAll);
}

/** The text to keep conventions from when overwriting (binary content has none). */
export function previousText(record: Pick<FileRecord, 'content' | 'encoding'> | undefined): string | null {
  return record !== undefined && record.encoding === 'utf-8' ? record.content : null;
}

/** Whether grep looks inside this record at all. */
export function isGreppable(record: Pick<FileRecord, 'content' | 'encoding'>, size: number): boolean {
  return record.encoding === 'utf-8' && size <= MAX_GREP_FILE_BYTES && !textLooksBinary(record.content);
}

/**
 * Appends the lines of `content` that contain `pattern` literally. Stops once `out` holds
 * `limit` matches and returns true if a further match exists (the result is truncated).
 */
export function grepLines(path: string, content: string, pattern: string, out: GrepMatch[], limit: number): boolean {
  let at = content.indexOf(pattern);
  if (at < 0) return false;
  if (pattern.includes('\n') || pattern.includes('\r')) return grepSplitLines(path, content, pattern, out, limit);
  // Walk the hits rather than splitting the whole text into lines: most of a file never matches.
  let line = 1;
  let counted = 0;
  while (at >= 0) {
    const start = content.lastIndexOf('\n', at) + 1;
    for (let nl = content.indexOf('\n', counted); nl >= 0 && nl < start; nl = content.indexOf('\n', nl + 1)) line++;
    counted = start;
    const newline = content.indexOf('\n', at);
    const end = newline < 0 ? content.length : newline;
    if (out.length >= limit) return true;
    const text = content.slice(start, end);
    out.push({ path, line, text: text.endsWith('\r') ? text.slice(0, -1) : text });
    if (newline < 0) break;
    at = content.indexOf(pattern, newline + 1);
  }
  return false;
}

function grepSplitLines(path: string, content: string, pattern: string, out: GrepMatch[], limit: number): boolean {
  const lines = splitLines(content);
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    if (!text.includes(pattern)) continue;
    if (out.length >= limit) return true;
    out.push({ path, line: i + 1, text });
  }
  return false;
}

/** Every ancestor folder of a normalised path, nearest last, without the root. */
export function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  for (let i = path.indexOf('/', 1); i > 0; i = path.indexOf('/', i + 1)) out.push(path.slice(0, i));
  return out;
}

export const recordMessages = {
  deleteRoot: "Cannot delete the root folder '/'",
  folderNotEmpty: (path: string) => `Folder '${path}' is not empty`,
};
