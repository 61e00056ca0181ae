// The records of memories beside their text (SPEC §25), in the data folder's SQLite: every
// version (with its writer and untrusted sources), proposals waiting for the person, stale
// marks, and when each memory was last used and in how many turns. The active text itself
// stays in the store (store_files, or the team's PostgreSQL), so listing, grep and search
// stay as fast as before; a version is written in the same transaction as that text.

import type Database from 'better-sqlite3';
import type { Migration } from '../backends/store/migration';
import { perConnection, runMigrations } from '../backends/store/store-db';
import type { MemoryAction, MemoryScope, MemoryStatus, MemoryVersion, MemoryWriter } from './memory-types';

const MIGRATIONS: readonly Migration[] = [
  {
    id: 'memories-001-records',
    up: (db) =>
      db.exec(`
        CREATE TABLE IF NOT EXISTS memory_versions (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          scope TEXT NOT NULL,
          path TEXT NOT NULL,
          version INTEGER NOT NULL,
          action TEXT NOT NULL,
          status TEXT NOT NULL,
          content TEXT,
          writer TEXT NOT NULL,
          sources TEXT NOT NULL,
          thread TEXT,
          at TEXT NOT NULL,
          UNIQUE (scope, path, version)
        );
        CREATE INDEX IF NOT EXISTS memory_versions_proposed ON memory_versions(scope, thread) WHERE status = 'proposed';
        CREATE TABLE IF NOT EXISTS memory_marks (
          scope TEXT NOT NULL,
          path TEXT NOT NULL,
          stale TEXT,
          last_used_at TEXT,
          used_turns INTEGER NOT NULL DEFAULT 0,
          last_turn TEXT,
          PRIMARY KEY (scope, path)
        );
        CREATE TABLE IF NOT EXISTS memory_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      `),
  },
];

interface VersionRow {
  scope: string;
  path: string;
  version: number;
  action: string;
  status: string;
  content: string | null;
  writer: string;
  sources: string;
  thread: string | null;
  at: string;
}

export interface MemoryMarks {
  /** The missing name, when the memory is stale (`scripts/build.sh no longer exists`). */
  stale: string | null;
  lastUsedAt: string | null;
  usedTurns: number;
}

const NO_MARKS: MemoryMarks = { stale: null, lastUsedAt: null, usedTurns: 0 };

const COLUMNS = 'scope, path, version, action, status, content, writer, sources, thread, at';

class RecordStatements {
  readonly insert;
  readonly history;
  readonly latest;
  readonly lastVersion;
  readonly activeVersion;
  readonly proposalOf;
  readonly proposalsOf;
  readonly pendingIn;
  readonly setStatus;
  readonly supersede;
  readonly marks;
  readonly staleIn;
  readonly setStale;
  readonly used;
  readonly meta;
  readonly setMeta;

