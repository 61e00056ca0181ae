// StoreBackend: files kept in SQLite (better-sqlite3), one namespace per backend, for
// /memories/ (SPEC §1–§2). Folders are implicit; listings are range queries on the path
// (`path >= '/a/' AND path < '/a0'`, since '0' follows '/'); grep narrows candidates with a
// case-insensitive trigram FTS5 index, or instr() for patterns under 3 characters, then
// confirms line by line. The window pages through the files in path order (keyset on the
// unique (namespace, path) index) and searches them with the same trigram index.

import type Database from 'better-sqlite3';
import type { FileEncoding, FileInfo, GlobResult, GrepMatch, GrepResult, StatResult } from '../protocol';
import { DEFAULT_GREP_MAX_COUNT } from '../protocol';
import { messages } from '../messages';
import { compileGlob, globPatternError, literalFolderOf } from '../filesystem/glob-match';
import { joinVirtual, passesThroughGit, relativeVirtual, sortByPath } from '../paths';
import { MAX_GREP_FILE_BYTES, grepLines, recordSize, textLooksBinary, type FileRecord } from './store-records';
import { RecordBackend, type NewContent } from './record-backend';
import { openDatabase, perConnection, runMigrations } from './store-db';
import { STORE_MIGRATIONS } from './store-schema';
import type { ListRow, PageRow, SearchRow, StoreListing, StorePage } from './store-query';
import {
  LAST_PATH, SHORT_QUERY_SCAN_ROWS, caseVariants, childrenStep, fileInfo, globMatches, grepOneFile, rangeOf, searchHit, searchUsesIndex, statOf, toListing, toRecord,
} from './store-query';
import type { MemoryStore, StoreChangeHook } from './memory-store-api';

export { SHORT_QUERY_SCAN_ROWS } from './store-query';

export { openDatabase, runMigrations } from './store-db';
export type { Migration } from './migration';

export interface StoreBackendOptions {
  /** An open database (shared, not closed by this backend) or a file path (opened and owned). */
  db: Database.Database | string;
  /** Isolates this backend's files from every other namespace in the same table. */
  namespace: string;
  /** Recorded as the last writer of every file this backend writes (a thread id, or 'user'). */
  author?: string;
  /** Told of each change inside its transaction. */
  onChange?: StoreChangeHook;
}

interface FileRow {
  id: number;
  content: string;
  encoding: FileEncoding;
  mime_type: string | null;
  size: number;
  created_at: string;
  modified_at: string;
  modified_by: string | null;
  version: number;
}

interface Candidate {
  id: number;
  path: string;
}

class StoreStatements {
  readonly get;
  readonly anyBelow;
  readonly listRange;
  readonly insert;
  readonly update;
  readonly remove;
  readonly contentById;
  readonly ftsCandidates;
  readonly instrCandidates;
  readonly page;
  readonly pathAt;
  readonly searchIndexed;
  private readonly searchScans = new Map<number, Database.Statement<unknown[], SearchRow>>();
  private readonly db: Database.Database;

