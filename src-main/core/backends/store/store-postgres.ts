// PostgresStoreBackend: the StoreBackend's files in a PostgreSQL table, so several Deepdesk
// processes (a team's agents) share /memories/ (SPEC §13). The same results, errors and
// search as the SQLite store: the record rules of store-records.ts and the listing and
// search rules of store-query.ts are shared; only the SQL differs here.
//
// Paths and text use COLLATE "C" (byte order of UTF-8 = code-point order, as SQLite's
// BINARY). Every change runs in a transaction that first takes a per-namespace advisory
// lock, then reads what it changes (FOR UPDATE) and upserts: concurrent writers from many
// processes queue instead of losing each other's edits. grep and the window's search narrow
// candidates with LIKE / ILIKE, answered by pg_trgm GIN indexes when the extension can be
// created (else a scan), and confirm in JavaScript exactly as the SQLite store does.
// PostgreSQL text cannot hold NUL: a text with NUL keeps its exact UTF-8 bytes in
// `original` and, in `content`, NUL as U+FFFD (only ever used to find candidates).
// A database that cannot be reached is an error result naming the store (never its
// password), never a throw; the pool reconnects on the next call.

import type pg from 'pg';
import type {
  DeleteResult, EditResult, FileDownloadResponse, FileEncoding, FileInfo, FileUpload, FileUploadResponse, GlobResult,
  GrepMatch, GrepResult, LsResult, ReadRawResult, ReadResult, StatResult, WriteResult,
} from '../protocol';
import { DEFAULT_GREP_MAX_COUNT, DEFAULT_READ_LIMIT } from '../protocol';
import { messages } from '../messages';
import { compileGlob, globPatternError, literalFolderOf } from '../filesystem/glob-match';
import { joinVirtual, normalizeVirtualPath, passesThroughGit, relativeVirtual, sortByPath } from '../paths';
import { keepFileConventions } from '../text';
import type { FileRecord } from './store-records';
import {
  MAX_GREP_FILE_BYTES, ancestorsOf, editRecord, grepLines, previousText, readRecord, recordBytes,
  recordFromBytes, recordMessages, recordSize, textLooksBinary,
} from './store-records';
import type { ListRow, PageRow, SearchRow, StoreListing, StorePage } from './store-query';
import { SHORT_QUERY_SCAN_ROWS, childrenStep, fileInfo, globMatches, grepOneFile, rangeOf, searchHit, searchUsesIndex, statOf, toListing, toRecord } from './store-query';
import type { MemoryStore, StoreChangeHook } from './memory-store-api';

export interface PostgresStoreOptions {
  /** postgres:// or postgresql:// URL (libpq-style parameters as `pg` takes them). */
  url: string;
  /** Isolates this backend's files from every other namespace in the same table. */
  namespace: string;
  /** Recorded as the last writer of every file this backend writes (a thread id, or 'user'). */
  author?: string;
  /** How messages name the store (default `store <url without password>`). */
  label?: string;
  /** Told of each change inside its transaction (before PostgreSQL commits it). */
  onChange?: StoreChangeHook;
  /** Connect timeout (default 5 s): an unreachable server is an error, never a hang. */
  connectTimeoutMs?: number;
}

