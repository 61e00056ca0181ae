// Every thread's latest run, in SQLite beside the threads (SPEC §16): a row per thread with
// its state, written by the run queue (session/run-queue.ts) whoever drives the run — the
// window, `deepdesk run` in the agent host, an editor — so the Agents view and `deepdesk
// agents` list runs of every folder and every process sharing the data folder. A process that
// died leaves rows `working`, `queued` or `needs-you`: whoever reads them next marks them
// interrupted (a run is never silently lost). `seen_at`: when a window last opened the thread.

import type Database from 'better-sqlite3';
import { lazyStatements, perConnection, runMigrations } from '../../core/backends/store/store-db';
import type { Migration } from '../../core/backends/store/migration';
import { isProcessAlive } from '../../core/process/process-tree';

export const RUN_STATES = ['queued', 'working', 'needs-you', 'budget', 'done', 'failed', 'stopped', 'interrupted'] as const;
/** The states of a run that goes on (`budget`: paused at a cap, SPEC §26, until it is raised). */
export const GOING_STATES: readonly RunState[] = ['queued', 'working', 'needs-you', 'budget'];
export type RunState = (typeof RUN_STATES)[number];

export interface RunRecord {
  threadId: string;
  folder: string;
  state: RunState;
  startedAt: string;
  endedAt: string | null;
  /** Why it failed or was interrupted: one line. */
  message: string | null;
  /** The process that ran it. */
  hostPid: number;
  /** When a window last opened the thread (ISO), or null. */
  seenAt: string | null;
}

const changeListeners = new Set<() => void>();

/** Called after any RunRecords of this process changed a row (other processes are seen by polling). */
export function onRunRecordsChanged(listener: () => void): () => void {
  changeListeners.add(listener);
  return () => changeListeners.delete(listener);
}

function changed(): void {
  for (const listener of changeListeners) {
    try {
      listener();
    } catch {
      // A listener's trouble is not the run's.
    }
  }
}

/** Whether the process is still there (a run it recorded as going is then really going). */
export function processAlive(pid: number): boolean {
  return pid === process.pid || isProcessAlive(pid);
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
  {
    id: 'host-runs-002-seen',
    up(db) {
      db.exec('ALTER TABLE host_runs ADD COLUMN seen_at TEXT');
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
  seen_at: string | null;
}

/** This store's statements, prepared once per connection (store-db.ts perConnection); none is ever iterated. */
const RUN_RECORD_STATEMENTS = Symbol('run_record_statements');

export class RunRecords {
  private readonly stmts;

  constructor(db: Database.Database) {
    runMigrations(db, MIGRATIONS);
    this.stmts = perConnection(db, RUN_RECORD_STATEMENTS, () =>
      lazyStatements({
        start: () => db.prepare(
          `INSERT INTO host_runs (thread_id, folder, state, started_at, ended_at, message, host_pid) VALUES (?, ?, ?, ?, NULL, NULL, ?)
           ON CONFLICT(thread_id) DO UPDATE SET folder = excluded.folder, state = excluded.state, started_at = excluded.started_at, ended_at = NULL, message = NULL, host_pid = excluded.host_pid`,
        ),
        seen: () => db.prepare('UPDATE host_runs SET seen_at = ? WHERE thread_id = ?'),
        move: () => db.prepare('UPDATE host_runs SET folder = ? WHERE thread_id = ?'),
        setState: () => db.prepare('UPDATE host_runs SET state = ?, message = ? WHERE thread_id = ?'),
        end: () => db.prepare('UPDATE host_runs SET state = ?, ended_at = ?, message = ? WHERE thread_id = ?'),
        get: () => db.prepare<[string], Row>('SELECT * FROM host_runs WHERE thread_id = ?'),
        list: () => db.prepare<[number], Row>('SELECT * FROM host_runs ORDER BY started_at DESC LIMIT ?'),
        going: () => db.prepare<[], Row>("SELECT * FROM host_runs WHERE state IN ('queued', 'working', 'needs-you', 'budget')"),
        goingIn: () => db.prepare<[string], Row>("SELECT * FROM host_runs WHERE folder = ? AND state IN ('queued', 'working', 'needs-you', 'budget')"),
        shown: () => db.prepare<[], Row>(
          "SELECT * FROM host_runs WHERE state IN ('queued', 'working', 'needs-you', 'budget') OR seen_at IS NULL OR seen_at < ended_at ORDER BY started_at DESC LIMIT 500",
        ),
      }),
    );
  }

  start(threadId: string, folder: string, hostPid: number, state: 'queued' | 'working' = 'working'): void {
    this.stmts.start.run(threadId, folder, state, new Date().toISOString(), hostPid);
    changed();
  }

  /** `message`: what a run going on says meanwhile (a cap's paused line, SPEC §26). */
  setState(threadId: string, state: RunState, message?: string): void {
    this.stmts.setState.run(state, message ?? null, threadId);
    changed();
  }

  end(threadId: string, state: RunState, message?: string): void {
    this.stmts.end.run(state, new Date().toISOString(), message ?? null, threadId);
    changed();
  }

  /** A window opened the thread: a finished run of it leaves the Agents view. */
  seen(threadId: string): void {
    if (this.stmts.seen.run(new Date().toISOString(), threadId).changes > 0) changed();
  }

  /** The thread moved to another folder (its worktree was removed): its run is listed there. */
  moveThread(threadId: string, folder: string): void {
    if (this.stmts.move.run(folder, threadId).changes > 0) changed();
  }

  /** Runs going in `folder` now (of any process still alive). */
  goingIn(folder: string): RunRecord[] {
    return this.stmts.goingIn.all(folder).filter((row) => processAlive(row.host_pid)).map(record);
  }

  /** What the Agents view lists: runs going, and runs ended since the thread was last opened; runs of a process that died are marked interrupted first. */
  shown(): RunRecord[] {
    this.interruptDead();
    return this.stmts.shown.all().map(record);
  }

  /** Runs recorded as going by a process that is gone: marked interrupted and returned. */
  interruptDead(): RunRecord[] {
    const dead = this.stmts.going.all().filter((row) => !processAlive(row.host_pid));
    for (const row of dead) this.stmts.end.run('interrupted', new Date().toISOString(), 'interrupted: the process running it stopped before it finished', row.thread_id);
    if (dead.length > 0) changed();
    return dead.map((row) => ({ ...record(row), state: 'interrupted' as const }));
  }

  get(threadId: string): RunRecord | undefined {
    const row = this.stmts.get.get(threadId);
    return row === undefined ? undefined : record(row);
  }

  /** The most recent first. */
  list(limit = 200): RunRecord[] {
    return this.stmts.list.all(limit).map(record);
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
    seenAt: row.seen_at,
  };
}
