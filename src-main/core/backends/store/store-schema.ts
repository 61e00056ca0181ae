// Schema of the StoreBackend's files table and its trigram full-text index.
// Binary files are kept as base64 text; their content is left out of the index.

import type { Migration } from './migration';

const CREATE_FILES = `
CREATE TABLE IF NOT EXISTS store_files (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  namespace TEXT NOT NULL,
  path TEXT NOT NULL,
  content TEXT NOT NULL,
  encoding TEXT NOT NULL CHECK (encoding IN ('utf-8', 'base64')),
  mime_type TEXT,
  size INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  modified_at TEXT NOT NULL,
  version INTEGER NOT NULL,
  UNIQUE (namespace, path)
);
-- Contentless: the index holds only trigrams and rowids; grep reads text from store_files.
CREATE VIRTUAL TABLE IF NOT EXISTS store_files_fts USING fts5(
  content, content='', contentless_delete=1, tokenize='trigram case_sensitive 1'
);
CREATE TRIGGER IF NOT EXISTS store_files_fts_insert AFTER INSERT ON store_files
WHEN new.encoding = 'utf-8' BEGIN
  INSERT INTO store_files_fts (rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER IF NOT EXISTS store_files_fts_delete AFTER DELETE ON store_files BEGIN
  DELETE FROM store_files_fts WHERE rowid = old.id;
END;
CREATE TRIGGER IF NOT EXISTS store_files_fts_update AFTER UPDATE OF content, encoding ON store_files BEGIN
  DELETE FROM store_files_fts WHERE rowid = old.id;
  INSERT INTO store_files_fts (rowid, content) SELECT new.id, new.content WHERE new.encoding = 'utf-8';
END;
`;

// One trigram index serves both searches: case-insensitive, so the window's search uses it
// directly and grep's (case-sensitive) candidates are a superset that grep confirms; the
// path column lets the window find a memory by its name too.
const REBUILD_FTS_FOLDED = `
DROP TRIGGER IF EXISTS store_files_fts_insert;
DROP TRIGGER IF EXISTS store_files_fts_delete;
DROP TRIGGER IF EXISTS store_files_fts_update;
DROP TABLE IF EXISTS store_files_fts;
CREATE VIRTUAL TABLE store_files_fts USING fts5(
  path, content, content='', contentless_delete=1, tokenize='trigram'
);
INSERT INTO store_files_fts (rowid, path, content)
  SELECT id, path, CASE WHEN encoding = 'utf-8' THEN content END FROM store_files;
CREATE TRIGGER store_files_fts_insert AFTER INSERT ON store_files BEGIN
  INSERT INTO store_files_fts (rowid, path, content)
  VALUES (new.id, new.path, CASE WHEN new.encoding = 'utf-8' THEN new.content END);
END;
CREATE TRIGGER store_files_fts_delete AFTER DELETE ON store_files BEGIN
  DELETE FROM store_files_fts WHERE rowid = old.id;
END;
CREATE TRIGGER store_files_fts_update AFTER UPDATE OF path, content, encoding ON store_files BEGIN
  DELETE FROM store_files_fts WHERE rowid = old.id;
  INSERT INTO store_files_fts (rowid, path, content)
  VALUES (new.id, new.path, CASE WHEN new.encoding = 'utf-8' THEN new.content END);
END;
`;

export const STORE_MIGRATIONS: readonly Migration[] = [
  { id: 'store_files_v1', up: (db) => db.exec(CREATE_FILES) },
  // Who last wrote a file (a thread id, or 'user'), for the window's memories list.
  { id: 'store_files_v2_modified_by', up: (db) => db.exec('ALTER TABLE store_files ADD COLUMN modified_by TEXT') },
  { id: 'store_files_v3_fts_folded_with_path', up: (db) => db.exec(REBUILD_FTS_FOLDED) },
];