export const POSTGRES_TABLE = 'deepdesk_store_files';
/** Advisory lock keys: (class, 0) guards the schema, (class + 1, hashtext(namespace)) a namespace's writes. */
const LOCK_CLASS = 0x44447300;
/** Rows a search or grep reads per round trip. */
const BATCH_ROWS = 500;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS ${POSTGRES_TABLE} (
  id BIGSERIAL PRIMARY KEY,
  namespace TEXT COLLATE "C" NOT NULL,
  path TEXT COLLATE "C" NOT NULL,
  content TEXT COLLATE "C" NOT NULL,
  original BYTEA,
  encoding TEXT NOT NULL CHECK (encoding IN ('utf-8', 'base64')),
  mime_type TEXT,
  size INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  modified_at TEXT NOT NULL,
  modified_by TEXT,
  version INTEGER NOT NULL,
  UNIQUE (namespace, path)
)`;
const TRIGRAM_INDEXES = [
  `CREATE INDEX IF NOT EXISTS ${POSTGRES_TABLE}_content_trgm ON ${POSTGRES_TABLE} USING gin (content gin_trgm_ops)`,
  `CREATE INDEX IF NOT EXISTS ${POSTGRES_TABLE}_path_trgm ON ${POSTGRES_TABLE} USING gin (path gin_trgm_ops)`,
];

const ROW_COLUMNS = 'id, content, original, encoding, mime_type, size, created_at, modified_at, modified_by, version';

interface DbRow {
  id: string;
  content: string;
  original: Buffer | null;
  encoding: FileEncoding;
  mime_type: string | null;
  size: number;
  created_at: string;
  modified_at: string;
  modified_by: string | null;
  version: number;
}

type FileRow = Omit<DbRow, 'original'>;

interface DbSearchRow extends SearchRow {
  original: Buffer | null;
}

/** What a statement runs on: a transaction's client, or the pool. */
interface Queryable {
  query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
}
type NewContent = Pick<FileRecord, 'content' | 'encoding' | 'mimeType'>;

/**
 * pg's Pool, made when first used: `pg` is loaded then, so a process whose memories stay in
 * SQLite never holds it.
 */
class LazyPool {
  private made: Promise<pg.Pool> | null = null;
  private readonly config: pg.PoolConfig;

  constructor(config: pg.PoolConfig) {
    this.config = config;
  }

  private get(): Promise<pg.Pool> {
    this.made ??= import('pg').then(({ default: { Pool } }) => {
      const pool = new Pool(this.config);
      // An idle connection the server dropped: the pool discards it; the next call reconnects.
      pool.on('error', () => undefined);
      return pool;
    });
    return this.made;
  }

  async connect(): Promise<pg.PoolClient> {
    return (await this.get()).connect();
  }

  async query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>> {
    return (await this.get()).query<R>(sql, params);
  }

  async end(): Promise<void> {
    if (this.made !== null) await (await this.made).end();
  }
}

/** One pool per URL per process, shared by every backend on it (and their withAuthor copies). */
class SharedPool {
  readonly pool: LazyPool;
  private readonly key: string;
  private users = 0;
  private schema: Promise<void> | null = null;
  trigram = false;

  constructor(key: string, url: string, connectTimeoutMs: number) {
    this.key = key;
    this.pool = new LazyPool({
      connectionString: url,
      max: 4,
      connectionTimeoutMillis: connectTimeoutMs,
      idleTimeoutMillis: 10_000,
      query_timeout: 120_000,
      keepAlive: true,
      allowExitOnIdle: true,
    });
  }

  acquire(): this {
    this.users++;
    return this;
  }

  async release(): Promise<void> {
    if (--this.users > 0) return;
    if (pools.get(this.key) === this) pools.delete(this.key);
    await this.pool.end().catch(() => undefined);
  }

  /** Creates the table and indexes once; a failure (server down) is retried by the next call. */
  ready(): Promise<void> {
    this.schema ??= this.createSchema().catch((err: unknown) => {
      this.schema = null;
      throw err;
    });
    return this.schema;
  }

  private async createSchema(): Promise<void> {
    // Several processes opening a fresh database at once: one creates, the others wait.
    this.trigram = await lockedTransaction(this.pool, ['SELECT pg_advisory_xact_lock($1, 0)', [LOCK_CLASS]], async (client) => {
      await client.query(SCHEMA);
      let trigram = await tryQuery(client, 'CREATE EXTENSION IF NOT EXISTS pg_trgm');
      for (const sql of TRIGRAM_INDEXES) if (trigram) trigram = await tryQuery(client, sql);
      return trigram;
    });
  }
}

/** A transaction that first takes an advisory lock (`lock`: its SQL and parameters), so that others taking it queue. */
async function lockedTransaction<T>(pool: LazyPool, lock: [string, unknown[]], body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    await client.query('BEGIN');
    await client.query(...lock);
    const result = await body(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    failure = err instanceof Error ? err : new Error(String(err));
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    // A failed connection is discarded rather than handed to the next call.
    client.release(failure);
  }
}

const pools = new Map<string, SharedPool>();

/** Runs a statement that may be refused (no privilege, extension missing) inside a transaction; false when it was. */
async function tryQuery(client: Queryable, sql: string): Promise<boolean> {
  try {
    await client.query('SAVEPOINT try_query');
    await client.query(sql);
    await client.query('RELEASE SAVEPOINT try_query');
    return true;
  } catch (err) {
    if (isConnectionError(err)) throw err;
    await client.query('ROLLBACK TO SAVEPOINT try_query').catch(() => undefined);
    return false;
  }
}

/** The URL without its password (for messages): `postgres://me@host:5432/db`. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '';
    for (const key of [...parsed.searchParams.keys()]) if (/pass/i.test(key)) parsed.searchParams.set(key, '***');
    return parsed.toString().replace(/%2A%2A%2A/g, '***');
  } catch {
    return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, '$1@');
  }
}

function passwordOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).password);
  } catch {
    return '';
  }
}

const CONNECTION_TEXT = /ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE|timeout|Connection terminated|connection (?:is )?closed|not queryable|terminating connection|the database system is (?:starting up|shutting down)/i;

function isConnectionError(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || CONNECTION_TEXT.test(String(e?.message ?? err));
}

/** Doubles every LIKE wildcard and the escape character, so the text matches itself. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

/** PostgreSQL text cannot hold NUL; `content` keeps U+FFFD in its place. */
const NUL_STAND_IN = '\uFFFD';

/**
 * An ILIKE pattern whose matches include every text containing `query` as JavaScript's
 * toLowerCase() folds it: ILIKE folds ASCII letters (whatever the collation), and each
 * other character becomes `_`, any one character, so the JavaScript rule confirms those.
 */
function searchLike(query: string): string {
  let out = '%';
  for (const ch of query) out += ch.charCodeAt(0) < 128 ? likeLiteral(ch === '\0' ? NUL_STAND_IN : ch) : '_';
  return out + '%';
}

export class PostgresStoreBackend implements MemoryStore {
  readonly namespace: string;
  readonly label: string;
  private readonly shared: SharedPool;
  private readonly author: string | null;
  private readonly password: string;
  /** withAuthor copies share the pool of the backend they came from and leave closing to it. */
  private readonly owner: boolean;
  private readonly options: PostgresStoreOptions;
  private closed = false;

  constructor(options: PostgresStoreOptions, shared?: SharedPool) {
    if (typeof options.namespace !== 'string' || options.namespace === '') throw new Error('PostgresStoreBackend needs a non-empty namespace');
    this.namespace = options.namespace;
    this.label = options.label ?? `store ${redactUrl(options.url)}`;
    this.author = options.author ?? null;
    this.password = passwordOf(options.url);
    this.owner = shared === undefined;
    if (shared) {
      this.shared = shared;
    } else {
      const timeout = options.connectTimeoutMs ?? 5_000;
      const key = `${timeout}\n${options.url}`;
      let pool = pools.get(key);
      if (!pool) pools.set(key, (pool = new SharedPool(key, options.url, timeout)));
      this.shared = pool.acquire();
    }
    this.options = options;
  }

  /** Whether grep and search have trigram indexes (false: they scan). Known after the first call. */
  get indexed(): boolean {
    return this.shared.trigram;
  }

  withAuthor(author: string, onChange?: StoreChangeHook): PostgresStoreBackend {
    const { onChange: _old, ...options } = this.options;
    return new PostgresStoreBackend({ ...options, author, ...(onChange ? { onChange } : {}) }, this.shared);
  }

  inNamespace(namespace: string): PostgresStoreBackend {
    const { onChange: _old, ...options } = this.options;
    return new PostgresStoreBackend({ ...options, namespace }, this.shared);
  }

  /** Ends the pool once the last backend on this URL in this process closed; withAuthor copies leave it open. */
  async close(): Promise<void> {
    if (!this.owner || this.closed) return;
    this.closed = true;
    await this.shared.release();
  }

