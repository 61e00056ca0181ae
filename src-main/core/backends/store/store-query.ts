// What the SQL stores (StoreBackend on SQLite, PostgresStoreBackend) share besides the
// record rules of store-records.ts: path ranges, the ls walk, the window's listing rows and
// its case-insensitive search rule, so both answer alike whatever their SQL.

import type { FileEncoding, FileInfo, GrepMatch, GrepResult, StatResult } from '../protocol';
import { messages } from '../messages';
import type { GlobMatcher } from '../filesystem/glob-match';
import { baseName, passesThroughGit, relativeVirtual, sortByPath } from '../paths';
import { grepLines, isGreppable, type FileRecord } from './store-records';

/** A file as the window lists it; `line` is the first line matching a search, if any. */
export interface StoreListing {
  path: string;
  size: number;
  modifiedAt: string;
  /** The last writer (a thread id, or 'user'), when recorded. */
  modifiedBy: string | null;
  line?: string;
}

/** Files in path order, and the path to continue after when there may be more. */
export interface StorePage {
  files: StoreListing[];
  next: string | null;
}

export interface PageRow {
  path: string;
  size: number;
  modified_at: string;
  modified_by: string | null;
}

export interface SearchRow extends PageRow {
  encoding: FileEncoding;
  content: string;
}

export interface FileRowFields {
  content: string;
  encoding: FileEncoding;
  mime_type: string | null;
  created_at: string;
  modified_at: string;
}

export interface ListRow {
  path: string;
  size: number;
  modified_at: string;
}

/** Files a search shorter than a trigram reads per call (a few tens of ms at most). */
export const SHORT_QUERY_SCAN_ROWS = 5_000;

/** Sorts after every path: paths start with '/', and '0' follows it. */
export const LAST_PATH = '0';

/** The half-open path range of everything below a folder: ['/a/', '/a0'). */
export function rangeOf(dir: string): [string, string] {
  return dir === '/' ? ['/', '0'] : [dir + '/', dir + '0'];
}

/**
 * Whether a search or grep for `query` is answered from a trigram index: 3 characters or
 * more, and no NUL (which would end an FTS5 query string early); else it scans.
 */
export function searchUsesIndex(query: string): boolean {
  return [...query].length >= 3 && !query.includes('\0');
}

/**
 * One step of listing a folder's immediate children from its rows in path order: files are
 * added; on meeting a subfolder it is added and the walk must restart at the returned
 * path (past the subfolder's whole range), so a big subtree costs one step. Otherwise the
 * rows ran out without a subfolder; `last` is the last file seen.
 */
export function childrenStep(prefix: string, rows: Iterable<ListRow>, entries: FileInfo[]): { restartAt: string } | { last: string | null } {
  let last: string | null = null;
  for (const row of rows) {
    const rel = row.path.slice(prefix.length);
    const slash = rel.indexOf('/');
    if (slash < 0) {
      entries.push(fileInfo(row.path, row));
      last = row.path;
      continue;
    }
    const sub = prefix + rel.slice(0, slash);
    entries.push({ path: sub + '/', isDir: true });
    return { restartAt: sub + '0' };
  }
  return { last };
}

/**
 * The window's search rule, applied to a candidate row: the first line containing the
 * query ignoring case, or the path containing it; null when neither does.
 */
export function searchHit(row: SearchRow, folded: string): StoreListing | null {
  const line = row.encoding === 'utf-8' ? row.content.split('\n').find((l) => l.toLowerCase().includes(folded)) : undefined;
  if (line === undefined && !row.path.toLowerCase().includes(folded)) return null;
  return { ...toListing(row), ...(line !== undefined ? { line } : {}) };
}

/**
 * The spellings of a short query that lower() (ASCII-only folding) can leave in a text
 * containing it in any case: ASCII letters lowercased, other characters in each case.
 */
export function caseVariants(query: string): string[] {
  let variants = [''];
  for (const ch of query) {
    const forms = ch.charCodeAt(0) < 128 ? [ch.toLowerCase()] : [...new Set([ch, ch.toLowerCase(), ch.toUpperCase()])].filter((f) => [...f].length === 1);
    variants = variants.flatMap((v) => forms.map((f) => v + f));
  }
  return variants;
}

export function toRecord(row: FileRowFields): FileRecord {
  const record: FileRecord = { content: row.content, encoding: row.encoding, createdAt: row.created_at, modifiedAt: row.modified_at };
  if (row.mime_type !== null) record.mimeType = row.mime_type;
  return record;
}

export function toListing(row: PageRow): StoreListing {
  return { path: row.path, size: row.size, modifiedAt: row.modified_at, modifiedBy: row.modified_by };
}

export function fileInfo(path: string, row: { size: number; modified_at: string }): FileInfo {
  return { path, size: row.size, modifiedAt: row.modified_at };
}

/** The rows below `base` whose path from it the glob matches (never through .git), sorted. */
export function globMatches(base: string, matcher: GlobMatcher, rows: readonly ListRow[]): FileInfo[] {
  const matches = rows
    .filter((row) => {
      const rel = relativeVirtual(base, row.path)!;
      return !passesThroughGit(rel) && matcher.matches(rel);
    })
    .map((row) => fileInfo(row.path, row));
  return sortByPath(matches);
}

/** grep of a path that is one file: the glob, when given, takes its name. */
export function grepOneFile(path: string, file: FileRowFields & { size: number }, pattern: string, filter: GlobMatcher | null, maxCount: number): GrepResult {
  const matches: GrepMatch[] = [];
  if (filter && !filter.matches(baseName(path))) return { matches, truncated: false };
  if (!isGreppable(file, file.size)) return { matches, truncated: false };
  return { matches, truncated: grepLines(path, file.content, pattern, matches, maxCount) };
}

/**
 * A file with its version (the row id is never reused, so a re-created file gets a new
 * version too), else a folder, else not found.
 */
export function statOf(path: string, file: { id: number | string; version: number; size: number; modified_at: string } | undefined, isFolder: boolean): StatResult {
  if (file) return { info: fileInfo(path, file), version: `${file.id}.${file.version}` };
  if (isFolder) return { info: { path: path === '/' ? '/' : path + '/', isDir: true } };
  return { error: messages.pathNotFound(path) };
}
