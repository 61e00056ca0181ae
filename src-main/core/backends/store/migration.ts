import type Database from 'better-sqlite3';

/** A named, idempotent change to the database that a service applies for its own tables. */
export interface Migration {
  /** Unique and never reused; recorded in `schema_migrations` once applied. */
  id: string;
  up(db: Database.Database): void;
}