  async listPage(after: string, limit: number): Promise<StorePage> {
    return this.page(async () => {
      const rows = await this.rows<PageRow>(
        `SELECT path, size, modified_at, modified_by FROM ${POSTGRES_TABLE} WHERE namespace = $1 AND path > $2 ORDER BY path LIMIT $3`,
        [this.namespace, after, limit + 1]);
      const files = rows.slice(0, limit).map(toListing);
      return { files, next: rows.length > limit ? files[files.length - 1]!.path : null };
    });
  }

  /** The SQLite store's searchPage, row for row: see StoreBackend.searchPage. */
  async searchPage(query: string, after: string, limit: number): Promise<StorePage> {
    return this.page(async () => {
      const folded = query.toLowerCase();
      if (folded === '') return { files: [], next: null };
      let until: string | null = null;
      if (!searchUsesIndex(query)) {
        const rows = await this.rows<{ path: string }>(
          `SELECT path FROM ${POSTGRES_TABLE} WHERE namespace = $1 AND path > $2 ORDER BY path LIMIT 1 OFFSET $3`,
          [this.namespace, after, SHORT_QUERY_SCAN_ROWS - 1]);
        until = rows[0]?.path ?? null;
      }
      const files: StoreListing[] = [];
      for (let from = after; ; ) {
        const rows = await this.rows<DbSearchRow>(
          `SELECT path, size, modified_at, modified_by, encoding, content, original FROM ${POSTGRES_TABLE}
           WHERE namespace = $1 AND path > $2 AND ($3::text IS NULL OR path <= $3)
             AND (path ILIKE $4 OR content ILIKE $4)
           ORDER BY path LIMIT $5`,
          [this.namespace, from, until, searchLike(query), BATCH_ROWS]);
        // A binary row whose base64 matches is dropped here: searchHit reads only UTF-8 text.
        for (const row of rows) {
          const hit = searchHit(withOriginal(row), folded);
          if (hit === null) continue;
          files.push(hit);
          if (files.length === limit) return { files, next: row.path };
        }
        if (rows.length < BATCH_ROWS) return { files, next: until };
        from = rows[rows.length - 1]!.path;
      }
    });
  }

  ls(path: string): Promise<LsResult> {
    return this.guardAt(path, async (p) => {
      const file = await this.row(this.pool, p.path);
      if (file) return { entries: [fileInfo(p.path, file)] };
      const entries = await this.children(p.path);
      if (entries.length === 0 && p.path !== '/') return { error: messages.pathNotFound(p.path) };
      return { entries };
    });
  }

  read(path: string, offset = 0, limit = DEFAULT_READ_LIMIT): Promise<ReadResult> {
    return this.guardAt(path, async (p) => {
      const file = await this.row(this.pool, p.path);
      if (!file) return { error: await this.missingFileError(this.pool, p.path) };
      return readRecord(p.path, toRecord(file), offset, limit);
    });
  }

  readRaw(path: string): Promise<ReadRawResult> {
    return this.guardAt(path, async (p) => {
      const file = await this.row(this.pool, p.path);
      if (!file) return { error: await this.missingFileError(this.pool, p.path) };
      return { data: recordBytes(file) };
    });
  }

  write(path: string, content: string): Promise<WriteResult> {
    return this.guardAt(path, async (p) => {
      return this.transaction(async (q): Promise<WriteResult> => {
        const blocked = await this.writeBlocker(q, p.path);
        if (blocked) return { error: blocked };
        const previous = await this.row(q, p.path, true);
        const text = keepFileConventions(previousText(previous), content);
        await this.put(q, p.path, { content: text, encoding: 'utf-8' });
        this.told(p.path, text, previous);
        return { path: p.path };
      });
    });
  }