  constructor(db: Database.Database) {
    this.insert = db.prepare<[string, string, number, string, string, string | null, string, string, string | null, string]>(
      `INSERT INTO memory_versions (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.history = db.prepare<[string, string], VersionRow>(`SELECT ${COLUMNS} FROM memory_versions WHERE scope = ? AND path = ? ORDER BY version`);
    this.latest = db.prepare<[string, string], VersionRow>(`SELECT ${COLUMNS} FROM memory_versions WHERE scope = ? AND path = ? ORDER BY version DESC LIMIT 1`);
    this.lastVersion = db.prepare<[string, string], { v: number | null }>('SELECT MAX(version) AS v FROM memory_versions WHERE scope = ? AND path = ?');
    this.activeVersion = db.prepare<[string, string], { version: number; status: string }>(
      `SELECT version, status FROM memory_versions WHERE scope = ? AND path = ? AND status IN ('active', 'deleted') ORDER BY version DESC LIMIT 1`);
    this.proposalOf = db.prepare<[string, string, string], VersionRow>(
      `SELECT ${COLUMNS} FROM memory_versions WHERE scope = ? AND path = ? AND thread = ? AND status = 'proposed' ORDER BY version DESC LIMIT 1`);
    this.proposalsOf = db.prepare<[string, string], VersionRow>(
      `SELECT ${COLUMNS} FROM memory_versions WHERE scope = ? AND thread = ? AND status = 'proposed' ORDER BY path, version`);
    this.pendingIn = db.prepare<[string], VersionRow>(`SELECT ${COLUMNS} FROM memory_versions WHERE scope = ? AND status = 'proposed' ORDER BY path, version`);
    this.setStatus = db.prepare<[string, string, string, number]>('UPDATE memory_versions SET status = ? WHERE scope = ? AND path = ? AND version = ?');
    this.supersede = db.prepare<[string, string, string]>(
      `UPDATE memory_versions SET status = 'superseded' WHERE scope = ? AND path = ? AND thread = ? AND status = 'proposed'`);
    this.marks = db.prepare<[string, string], { stale: string | null; last_used_at: string | null; used_turns: number }>(
      'SELECT stale, last_used_at, used_turns FROM memory_marks WHERE scope = ? AND path = ?');
    this.staleIn = db.prepare<[string], { path: string; stale: string }>('SELECT path, stale FROM memory_marks WHERE scope = ? AND stale IS NOT NULL');
    this.setStale = db.prepare<[string, string, string | null]>(
      `INSERT INTO memory_marks (scope, path, stale) VALUES (?, ?, ?) ON CONFLICT (scope, path) DO UPDATE SET stale = excluded.stale`);
    this.used = db.prepare<[{ scope: string; path: string; at: string; turn: string }]>(
      `INSERT INTO memory_marks (scope, path, last_used_at, used_turns, last_turn) VALUES (@scope, @path, @at, 1, @turn)
       ON CONFLICT (scope, path) DO UPDATE SET last_used_at = @at,
         used_turns = used_turns + (CASE WHEN last_turn IS @turn THEN 0 ELSE 1 END), last_turn = @turn`);
    this.meta = db.prepare<[string], { value: string }>('SELECT value FROM memory_meta WHERE key = ?');
    this.setMeta = db.prepare<[string, string]>('INSERT INTO memory_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  }
}

const RECORD_STATEMENTS = Symbol('memory records');

/** A new version, as the caller gives it (numbered and dated by add). */
export type NewVersion = Pick<MemoryVersion, 'scope' | 'path' | 'action' | 'status' | 'content' | 'writer'> & { sources?: readonly string[]; thread?: string | null };

export class MemoryRecords {
  private readonly sql: RecordStatements;

  constructor(readonly db: Database.Database) {
    runMigrations(db, MIGRATIONS);
    this.sql = perConnection(db, RECORD_STATEMENTS, () => new RecordStatements(db));
  }

  /** `body` in one write transaction (nested: a savepoint of the caller's). */
  atomically<T>(body: () => T): T {
    return this.db.inTransaction ? this.db.transaction(body)() : this.db.transaction(body).immediate();
  }

  /**
   * Records a version (numbered after the last). A memory kept before versions existed gets
   * its text then as version 1 first (`baseline`), so its history starts where it stood.
   */
  add(v: NewVersion, baseline?: { content: string; writer: MemoryWriter; at: string }): MemoryVersion {
    return this.atomically(() => {
      let last = this.sql.lastVersion.get(v.scope, v.path)?.v ?? 0;
      if (last === 0 && baseline !== undefined) {
        this.sql.insert.run(v.scope, v.path, 1, 'write', 'active', baseline.content, JSON.stringify(baseline.writer), '[]', null, baseline.at);
        last = 1;
      }
      if (v.status === 'proposed' && v.thread) this.sql.supersede.run(v.scope, v.path, v.thread);
      const at = new Date().toISOString();
      const version = last + 1;
      this.sql.insert.run(v.scope, v.path, version, v.action, v.status, v.content, JSON.stringify(v.writer), JSON.stringify(v.sources ?? []), v.thread ?? null, at);
      return { scope: v.scope, path: v.path, version, action: v.action, status: v.status, content: v.content, writer: v.writer, sources: [...(v.sources ?? [])], thread: v.thread ?? null, at };
    });
  }

  history(scope: MemoryScope, path: string): MemoryVersion[] {
    return this.sql.history.all(scope, path).map(toVersion);
  }

  latest(scope: MemoryScope, path: string): MemoryVersion | undefined {
    const row = this.sql.latest.get(scope, path);
    return row === undefined ? undefined : toVersion(row);
  }

  /** The version the active text is (1 for a memory kept before versions), or null when it was deleted last. */
  activeVersion(scope: MemoryScope, path: string): number | null {
    const row = this.sql.activeVersion.get(scope, path);
    if (row === undefined) return 1;
    return row.status === 'active' ? row.version : null;
  }

  /** The thread's own proposal at `path`, waiting. */
  proposalOf(scope: MemoryScope, path: string, thread: string): MemoryVersion | undefined {
    const row = this.sql.proposalOf.get(scope, path, thread);
    return row === undefined ? undefined : toVersion(row);
  }

  /** The thread's proposals waiting in a scope. */
  proposalsOf(scope: MemoryScope, thread: string): MemoryVersion[] {
    return this.sql.proposalsOf.all(scope, thread).map(toVersion);
  }

  /** Every proposal waiting in a scope, in path order. */
  pending(scope: MemoryScope): MemoryVersion[] {
    return this.sql.pendingIn.all(scope).map(toVersion);
  }

  setStatus(scope: MemoryScope, path: string, version: number, status: MemoryStatus): void {
    this.sql.setStatus.run(status, scope, path, version);
  }

  marks(scope: MemoryScope, path: string): MemoryMarks {
    const row = this.sql.marks.get(scope, path);
    return row === undefined ? NO_MARKS : { stale: row.stale, lastUsedAt: row.last_used_at, usedTurns: row.used_turns };
  }

  /** The stale memories of a scope: path → what is missing. */
  staleIn(scope: MemoryScope): Map<string, string> {
    return new Map(this.sql.staleIn.all(scope).map((r) => [r.path, r.stale]));
  }

  setStale(scope: MemoryScope, path: string, reason: string | null): void {
    this.sql.setStale.run(scope, path, reason);
  }

  /** Memories a model request carried: last used now, one more turn when `turnKey` (thread and turn) is new to it. */
  recordUse(uses: ReadonlyArray<{ scope: MemoryScope; path: string }>, turnKey: string): void {
    if (uses.length === 0) return;
    const at = new Date().toISOString();
    this.atomically(() => {
      for (const u of uses) this.sql.used.run({ scope: u.scope, path: u.path, at, turn: turnKey });
    });
  }

  meta(key: string): string | undefined {
    return this.sql.meta.get(key)?.value;
  }

  setMeta(key: string, value: string): void {
    this.sql.setMeta.run(key, value);
  }
}

function toVersion(row: VersionRow): MemoryVersion {
  return {
    scope: row.scope,
    path: row.path,
    version: row.version,
    action: row.action as MemoryAction,
    status: row.status as MemoryStatus,
    content: row.content,
    writer: JSON.parse(row.writer) as MemoryWriter,
    sources: JSON.parse(row.sources) as string[],
    thread: row.thread,
    at: row.at,
  };
}
