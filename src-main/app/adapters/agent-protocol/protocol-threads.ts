// The protocol's own record of its threads (SPEC §19): a thread created over the protocol has
// metadata and a creation time before its first run makes the Deepdesk thread (same id), and
// a client may put metadata on any thread. Everything else of a thread is the Deepdesk thread's.

import type Database from 'better-sqlite3';

export type ThreadMetadata = Record<string, unknown>;

export interface ProtocolThreadRecord {
  threadId: string;
  metadata: ThreadMetadata;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  thread_id: string;
  metadata: string;
  created_at: string;
  updated_at: string;
}

export class ProtocolThreadRecords {
  private readonly stmts;

  constructor(db: Database.Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS agent_protocol_threads (
        thread_id TEXT PRIMARY KEY,
        metadata TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) WITHOUT ROWID;
    `);
    this.stmts = {
      get: db.prepare<[string], Row>('SELECT * FROM agent_protocol_threads WHERE thread_id = ?'),
      all: db.prepare<[], Row>('SELECT * FROM agent_protocol_threads'),
      insert: db.prepare('INSERT OR IGNORE INTO agent_protocol_threads (thread_id, metadata, created_at, updated_at) VALUES (?, ?, ?, ?)'),
      put: db.prepare('INSERT OR REPLACE INTO agent_protocol_threads (thread_id, metadata, created_at, updated_at) VALUES (?, ?, ?, ?)'),
      delete: db.prepare('DELETE FROM agent_protocol_threads WHERE thread_id = ?'),
    };
  }

  get(threadId: string): ProtocolThreadRecord | undefined {
    const row = this.stmts.get.get(threadId);
    return row === undefined ? undefined : toRecord(row);
  }

  all(): ProtocolThreadRecord[] {
    return this.stmts.all.all().map(toRecord);
  }

  /** Records a new thread; false when one with that id is recorded already. */
  create(threadId: string, metadata: ThreadMetadata, now: string): boolean {
    return this.stmts.insert.run(threadId, JSON.stringify(metadata), now, now).changes > 0;
  }

  /** Merges `patch` into the thread's metadata (recording the thread, created at `createdAt`, if it is not yet). */
  merge(threadId: string, patch: ThreadMetadata, createdAt: string, now: string): ProtocolThreadRecord {
    const old = this.get(threadId);
    const record: ProtocolThreadRecord = { threadId, metadata: { ...old?.metadata, ...patch }, createdAt: old?.createdAt ?? createdAt, updatedAt: now };
    this.stmts.put.run(threadId, JSON.stringify(record.metadata), record.createdAt, record.updatedAt);
    return record;
  }

  delete(threadId: string): boolean {
    return this.stmts.delete.run(threadId).changes > 0;
  }
}

function toRecord(row: Row): ProtocolThreadRecord {
  let metadata: ThreadMetadata = {};
  try {
    const parsed: unknown = JSON.parse(row.metadata);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) metadata = parsed as ThreadMetadata;
  } catch {
    // A row that does not parse has no metadata; the thread stays.
  }
  return { threadId: row.thread_id, metadata, createdAt: row.created_at, updatedAt: row.updated_at };
}