  edit(path: string, oldString: string, newString: string, replaceAll = false): Promise<EditResult> {
    return this.guardAt(path, async (p) => {
      return this.transaction(async (q): Promise<EditResult> => {
        const file = await this.row(q, p.path, true);
        if (!file) return { error: await this.missingFileError(q, p.path) };
        const outcome = editRecord(p.path, file, oldString, newString, replaceAll);
        if (!outcome.ok) return { error: outcome.error };
        await this.put(q, p.path, { content: outcome.content, encoding: 'utf-8' });
        this.told(p.path, outcome.content, file);
        return { path: p.path, occurrences: outcome.occurrences };
      });
    });
  }

  delete(path: string): Promise<DeleteResult> {
    return this.guardAt(path, async (p) => {
      if (p.path === '/') return { error: recordMessages.deleteRoot };
      return this.transaction(async (q): Promise<DeleteResult> => {
        const file = await this.row(q, p.path, true);
        if (!file) return { error: (await this.hasBelow(q, p.path)) ? recordMessages.folderNotEmpty(p.path) : messages.pathNotFound(p.path) };
        await q.query(`DELETE FROM ${POSTGRES_TABLE} WHERE id = $1`, [file.id]);
        this.told(p.path, null, file);
        return { path: p.path };
      });
    });
  }

  grep(pattern: string, path = '/', glob?: string, maxCount = DEFAULT_GREP_MAX_COUNT): Promise<GrepResult> {
    return this.guardAt(path, async (p): Promise<GrepResult> => {
      const badGlob = glob ? globPatternError(glob) : null;
      if (badGlob !== null) return { error: badGlob };
      const filter = glob ? compileGlob(glob) : null;
      const single = await this.row(this.pool, p.path);
      if (single) return grepOneFile(p.path, single, pattern, filter, maxCount);
      if (!(await this.exists(this.pool, p.path))) return { error: messages.pathNotFound(p.path) };
      const matches: GrepMatch[] = [];
      const [lo, hi] = rangeOf(p.path);
      const like = `%${likeLiteral(pattern.replaceAll('\0', NUL_STAND_IN))}%`;
      for (let from = lo; ; ) {
        // `path > from`: the range's first bound is a folder prefix ('/a/'), never a file's path.
        const rows = await this.rows<{ path: string; content: string; original: Buffer | null }>(
          `SELECT path, content, original FROM ${POSTGRES_TABLE}
           WHERE namespace = $1 AND path > $2 AND path < $3 AND encoding = 'utf-8' AND size <= $4 AND content LIKE $5
           ORDER BY path LIMIT $6`,
          [this.namespace, from, hi, MAX_GREP_FILE_BYTES, like, BATCH_ROWS]);
        for (const row of rows) {
          const rel = relativeVirtual(p.path, row.path)!;
          if (passesThroughGit(rel) || (filter && !filter.matches(rel))) continue;
          const content = textOf(row);
          if (textLooksBinary(content)) continue;
          if (grepLines(row.path, content, pattern, matches, maxCount)) return { matches, truncated: true };
        }
        if (rows.length < BATCH_ROWS) return { matches, truncated: false };
        from = rows[rows.length - 1]!.path;
      }
    });
  }

  glob(pattern: string, path = '/'): Promise<GlobResult> {
    return this.guardAt(path, async (p): Promise<GlobResult> => {
      if (await this.row(this.pool, p.path)) return { error: messages.notADirectory(p.path) };
      if (!(await this.exists(this.pool, p.path))) return { error: messages.pathNotFound(p.path) };
      const badPattern = globPatternError(pattern);
      if (badPattern !== null) return { error: badPattern };
      const [lo, hi] = rangeOf(joinVirtual(p.path, literalFolderOf(pattern)));
      return { matches: globMatches(p.path, compileGlob(pattern), await this.listRange(this.pool, lo, hi)), truncated: false };
    });
  }

  stat(path: string): Promise<StatResult> {
    return this.guardAt(path, async (p): Promise<StatResult> => {
      const file = await this.row(this.pool, p.path);
      return statOf(p.path, file, !file && (await this.exists(this.pool, p.path)));
    });
  }