  constructor(db: Database.Database) {
    this.db = db;
    this.get = db.prepare<[string, string], FileRow>(
      'SELECT id, content, encoding, mime_type, size, created_at, modified_at, modified_by, version FROM store_files WHERE namespace = ? AND path = ?');
    this.anyBelow = db.prepare<[string, string, string], { one: number }>(
      'SELECT 1 AS one FROM store_files WHERE namespace = ? AND path >= ? AND path < ? LIMIT 1');
    this.listRange = db.prepare<[string, string, string], ListRow>(
      'SELECT path, size, modified_at FROM store_files WHERE namespace = ? AND path >= ? AND path < ? ORDER BY path');
    this.insert = db.prepare<[string, string, string, FileEncoding, string | null, number, string, string, string | null]>(
      `INSERT INTO store_files (namespace, path, content, encoding, mime_type, size, created_at, modified_at, version, modified_by)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?)`);
    this.update = db.prepare<[string, FileEncoding, string | null, number, string, string | null, number]>(
      'UPDATE store_files SET content = ?, encoding = ?, mime_type = ?, size = ?, modified_at = ?, modified_by = ?, version = version + 1 WHERE id = ?');
    this.remove = db.prepare<[number]>('DELETE FROM store_files WHERE id = ?');
    this.contentById = db.prepare<[number], { content: string }>('SELECT content FROM store_files WHERE id = ?');
    // CROSS JOIN keeps the full-text match as the outer loop.
    this.ftsCandidates = db.prepare<[string, string, string, string, number], Candidate>(
      `SELECT f.id AS id, f.path AS path FROM store_files_fts CROSS JOIN store_files AS f ON f.id = store_files_fts.rowid
       WHERE store_files_fts MATCH ? AND f.namespace = ? AND f.path >= ? AND f.path < ? AND f.encoding = 'utf-8' AND f.size <= ?
       ORDER BY f.path`);
    this.instrCandidates = db.prepare<[string, string, string, number, string], Candidate>(
      `SELECT id, path FROM store_files
       WHERE namespace = ? AND path >= ? AND path < ? AND encoding = 'utf-8' AND size <= ? AND instr(content, ?) > 0
       ORDER BY path`);
    this.pathAt = db.prepare<[string, string, number], { path: string }>(
      'SELECT path FROM store_files WHERE namespace = ? AND path > ? ORDER BY path LIMIT 1 OFFSET ?');
    this.page = db.prepare<[string, string, number], PageRow>(
      'SELECT path, size, modified_at, modified_by FROM store_files WHERE namespace = ? AND path > ? ORDER BY path LIMIT ?');
    // Walks the path index in order and keeps the rows the index found (`+id` stops SQLite
    // from driving the loop by the matches, which would sort them all for a common word).
    this.searchIndexed = db.prepare<[string, string, string], SearchRow>(
      `SELECT path, size, modified_at, modified_by, encoding, content FROM store_files
       WHERE namespace = ? AND path > ? AND +id IN (SELECT rowid FROM store_files_fts WHERE store_files_fts MATCH ?)
       ORDER BY path`);
  }

  /**
   * A scan for queries too short for trigrams, over the paths in (after, until]: rows whose
   * path or content (ASCII-folded by lower()) contains one of `variants` spellings of the query.
   */
  searchScan(variants: number): Database.Statement<unknown[], SearchRow> {
    let statement = this.searchScans.get(variants);
    if (statement === undefined) {
      const any = Array.from({ length: variants }, () => '(instr(lower(path), ?) > 0 OR instr(lower(content), ?) > 0)').join(' OR ');
      statement = this.db.prepare<unknown[], SearchRow>(
        `SELECT path, size, modified_at, modified_by, encoding, content FROM store_files
         WHERE namespace = ? AND path > ? AND path <= ? AND (${any}) ORDER BY path`);
      this.searchScans.set(variants, statement);
    }
    return statement;
  }
}

/** The key of a connection's StoreStatements (store-db.ts perConnection: each is run to completion, iterations too, before anything else runs). */
const STORE_STATEMENTS = Symbol('store statements');

export class StoreBackend extends RecordBackend<FileRow> implements MemoryStore {
  readonly namespace: string;
  private readonly db: Database.Database;
  private readonly ownsDb: boolean;
  private readonly sql: StoreStatements;
  private readonly author: string | null;
  private readonly onChange: StoreChangeHook | undefined;

