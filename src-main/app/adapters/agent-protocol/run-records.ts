// The Agent Protocol's record of its runs (SPEC §19): the reference server's Run objects, one
// SQL row each, kept after the host run ends so that a thread's runs list and get.

import type Database from 'better-sqlite3';

export type ProtocolRunStatus = 'pending' | 'running' | 'success' | 'error' | 'timeout' | 'interrupted';
export type MultitaskStrategy = 'reject' | 'interrupt' | 'rollback' | 'enqueue';

/** A run as the reference server answers it. */
export interface ProtocolRun {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  created_at: string;
  updated_at: string;
  status: ProtocolRunStatus;
  metadata: Record<string, unknown>;
  multitask_strategy: MultitaskStrategy;
  kwargs: Record<string, unknown>;
}

interface Row {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  status: ProtocolRunStatus;
  metadata: string;
  multitask_strategy: MultitaskStrategy;
  kwargs: string;
  created_at: string;
  updated_at: string;
}

export class ProtocolRunRecords {
  constructor(private readonly db: Database.Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS agent_protocol_runs (
      run_id TEXT PRIMARY KEY,
      thread_id TEXT NOT NULL,
      assistant_id TEXT NOT NULL,
      status TEXT NOT NULL,
      metadata TEXT NOT NULL,
      multitask_strategy TEXT NOT NULL,
      kwargs TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS agent_protocol_runs_thread ON agent_protocol_runs(thread_id, created_at);`);
  }

  /** The runs a host that stopped left unfinished: they were interrupted (the host that serves the data folder calls it). */
  interruptUnfinished(): void {
    this.db.prepare(`UPDATE agent_protocol_runs SET status = 'interrupted' WHERE status IN ('pending', 'running')`).run();
  }

  insert(record: ProtocolRun): void {
    this.db
      .prepare('INSERT INTO agent_protocol_runs (run_id, thread_id, assistant_id, status, metadata, multitask_strategy, kwargs, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(record.run_id, record.thread_id, record.assistant_id, record.status, JSON.stringify(record.metadata), record.multitask_strategy, JSON.stringify(record.kwargs), record.created_at, record.updated_at);
  }

  setStatus(runId: string, status: ProtocolRunStatus, updatedAt: string): void {
    this.db.prepare('UPDATE agent_protocol_runs SET status = ?, updated_at = ? WHERE run_id = ?').run(status, updatedAt, runId);
  }

  get(threadId: string, runId: string): ProtocolRun | undefined {
    const row = this.db.prepare('SELECT * FROM agent_protocol_runs WHERE run_id = ? AND thread_id = ?').get(runId, threadId) as Row | undefined;
    return row === undefined ? undefined : fromRow(row);
  }

  /** A run by its id alone (a join without its thread, as `GET /runs/{run_id}/stream`). */
  byId(runId: string): ProtocolRun | undefined {
    const row = this.db.prepare('SELECT * FROM agent_protocol_runs WHERE run_id = ?').get(runId) as Row | undefined;
    return row === undefined ? undefined : fromRow(row);
  }

  /** The thread's runs, newest first. */
  list(threadId: string, options: { limit: number; offset: number; status?: string | undefined }): ProtocolRun[] {
    const rows = this.db
      .prepare(`SELECT * FROM agent_protocol_runs WHERE thread_id = ? ${options.status !== undefined ? 'AND status = ?' : ''} ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`)
      .all(...[threadId, ...(options.status !== undefined ? [options.status] : []), options.limit, options.offset]) as Row[];
    return rows.map(fromRow);
  }

  /** The status of the thread's newest run. */
  lastStatus(threadId: string): ProtocolRunStatus | undefined {
    const row = this.db.prepare('SELECT status FROM agent_protocol_runs WHERE thread_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1').get(threadId) as { status: ProtocolRunStatus } | undefined;
    return row?.status;
  }

  delete(runId: string): void {
    this.db.prepare('DELETE FROM agent_protocol_runs WHERE run_id = ?').run(runId);
  }

  deleteThread(threadId: string): void {
    this.db.prepare('DELETE FROM agent_protocol_runs WHERE thread_id = ?').run(threadId);
  }
}

function fromRow(row: Row): ProtocolRun {
  return { ...row, metadata: JSON.parse(row.metadata) as Record<string, unknown>, kwargs: JSON.parse(row.kwargs) as Record<string, unknown> };
}