  /**
   * The whole batch is one transaction. The protocol's per-file errors cannot say that the
   * database is unreachable: then every file reports permission_denied.
   */
  async uploadFiles(files: FileUpload[]): Promise<FileUploadResponse[]> {
    try {
      await this.shared.ready();
      return await this.transaction(async (q) => {
        const out: FileUploadResponse[] = [];
        for (const { path, content } of files) {
          const p = normalizeVirtualPath(path);
          if (!p.ok) {
            out.push({ path, error: 'invalid_path' });
            continue;
          }
          if (await this.writeBlocker(q, p.path)) {
            out.push({ path: p.path, error: p.path === '/' || (await this.hasBelow(q, p.path)) ? 'is_directory' : 'invalid_path' });
            continue;
          }
          await this.put(q, p.path, recordFromBytes(p.path, content));
          out.push({ path: p.path });
        }
        return out;
      });
    } catch {
      return files.map(({ path }) => ({ path, error: 'permission_denied' }));
    }
  }

  async downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
    try {
      await this.shared.ready();
      const out: FileDownloadResponse[] = [];
      for (const path of paths) {
        const p = normalizeVirtualPath(path);
        if (!p.ok) {
          out.push({ path, error: 'invalid_path' });
          continue;
        }
        const file = await this.row(this.pool, p.path);
        if (!file) out.push({ path: p.path, error: (await this.exists(this.pool, p.path)) ? 'is_directory' : 'file_not_found' });
        else out.push({ path: p.path, content: recordBytes(file) });
      }
      return out;
    } catch {
      return paths.map((path) => ({ path, error: 'permission_denied' }));
    }
  }

  /** The error text for a database failure: names the store, never its password. */
  failure(err: unknown): string {
    const e = err as { code?: unknown; message?: unknown };
    let text = typeof e?.message === 'string' && e.message !== '' ? e.message : String(err);
    if (this.password !== '') text = text.replaceAll(this.password, '***');
    if (e?.code === '28P01' || e?.code === '28000') return `${this.label} refused the login: ${text}`;
    if (isConnectionError(err)) return `${this.label} is unreachable: ${text}`;
    return `${this.label} failed: ${text}`;
  }

  private get pool(): Queryable {
    return this.shared.pool;
  }

  /** guard, on the normalised path (a malformed one is the answer's error). */
  private guardAt<T extends { error?: string }>(path: string, body: (p: { path: string }) => Promise<T>): Promise<T> {
    return this.guard(async () => {
      const p = normalizeVirtualPath(path);
      return p.ok ? body(p) : ({ error: p.error } as T);
    });
  }

  private async guard<T extends { error?: string }>(body: () => Promise<T>): Promise<T> {
    if (this.owner && this.closed) return { error: `${this.label} is closed` } as T;
    try {
      await this.shared.ready();
      return await body();
    } catch (err) {
      return { error: this.failure(err) } as T;
    }
  }

  /** The window's pages throw (the service turns that into its own error), as a failed read would. */
  private async page(body: () => Promise<StorePage>): Promise<StorePage> {
    try {
      await this.shared.ready();
      return await body();
    } catch (err) {
      throw new Error(this.failure(err), { cause: err });
    }
  }

  /** A write transaction holding the namespace's lock, so writers from every process queue. */
  private transaction<T>(body: (q: Queryable) => Promise<T>): Promise<T> {
    return lockedTransaction(this.shared.pool, ['SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS + 1, this.namespace]], body);
  }

  private async rows<R extends object>(sql: string, params: unknown[], q: Queryable = this.pool): Promise<R[]> {
    return (await q.query<R & pg.QueryResultRow>(sql, params)).rows;
  }

  private async put(q: Queryable, path: string, data: NewContent): Promise<void> {
    const now = new Date().toISOString();
    const size = recordSize(data.content, data.encoding);
    const hasNul = data.encoding === 'utf-8' && data.content.includes('\0');
    await q.query(
      `INSERT INTO ${POSTGRES_TABLE} AS f (namespace, path, content, original, encoding, mime_type, size, created_at, modified_at, modified_by, version)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, 1)
       ON CONFLICT (namespace, path) DO UPDATE SET content = EXCLUDED.content, original = EXCLUDED.original, encoding = EXCLUDED.encoding,
         mime_type = EXCLUDED.mime_type, size = EXCLUDED.size, modified_at = EXCLUDED.modified_at, modified_by = EXCLUDED.modified_by,
         version = f.version + 1`,
      [
        this.namespace, path, hasNul ? data.content.replaceAll('\0', NUL_STAND_IN) : data.content, hasNul ? Buffer.from(data.content, 'utf8') : null,
        data.encoding, data.mimeType ?? null, size, now, this.author,
      ]);
  }

  private told(path: string, content: string | null, previous: FileRow | undefined): void {
    this.options.onChange?.(path, content, previous ? { content: previous.content, modifiedAt: previous.modified_at, modifiedBy: previous.modified_by } : null);
  }

  private async row(q: Queryable, path: string, forUpdate = false): Promise<FileRow | undefined> {
    const rows = await this.rows<DbRow>(
      `SELECT ${ROW_COLUMNS} FROM ${POSTGRES_TABLE} WHERE namespace = $1 AND path = $2${forUpdate ? ' FOR UPDATE' : ''}`,
      [this.namespace, path], q);
    const row = rows[0];
    if (!row) return undefined;
    const { original: _original, ...rest } = row;
    return { ...rest, content: textOf(row) };
  }

  private async hasBelow(q: Queryable, dir: string): Promise<boolean> {
    const [lo, hi] = rangeOf(dir);
    const rows = await this.rows(`SELECT 1 FROM ${POSTGRES_TABLE} WHERE namespace = $1 AND path >= $2 AND path < $3 LIMIT 1`, [this.namespace, lo, hi], q);
    return rows.length > 0;
  }

  private async exists(q: Queryable, path: string): Promise<boolean> {
    return path === '/' || (await this.row(q, path)) !== undefined || (await this.hasBelow(q, path));
  }

  private async missingFileError(q: Queryable, path: string): Promise<string> {
    return path === '/' || (await this.hasBelow(q, path)) ? messages.isDirectory(path) : messages.fileNotFound(path);
  }

  private async writeBlocker(q: Queryable, path: string): Promise<string | null> {
    if (path === '/' || (await this.hasBelow(q, path))) return messages.isDirectory(path);
    const ancestors = ancestorsOf(path);
    if (ancestors.length === 0) return null;
    const found = await this.rows<{ path: string }>(
      `SELECT path FROM ${POSTGRES_TABLE} WHERE namespace = $1 AND path = ANY($2::text[]) ORDER BY path LIMIT 1`, [this.namespace, ancestors], q);
    return found[0] ? messages.notADirectory(found[0].path) : null;
  }

  private listRange(q: Queryable, lo: string, hi: string, limit?: number): Promise<ListRow[]> {
    return this.rows<ListRow>(
      `SELECT path, size, modified_at FROM ${POSTGRES_TABLE} WHERE namespace = $1 AND path >= $2 AND path < $3 ORDER BY path${limit ? ' LIMIT $4' : ''}`,
      limit ? [this.namespace, lo, hi, limit] : [this.namespace, lo, hi], q);
  }

  /** Immediate children of a folder: the SQLite store's walk (childrenStep), a batch of rows per step. */
  private async children(dir: string): Promise<FileInfo[]> {
    const [prefix, hi] = rangeOf(dir);
    const entries: FileInfo[] = [];
    for (let lo = prefix; ; ) {
      const rows = await this.listRange(this.pool, lo, hi, BATCH_ROWS);
      const step = childrenStep(prefix, rows, entries);
      if ('restartAt' in step) lo = step.restartAt;
      // A full batch without a subfolder: go on just after its last file (U+0001 follows nothing but NUL, which paths never hold).
      else if (rows.length === BATCH_ROWS && step.last !== null) lo = step.last + '\u0001';
      else break;
    }
    return sortByPath(entries);
  }
}

function textOf(row: { content: string; original: Buffer | null }): string {
  return row.original !== null ? row.original.toString('utf8') : row.content;
}

function withOriginal(row: DbSearchRow): SearchRow {
  return row.original !== null ? { ...row, content: textOf(row) } : row;
}