  constructor(options: StoreBackendOptions) {
    super();
    if (typeof options.namespace !== 'string' || options.namespace === '') throw new Error('StoreBackend needs a non-empty namespace');
    this.namespace = options.namespace;
    this.ownsDb = typeof options.db === 'string';
    this.db = typeof options.db === 'string' ? openDatabase(options.db) : options.db;
    if (!this.ownsDb) runMigrations(this.db, STORE_MIGRATIONS);
    // Prepared once per connection: a thread's store is made for each run (and again by withAuthor).
    this.sql = perConnection(this.db, STORE_STATEMENTS, () => new StoreStatements(this.db));
    this.author = options.author ?? null;
    this.onChange = options.onChange;
  }

  /** The same files, with writes recorded as `author`'s. */
  withAuthor(author: string, onChange?: StoreChangeHook): StoreBackend {
    return new StoreBackend({ db: this.db, namespace: this.namespace, author, ...(onChange ? { onChange } : {}) });
  }

  inNamespace(namespace: string): StoreBackend {
    return new StoreBackend({ db: this.db, namespace, ...(this.author !== null ? { author: this.author } : {}) });
  }

  /** Up to `limit` files after the path `after` ('' for the first page), in path order. */
  async listPage(after: string, limit: number): Promise<StorePage> {
    const rows = this.sql.page.all(this.namespace, after, limit + 1);
    const files = rows.slice(0, limit).map(toListing);
    return { files, next: rows.length > limit ? files[files.length - 1]!.path : null };
  }

  /**
   * Case-insensitive text search for people (the window's memories search), unlike grep,
   * which is literal and case-sensitive for the agent: files after `after` whose path or
   * text contains the query, in path order, with the first line that does. The trigram
   * index answers queries of 3 characters or more. Shorter ones scan at most
   * SHORT_QUERY_SCAN_ROWS files per call, so a page can come back short (even empty) with
   * a `next` to continue from.
   */
  async searchPage(query: string, after: string, limit: number): Promise<StorePage> {
    const folded = query.toLowerCase();
    if (folded === '') return { files: [], next: null };
    let rows: IterableIterator<SearchRow>;
    let scannedTo: string | null = null;
    if (searchUsesIndex(query)) {
      rows = this.sql.searchIndexed.iterate(this.namespace, after, ftsPhrase(query));
    } else {
      scannedTo = this.sql.pathAt.get(this.namespace, after, SHORT_QUERY_SCAN_ROWS - 1)?.path ?? null;
      const variants = caseVariants(query);
      rows = this.sql.searchScan(variants.length).iterate(this.namespace, after, scannedTo ?? LAST_PATH, ...variants.flatMap((v) => [v, v]));
    }
    const files: StoreListing[] = [];
    for (const row of rows) {
      const hit = searchHit(row, folded);
      if (hit === null) continue;
      files.push(hit);
      if (files.length === limit) return { files, next: row.path };
    }
    return { files, next: scannedTo };
  }

  /** Closes the database when this backend opened it; a shared database stays open. */
  close(): void {
    if (this.ownsDb && this.db.open) this.db.close();
  }

  grep(pattern: string, path = '/', glob?: string, maxCount = DEFAULT_GREP_MAX_COUNT): Promise<GrepResult> {
    return this.guardAt(path, (p): GrepResult => {
      const badGlob = glob ? globPatternError(glob) : null;
      if (badGlob !== null) return { error: badGlob };
      const filter = glob ? compileGlob(glob) : null;
      const single = this.file(p.path);
      if (single) return grepOneFile(p.path, single, pattern, filter, maxCount);
      if (!this.exists(p.path)) return { error: messages.pathNotFound(p.path) };
      const matches: GrepMatch[] = [];
      const [lo, hi] = rangeOf(p.path);
      const candidates = searchUsesIndex(pattern)
        ? this.sql.ftsCandidates.all(`{content} : ${ftsPhrase(pattern)}`, this.namespace, lo, hi, MAX_GREP_FILE_BYTES)
        : this.sql.instrCandidates.all(this.namespace, lo, hi, MAX_GREP_FILE_BYTES, pattern);
      for (const { id, path: filePath } of candidates) {
        const rel = relativeVirtual(p.path, filePath)!;
        if (passesThroughGit(rel) || (filter && !filter.matches(rel))) continue;
        const content = this.sql.contentById.get(id)?.content;
        if (content === undefined || textLooksBinary(content)) continue;
        if (grepLines(filePath, content, pattern, matches, maxCount)) return { matches, truncated: true };
      }
      return { matches, truncated: false };
    });
  }

