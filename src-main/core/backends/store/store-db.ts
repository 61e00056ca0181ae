// The app's SQLite database: opening it with durable settings, and named, idempotent
// migrations that each service (files, threads, approvals, ...) applies for its own tables.

import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Migration } from './migration';
import { STORE_MIGRATIONS } from './store-schema';

/** Opens (creating folders as needed) the database file with WAL and full fsync, and migrates the files table. */
export function openDatabase(file: string): Database.Database {
  if (file !== ':memory:' && !file.startsWith('file:')) {
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true, mode: 0o700 });
    ownerOnlySqliteFile(file);
  }
  const db = new Database(file);
  try {
    // First: switching a new file to WAL takes a lock another process opening it at the same
    // moment may hold; without the timeout set already, that open failed at once ("database is locked").
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    runMigrations(db, STORE_MIGRATIONS);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/**
 * A run's commits without an fsync each, made durable together when the run ends (issue 66).
 * The database is opened with WAL and synchronous=FULL: every commit fsyncs the WAL. A run
 * commits several times (its thread, each message, its record, the ledger's rows), and each
 * of those fsyncs was paid in the person's wait. While a hold is taken the connection commits
 * with synchronous=NORMAL: a commit is written to the WAL (so a process killed at any point,
 * SIGKILL included, loses none: the kernel has it, and WAL mode never tears a committed
 * transaction), only not forced to the disk. Releasing a hold forces the WAL to the disk with
 * one fsync before the caller reports the run ended, so a finished run survives a power cut
 * as before; when the last hold goes, commits fsync one by one again. Commits of the same
 * connection by others while a run goes are covered by that run's fsync too.
 */
export class DeferredSync {
  private holds = 0;
  private dirSynced = false;
  /** The WAL file's path, read once (undefined: not in WAL mode, every commit is synced as opened). */
  private walFile: string | undefined | null = null;
  private readonly modes = new Map<string, Database.Statement>();

  // A plain field, not a parameter property: this file also runs under Node's type stripping (the durability test's writer).
  private readonly db: Database.Database;

  constructor(db: Database.Database) {
    this.db = db;
  }

  /** Defers the fsync of this connection's commits until the returned release (idempotent) is called. */
  hold(): () => void {
    if (this.holds++ === 0 && this.wal() !== undefined) this.synchronous('NORMAL');
    let released = false;
    return () => {
      if (released) return;
      released = true;
      try {
        this.syncWal();
      } finally {
        if (--this.holds === 0) this.synchronous('FULL');
      }
    };
  }

  /** Sets the connection's synchronous mode (its two statements prepared once). */
  private synchronous(mode: 'NORMAL' | 'FULL'): void {
    let statement = this.modes.get(mode);
    if (statement === undefined) {
      statement = this.db.prepare(`PRAGMA synchronous = ${mode}`);
      this.modes.set(mode, statement);
    }
    statement.run();
  }

  /** The WAL file, when the database is a file in WAL mode (else every commit is synced as opened). */
  private wal(): string | undefined {
    if (this.walFile === null) {
      const file = !this.db.memory && this.db.name !== '' && !this.db.name.startsWith('file:');
      this.walFile = file && this.db.pragma('journal_mode', { simple: true }) === 'wal' ? `${this.db.name}-wal` : undefined;
    }
    return this.walFile;
  }

  /**
   * Every commit so far on the disk: one fsync of the WAL (what SQLite's own commit would do
   * with synchronous=FULL). SQLite holds its POSIX locks on the database and -shm files, never
   * on the -wal file, so this descriptor's close drops none of them.
   */
  private syncWal(): void {
    const wal = this.wal();
    if (wal === undefined) return;
    let fd: number;
    try {
      fd = fs.openSync(wal, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    } catch {
      return; // No WAL: nothing was committed since the last checkpoint, which SQLite synced.
    }
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (!this.dirSynced) {
      // The WAL file's own name in its folder, once (SQLite syncs it when it creates the file in FULL mode).
      this.dirSynced = true;
      const dir = fs.openSync(path.dirname(path.resolve(wal)), fs.constants.O_RDONLY);
      try {
        fs.fsyncSync(dir);
      } finally {
        fs.closeSync(dir);
      }
    }
  }
}

/**
 * A SQLite file of the data folder (threads, memories, checkpoints) and its -wal/-shm files
 * are readable by the owner only. A new file is created 0600 before SQLite opens it (SQLite
 * gives the -wal and -shm files the database file's mode); existing ones of ours are tightened.
 */
export function ownerOnlySqliteFile(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600));
  } catch {
    // It exists already.
  }
  const uid = process.getuid?.();
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) {
    try {
      const st = fs.statSync(f);
      if ((uid === undefined || st.uid === uid) && (st.mode & 0o077) !== 0) fs.chmodSync(f, st.mode & 0o700);
    } catch {
      // Missing: SQLite creates it with the database's mode.
    }
  }
}

/** The migration lists this process has seen applied, per connection: a store made per run checks its tables once. */
const migrated = new WeakMap<Database.Database, WeakSet<readonly Migration[]>>();

/** Applies the migrations not yet recorded, in order, in one write transaction (safe across processes). */
export function runMigrations(db: Database.Database, migrations: readonly Migration[]): void {
  // Applied migrations stay applied (none is ever undone), so a list seen complete on this connection is done.
  const seen = migrated.get(db) ?? new WeakSet<readonly Migration[]>();
  migrated.set(db, seen);
  if (seen.has(migrations)) return;
  applyMigrations(db, migrations);
  seen.add(migrations);
}

/**
 * Statements prepared when first used, each once: a store made for one run (a thread's, the
 * runs' records) prepares what that run uses, not its every statement.
 */
export function lazyStatements<T extends Record<string, () => unknown>>(makers: T): { readonly [K in keyof T]: ReturnType<T[K]> } {
  const made: Record<string, unknown> = {};
  for (const [name, make] of Object.entries(makers)) {
    Object.defineProperty(made, name, {
      enumerable: true,
      get() {
        const statement = make();
        Object.defineProperty(made, name, { value: statement, enumerable: true });
        return statement;
      },
      configurable: true,
    });
  }
  return made as { readonly [K in keyof T]: ReturnType<T[K]> };
}

/** What each store keeps per connection (its statements), by the store's key. */
const perConnectionValues = new WeakMap<Database.Database, Map<symbol, unknown>>();

/**
 * One value per connection and key, made once: the statements of a store that is made per run
 * (a thread's, the runs' records) are prepared once per connection, not once per run. Shared
 * statements must only be run to completion (get, all, run), never held open by iterate().
 */
export function perConnection<T>(db: Database.Database, key: symbol, make: () => T): T {
  let values = perConnectionValues.get(db);
  if (values === undefined) {
    values = new Map();
    perConnectionValues.set(db, values);
  }
  if (!values.has(key)) values.set(key, make());
  return values.get(key) as T;
}

function applyMigrations(db: Database.Database, migrations: readonly Migration[]): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)');
  const applied = db.prepare<[string], { id: string }>('SELECT id FROM schema_migrations WHERE id = ?');
  if (migrations.every((m) => applied.get(m.id) !== undefined)) return;
  const record = db.prepare('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)');
  db.transaction(() => {
    for (const migration of migrations) {
      if (applied.get(migration.id) !== undefined) continue;
      migration.up(db);
      record.run(migration.id, new Date().toISOString());
    }
  }).immediate();
}
