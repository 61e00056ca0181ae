// What the agent host remembers of its runs, in SQLite beside the threads: a row per thread
// it ran last, with its state. A host that died leaves rows `working` or `needs-you`: the
// next host marks them interrupted (a run is never silently lost), and `deepdesk agents`
// lists them all.

import type Database from 'better-sqlite3';
import { runMigrations, type Migration } from '../../core/backends/store/store-db';

export const RUN_STATES = ['working', 'needs-you', 'done', 'failed', 'stopped', 'interrupted'] as const;
export type RunState = (typeof RUN_STATES)[number];

export interface RunRecord {
  threadId: string;
  folder: string;
  state: RunState;
  startedAt: string;
  endedAt: string | null;
  /** Why it failed or was interrupted: one line. */
  message: string | null;
  /** The host process that ran it. */
  hostPid: number;
}

const MIGRATIONS: Migration[] = [
  {
    id: 'host-runs-001',
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS host_runs (
          thread_id TEXT PRIMARY KEY,
          folder TEXT NOT NULL,
          state TEXT NOT NULL,
          started_at TEXT NOT NULL,
          ended_at TEXT,
          message TEXT,
          host_pid INTEGER NOT NULL
        )
      `);
    },
  },
];

interface Row {
  thread_id: string;
  folder: string;
  state: string;
  started_at: string;
  ended_at: string | null;
  message: string | null;
  host_pid: number;
}

export class RunRecords {
  private readonly stmts;

  constructor(db: Database.Database) {
    runMigrations(db, MIGRATIONS);
    this.stmts = {
      start: db.prepare(
        `INSERT INTO host_runs (thread_id, folder, state, started_at, ended_at, message, host_pid) VALUES (?, ?, 'working', ?, NULL, NULL, ?)
         ON CONFLICT(thread_id) DO UPDATE SET folder = excluded.folder, state = 'working', started_at = excluded.started_at, ended_at = NULL, message = NULL, host_pid = excluded.host_pid`,
      ),
      setState: db.prepare('UPDATE host_runs SET state = ? WHERE thread_id = ?'),
      end: db.prepare('UPDATE host_runs SET state = ?, ended_at = ?, message = ? WHERE thread_id = ?'),
      get: db.prepare<[string], Row>('SELECT * FROM host_runs WHERE thread_id = ?'),
      list: db.prepare<[number], Row>('SELECT * FROM host_runs ORDER BY started_at DESC LIMIT ?'),
      going: db.prepare<[], Row>("SELECT * FROM host_runs WHERE state IN ('working', 'needs-you')"),
    };
  }

  start(threadId: string, folder: string, hostPid: number): void {
    this.stmts.start.run(threadId, folder, new Date().toISOString(), hostPid);
  }

  setState(threadId: string, state: RunState): void {
    this.stmts.setState.run(state, threadId);
  }

  end(threadId: string, state: RunState, message?: string): void {
    this.stmts.end.run(state, new Date().toISOString(), message ?? null, threadId);
  }

  get(threadId: string): RunRecord | undefined {
    const row = this.stmts.get.get(threadId);
    return row === undefined ? undefined : record(row);
  }

  /** The most recent first. */
  list(limit = 200): RunRecord[] {
    return this.stmts.list.all(limit).map(record);
  }

  /** Runs recorded as going by another host than `livePid` (gone): marked interrupted and returned. */
  interruptOrphans(livePid: number): RunRecord[] {
    const orphans = this.stmts.going.all().filter((row) => row.host_pid !== livePid);
    for (const row of orphans) this.end(row.thread_id, 'interrupted', 'interrupted: the agent host stopped before this run finished');
    return orphans.map((row) => ({ ...record(row), state: 'interrupted' as const }));
  }
}

function record(row: Row): RunRecord {
  return {
    threadId: row.thread_id,
    folder: row.folder,
    state: (RUN_STATES as readonly string[]).includes(row.state) ? (row.state as RunState) : 'failed',
    startedAt: row.started_at,
    endedAt: row.ended_at,
    message: row.message,
    hostPid: row.host_pid,
  };
}