  glob(pattern: string, path = '/'): Promise<GlobResult> {
    return this.guardAt(path, (p): GlobResult => {
      if (this.file(p.path)) return { error: messages.notADirectory(p.path) };
      if (!this.exists(p.path)) return { error: messages.pathNotFound(p.path) };
      const badPattern = globPatternError(pattern);
      if (badPattern !== null) return { error: badPattern };
      const [lo, hi] = rangeOf(joinVirtual(p.path, literalFolderOf(pattern)));
      return { matches: globMatches(p.path, compileGlob(pattern), this.sql.listRange.all(this.namespace, lo, hi)), truncated: false };
    });
  }

  stat(path: string): Promise<StatResult> {
    return this.guardAt(path, (p): StatResult => {
      const file = this.file(p.path);
      return statOf(p.path, file, !file && this.exists(p.path));
    });
  }

  /** Runs a method body, turning an unexpected database failure into an error result. */
  protected override guard<T extends { error?: string }>(body: () => T): Promise<T> {
    try {
      return Promise.resolve(body());
    } catch (err) {
      return Promise.resolve({ error: `Storage error: ${err instanceof Error ? err.message : String(err)}` } as T);
    }
  }

  /** A write transaction, taken up front so concurrent writers queue instead of failing to upgrade. */
  protected override transaction<T>(body: () => T): T {
    return this.db.transaction(body).immediate();
  }

  protected put(path: string, data: NewContent, previous: FileRow | undefined): void {
    const now = new Date().toISOString();
    const size = recordSize(data.content, data.encoding);
    const mime = data.mimeType ?? null;
    if (previous) this.sql.update.run(data.content, data.encoding, mime, size, now, this.author, previous.id);
    else this.sql.insert.run(this.namespace, path, data.content, data.encoding, mime, size, now, now, this.author);
    this.onChange?.(path, data.content, previous ? changed(previous) : null);
  }

  protected remove(path: string, file: FileRow): void {
    this.sql.remove.run(file.id);
    this.onChange?.(path, null, changed(file));
  }

  protected file(path: string): FileRow | undefined {
    return this.sql.get.get(this.namespace, path);
  }

  protected hasBelow(dir: string): boolean {
    const [lo, hi] = rangeOf(dir);
    return this.sql.anyBelow.get(this.namespace, lo, hi) !== undefined;
  }

  protected info(path: string, file: FileRow): FileInfo {
    return fileInfo(path, file);
  }

  protected record(file: FileRow): FileRecord {
    return toRecord(file);
  }

  /**
   * Immediate children of a folder. Walks the folder's range in path order and, on
   * meeting a subfolder, records it and restarts past its whole range, so a big subtree
   * costs one step.
   */
  protected children(dir: string): FileInfo[] {
    const [prefix, hi] = rangeOf(dir);
    const entries: FileInfo[] = [];
    for (let lo = prefix; ; ) {
      const step = childrenStep(prefix, this.sql.listRange.iterate(this.namespace, lo, hi), entries);
      if (!('restartAt' in step)) break;
      lo = step.restartAt;
    }
    return sortByPath(entries);
  }
}

function changed(file: FileRow): { content: string; modifiedAt: string; modifiedBy: string | null } {
  return { content: file.content, modifiedAt: file.modified_at, modifiedBy: file.modified_by };
}

/** An FTS5 phrase that matches the text literally (trigram tokens, so any substring). */
function ftsPhrase(pattern: string): string {
  return `"${pattern.replaceAll('"', '""')}"`;
}
