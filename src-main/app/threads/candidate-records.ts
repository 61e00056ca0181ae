// A set of candidates (SPEC §21: `run --candidates N`) in SQLite beside the threads: the set
// (its goal, its budget, and once all its candidates have ended the host's ranking) and which
// threads are its candidates (their place, their model, why one did not start), so that the
// Agents view shows a set as one item with its candidates and its ranking survives the host,
// whichever process reads it.

import type Database from 'better-sqlite3';
import { runMigrations } from '../../core/backends/store/store-db';
import type { Migration } from '../../core/backends/store/migration';
import { candidateSetJsonSchema, type CandidateSetJson } from '../contract/agents';

export interface CandidateMember {
  threadId: string;
  setId: string;
  /** Its place in the set (0-based). */
  index: number;
  /** How many candidates the set has. */
  count: number;
  goal: string;
  /** The model it was started with (`provider:model`); null: Settings' model, or an agent's own. */
  model: string | null;
  /** The other agent it runs as (SPEC §22: its name in the catalog); null: Deepdesk's own. */
  agent: string | null;
  /** Why it did not start (null: it started). */
  notStarted: string | null;
}

export interface CandidateSetRecord {
  setId: string;
  goal: string;
  /** The set's one budget in USD (null: none). */
  budgetUsd: number | null;
  createdAt: string;
  /** The host's ranking, kept once all the candidates ended (undefined until then, or if unreadable). */
  ranking?: CandidateSetJson;
  rankedAt: string | null;
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
  {
    id: 'candidate-sets-002',
    up(db) {
      db.exec(`
        ALTER TABLE candidate_members ADD COLUMN model TEXT;
        ALTER TABLE candidate_members ADD COLUMN not_started TEXT;
        ALTER TABLE candidate_members ADD COLUMN agent TEXT;
        CREATE INDEX IF NOT EXISTS candidate_members_set ON candidate_members (set_id, idx);
        CREATE TABLE IF NOT EXISTS candidate_sets (
          set_id TEXT PRIMARY KEY,
          goal TEXT NOT NULL,
          budget_usd REAL,
          created_at TEXT NOT NULL,
          ranking TEXT,
          ranked_at TEXT
        )
      `);
    },
  },
];

interface MemberRow {
  thread_id: string;
  set_id: string;
  idx: number;
  count: number;
  goal: string;
  model: string | null;
  agent: string | null;
  not_started: string | null;
}

interface SetRow {
  set_id: string;
  goal: string;
  budget_usd: number | null;
  created_at: string;
  ranking: string | null;
  ranked_at: string | null;
}

export class CandidateRecords {
  private readonly stmts;

  constructor(db: Database.Database) {
    runMigrations(db, MIGRATIONS);
    this.stmts = {
      addSet: db.prepare('INSERT OR IGNORE INTO candidate_sets (set_id, goal, budget_usd, created_at) VALUES (?, ?, ?, ?)'),
      getSet: db.prepare<[string], SetRow>('SELECT * FROM candidate_sets WHERE set_id = ?'),
      rank: db.prepare('UPDATE candidate_sets SET ranking = ?, ranked_at = ? WHERE set_id = ?'),
      add: db.prepare('INSERT OR REPLACE INTO candidate_members (thread_id, set_id, idx, count, goal, model, agent, not_started) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
      notStarted: db.prepare('UPDATE candidate_members SET not_started = ? WHERE thread_id = ?'),
      get: db.prepare<[string], MemberRow>('SELECT * FROM candidate_members WHERE thread_id = ?'),
      members: db.prepare<[string], MemberRow>('SELECT * FROM candidate_members WHERE set_id = ? ORDER BY idx'),
    };
  }

  /** The set and its candidates, as it starts (before any of them runs). */
  addSet(set: { setId: string; goal: string; budgetUsd: number | null }, members: ReadonlyArray<Omit<CandidateMember, 'setId' | 'count' | 'goal' | 'notStarted'>>): void {
    this.stmts.addSet.run(set.setId, set.goal, set.budgetUsd, new Date().toISOString());
    for (const m of members) this.add({ ...m, setId: set.setId, count: members.length, goal: set.goal, notStarted: null });
  }

  add(member: CandidateMember): void {
    this.stmts.add.run(member.threadId, member.setId, member.index, member.count, member.goal, member.model, member.agent, member.notStarted);
  }

  /** Why the candidate did not start (its set is ranked with it). */
  noteNotStarted(threadId: string, why: string): void {
    this.stmts.notStarted.run(why, threadId);
  }

  get(threadId: string): CandidateMember | undefined {
    const row = this.stmts.get.get(threadId);
    return row === undefined ? undefined : member(row);
  }

  /** A set's candidates in their order. */
  members(setId: string): CandidateMember[] {
    return this.stmts.members.all(setId).map(member);
  }

  set(setId: string): CandidateSetRecord | undefined {
    const row = this.stmts.getSet.get(setId);
    if (row === undefined) return undefined;
    const ranking = row.ranking === null ? undefined : storedRanking(row.ranking);
    return { setId: row.set_id, goal: row.goal, budgetUsd: row.budget_usd, createdAt: row.created_at, rankedAt: row.ranked_at, ...(ranking !== undefined ? { ranking } : {}) };
  }

  /** Keeps the host's ranking of an ended set. */
  keepRanking(ranking: CandidateSetJson): void {
    this.stmts.rank.run(JSON.stringify(ranking), new Date().toISOString(), ranking.setId);
  }
}

/** A stored ranking read back through its schema: one that does not parse is not shown as if it did. */
function storedRanking(text: string): CandidateSetJson | undefined {
  try {
    const parsed = candidateSetJsonSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function member(row: MemberRow): CandidateMember {
  return { threadId: row.thread_id, setId: row.set_id, index: row.idx, count: row.count, goal: row.goal, model: row.model, agent: row.agent, notStarted: row.not_started };
}
