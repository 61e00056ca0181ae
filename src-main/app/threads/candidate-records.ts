// Which threads are candidates of one set (SPEC §21: `run --candidates N`), in SQLite beside the
// threads: the set's id, the candidate's place in it, how many it has and the goal, so that the
// Agents view shows a set as one item with its candidates, whichever process lists it.

import type Database from 'better-sqlite3';
import { runMigrations } from '../../core/backends/store/store-db';
import type { Migration } from '../../core/backends/store/migration';

export interface CandidateMember {
  threadId: string;
  setId: string;
  /** Its place in the set (0-based). */
  index: number;
  /** How many candidates the set has. */
  count: number;
  goal: string;
}

const MIGRATIONS: Migration[] = [
  {
    id: 'candidate-members-001',
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS candidate_members (
          thread_id TEXT PRIMARY KEY,
          set_id TEXT NOT NULL,
          idx INTEGER NOT NULL,
          count INTEGER NOT NULL,
          goal TEXT NOT NULL
        )
      `);
    },
  },
];

interface Row {
  thread_id: string;
  set_id: string;
  idx: number;
  count: number;
  goal: string;
}

export class CandidateRecords {
  private readonly stmts;

  constructor(db: Database.Database) {
    runMigrations(db, MIGRATIONS);
    this.stmts = {
      add: db.prepare('INSERT OR REPLACE INTO candidate_members (thread_id, set_id, idx, count, goal) VALUES (?, ?, ?, ?, ?)'),
      get: db.prepare<[string], Row>('SELECT * FROM candidate_members WHERE thread_id = ?'),
      members: db.prepare<[string], Row>('SELECT * FROM candidate_members WHERE set_id = ? ORDER BY idx'),
    };
  }

  add(member: CandidateMember): void {
    this.stmts.add.run(member.threadId, member.setId, member.index, member.count, member.goal);
  }

  get(threadId: string): CandidateMember | undefined {
    const row = this.stmts.get.get(threadId);
    return row === undefined ? undefined : member(row);
  }

  /** A set's candidates in their order. */
  members(setId: string): CandidateMember[] {
    return this.stmts.members.all(setId).map(member);
  }
}

function member(row: Row): CandidateMember {
  return { threadId: row.thread_id, setId: row.set_id, index: row.idx, count: row.count, goal: row.goal };
}
