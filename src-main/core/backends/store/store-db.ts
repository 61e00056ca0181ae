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

/** Applies the migrations not yet recorded, in order, in one write transaction (safe across processes). */
export function runMigrations(db: Database.Database, migrations: readonly Migration[]): void {
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
