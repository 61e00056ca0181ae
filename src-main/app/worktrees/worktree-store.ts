// The worktrees Deepdesk made, in SQLite beside the threads (table `worktrees`): where each
// lives, which repository and folder it came from, its branch and base, and the working
// state last applied to the person's folder (so removing it knows whether work would be lost),
// and the folder's state it last took in (mergeFolderIn), with the files that conflicted then.

import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { runMigrations } from '../../core/backends/store/store-db';
import type { Migration } from '../../core/backends/store/migration';

export interface WorktreeRecord {
  name: string;
  /** The worktree's folder: `<data-dir>/worktrees/<name>` (real path). */
  path: string;
  /** The top-level folder of the repository it is a worktree of (real path). */
  repoRoot: string;
  /** The person's folder it was made from (the repository or a folder inside it). */
  originFolder: string;
  /** `originFolder` relative to `repoRoot` ('' when they are the same). */
  subdir: string;
  /** The folder a thread in this worktree works in: `path`, or `path/<subdir>`. */
  threadFolder: string;
  /** `deepdesk/<name>`. */
  branch: string;
  /** The commit it was made from (the folder's HEAD then). */
  baseCommit: string;
  createdAt: string;
  /** The tree of its working state when it was last applied to the person's folder. */
  appliedTree: string | null;
  appliedAt: string | null;
  /**
   * The commit of the person's folder's state the worktree last took in (`Ask the agent to
   * resolve`): its base since, kept by the ref `refs/deepdesk/folder-state/<name>`; null when none.
   */
  sinceCommit: string | null;
  /** The files that conflicted when it was taken in (they held conflict markers for the agent to resolve). */
  sinceConflicts: string[];
}

const MIGRATIONS: Migration[] = [
  {
    id: 'worktrees-001',
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS worktrees (
          name TEXT PRIMARY KEY,
          path TEXT NOT NULL,
          repo_root TEXT NOT NULL,
          origin_folder TEXT NOT NULL,
          subdir TEXT NOT NULL DEFAULT '',
          branch TEXT NOT NULL,
          base_commit TEXT NOT NULL,
          created_at TEXT NOT NULL,
          applied_tree TEXT,
          applied_at TEXT
        )
      `);
    },
  },
  {
    id: 'worktrees-002-folder-state',
    up(db) {
      db.exec('ALTER TABLE worktrees ADD COLUMN since_commit TEXT');
      db.exec('ALTER TABLE worktrees ADD COLUMN since_conflicts TEXT');
    },
  },
];

interface Row {
  name: string;
  path: string;
  repo_root: string;
  origin_folder: string;
  subdir: string;
  branch: string;
  base_commit: string;
  created_at: string;
  applied_tree: string | null;
  applied_at: string | null;
  since_commit: string | null;
  since_conflicts: string | null;
}

export type NewWorktreeRecord = Omit<WorktreeRecord, 'threadFolder' | 'appliedTree' | 'appliedAt' | 'createdAt' | 'sinceCommit' | 'sinceConflicts'>;

export class WorktreeStore {
  private readonly stmts;

  constructor(db: Database.Database) {
    runMigrations(db, MIGRATIONS);
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO worktrees (name, path, repo_root, origin_folder, subdir, branch, base_commit, created_at, applied_tree, applied_at)
         VALUES (@name, @path, @repoRoot, @originFolder, @subdir, @branch, @baseCommit, @createdAt, NULL, NULL)`,
      ),
      get: db.prepare<[string], Row>('SELECT * FROM worktrees WHERE name = ?'),
      list: db.prepare<[], Row>('SELECT * FROM worktrees ORDER BY created_at, name'),
      applied: db.prepare('UPDATE worktrees SET applied_tree = ?, applied_at = ? WHERE name = ?'),
      since: db.prepare('UPDATE worktrees SET since_commit = ?, since_conflicts = ? WHERE name = ?'),
      delete: db.prepare('DELETE FROM worktrees WHERE name = ?'),
    };
  }

  /** Records a worktree about to be made; false when the name is taken (the primary key keeps two processes apart). */
  reserve(record: NewWorktreeRecord): boolean {
    try {
      this.stmts.insert.run({ ...record, createdAt: new Date().toISOString() });
      return true;
    } catch (err) {
      if ((err as { code?: unknown }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return false;
      throw err;
    }
  }

  get(name: string): WorktreeRecord | undefined {
    const row = this.stmts.get.get(name);
    return row === undefined ? undefined : record(row);
  }

  /** Oldest first. */
  list(): WorktreeRecord[] {
    return this.stmts.list.all().map(record);
  }

  setApplied(name: string, tree: string): void {
    this.stmts.applied.run(tree, new Date().toISOString(), name);
  }

  setSince(name: string, commit: string, conflicts: readonly string[]): void {
    this.stmts.since.run(commit, JSON.stringify(conflicts), name);
  }

  delete(name: string): void {
    this.stmts.delete.run(name);
  }
}

function record(row: Row): WorktreeRecord {
  return {
    name: row.name,
    path: row.path,
    repoRoot: row.repo_root,
    originFolder: row.origin_folder,
    subdir: row.subdir,
    threadFolder: join(row.path, row.subdir),
    branch: row.branch,
    baseCommit: row.base_commit,
    createdAt: row.created_at,
    appliedTree: row.applied_tree,
    appliedAt: row.applied_at,
    sinceCommit: row.since_commit,
    sinceConflicts: stringList(row.since_conflicts),
  };
}

function stringList(json: string | null): string[] {
  if (json === null) return [];
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}
