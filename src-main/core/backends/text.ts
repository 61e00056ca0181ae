// Text handling shared by every backend: line windows, line endings, literal edits,
// and the binary test. Pure functions over strings and bytes. (What a file is by its
// name and bytes is core/media/sniff.)

import type { ReadResult } from './protocol';
import { messages } from './messages';
import { trimLineEnds } from '../text/trim-line-ends';

/** Lines without their endings; `a\nb\n` has 2 lines, `` has 0. A lone `\r` stays in its line. */
export function splitLines(content: string): string[] {
  if (content === '') return [];
  const lines = content.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.endsWith('\r')) lines[i] = line.slice(0, -1);
  }
  return lines;
}

/** A read window over in-memory text, with the same result shape as the disk backend. */
export function readTextWindow(content: string, offset: number, limit: number, extra: Omit<ReadResult['fileData'] & object, 'content' | 'encoding'> = {}): ReadResult {
  const lines = splitLines(content);
  return windowOfLines(lines, offset, limit, extra);
}

export function windowOfLines(lines: string[], rawOffset: number, limit: number, extra: object = {}): ReadResult {
  // Same clamp as the disk backend: a negative offset reads from the start.
  const offset = Math.max(0, Math.floor(rawOffset));
  const total = lines.length;
  if (total === 0) return { fileData: { content: '', encoding: 'utf-8', ...extra }, totalLines: 0 };
  if (offset >= total) return { error: messages.offsetPastEnd(offset, total) };
  const end = Math.min(total, offset + limit);
  return {
    fileData: { content: lines.slice(offset, end).join('\n'), encoding: 'utf-8', ...extra },
    startLine: offset + 1,
    endLine: end,
    totalLines: total,
    ...(end < total ? { nextOffset: end } : {}),
  };
}

export type LineEnding = '\n' | '\r\n';

/** CRLF only when every line break in the text is CRLF (mixed files are edited literally). */
export function detectLineEnding(content: string): LineEnding {
  const lf = countOf(content, '\n');
  if (lf === 0) return '\n';
  return countOf(content, '\r\n') === lf ? '\r\n' : '\n';
}

export function countOf(haystack: string, needle: string): number {
  if (needle === '') return 0;
  let count = 0;
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + needle.length)) count++;
  return count;
}

const toLf = (s: string) => s.replaceAll('\r\n', '\n');
const toCrlf = (s: string) => s.replaceAll('\r\n', '\n').replaceAll('\n', '\r\n');

/**
 * Content to store when overwriting a file that already exists: the file's line ending
 * (and UTF-8 BOM) are kept, so an agent writing `\n` text does not flip a CRLF file.
 */
export function keepFileConventions(previous: string | null, next: string): string {
  if (previous === null) return next;
  let out = detectLineEnding(previous) === '\r\n' && next.includes('\n') ? toCrlf(next) : next;
  if (previous.startsWith('\uFEFF') && !out.startsWith('\uFEFF')) out = '\uFEFF' + out;
  return out;
}

export type EditOutcome = { ok: true; content: string; occurrences: number } | { ok: false; error: string };

/** Exact, literal replacement with CRLF awareness and helpful failures (SPEC §3 edit_file). */
export function applyEdit(content: string, oldString: string, newString: string, replaceAll: boolean): EditOutcome {
  if (oldString === '') {
    if (content.trim() !== '' && content !== '') return { ok: false, error: messages.emptyOldString };
    return { ok: true, content: newString, occurrences: 1 };
  }
  const crlf = detectLineEnding(content) === '\r\n';
  const haystack = crlf ? toLf(content) : content;
  const needle = crlf ? toLf(oldString) : oldString;
  const replacement = crlf ? toLf(newString) : newString;
  const occurrences = countOf(haystack, needle);
  if (occurrences === 0) return { ok: false, error: messages.stringNotFound(oldString) + notFoundHint(haystack, needle) };
  if (occurrences > 1 && !replaceAll) return { ok: false, error: messages.ambiguousString(oldString, occurrences) };
  const replaced = replaceAll ? haystack.split(needle).join(replacement) : replaceFirst(haystack, needle, replacement);
  return { ok: true, content: crlf ? toCrlf(replaced) : replaced, occurrences: replaceAll ? occurrences : 1 };
}

function replaceFirst(haystack: string, needle: string, replacement: string): string {
  const i = haystack.indexOf(needle);
  return haystack.slice(0, i) + replacement + haystack.slice(i + needle.length);
}

const GUTTER = /^\s*\d+(\.\d+)?(\t|: | {2})/;


function notFoundHint(haystack: string, needle: string): string {
  if (needle.includes('\r\n') || haystack.includes('\r\n')) {
    if (toLf(haystack).includes(toLf(needle))) {
      return '\nHint: the text matches when line endings are normalised (CRLF vs LF); copy it exactly as read_file shows it.';
    }
  }
  const lines = needle.split('\n');
  if (lines.length > 0 && lines.filter((l) => l !== '').every((l) => GUTTER.test(l))) {
    const stripped = lines.map((l) => l.replace(GUTTER, '')).join('\n');
    if (haystack.includes(stripped)) {
      return '\nHint: old_string includes the line-number gutter from read_file output; pass only the text after the tab on each line.';
    }
  }
  if (trimLineEnds(haystack).includes(trimLineEnds(needle))) {
    return '\nHint: the text matches except for trailing whitespace at line ends; copy the lines exactly as they are in the file.';
  }
  if (needle.endsWith('\n') && haystack.endsWith(needle.slice(0, -1))) {
    return '\nHint: old_string ends with a newline but the file does not end with one; drop the final newline from old_string.';
  }
  if (needle.trim() !== needle && haystack.includes(needle.trim())) {
    return '\nHint: the text matches once leading/trailing whitespace is removed; check the indentation in old_string.';
  }
  return '';
}

export function isImageMime(mime: string | undefined): boolean {
  return mime !== undefined && mime.startsWith('image/');
}

/** Binary when a NUL byte appears in the first 8 KiB (git's and ripgrep's heuristic). */
export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8192);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decodes strict UTF-8; null when the bytes are not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}
