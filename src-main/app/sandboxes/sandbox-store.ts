// The sandboxes Deepdesk made, in SQLite beside the threads and worktrees (table `sandboxes`):
// which worktree folder runs in which provider's sandbox, its id once made, what the sandbox
// holds as far as Deepdesk knows (the manifest of folder-upload.ts), and when it was last used.
// A folder with a record here is opened as a sandbox place by every client (session-place.ts).

import type Database from 'better-sqlite3';
import { lazyStatements, perConnection, runMigrations } from '../../core/backends/store/store-db';
import type { Migration } from '../../core/backends/store/migration';
import type { SandboxProviderName } from '../../core/sandbox-providers/provider';
import type { Manifest } from './folder-upload';

export type SandboxRecordState = 'pending' | 'running' | 'stopped' | 'gone';

export interface SandboxRecord {
  /** The worktree's thread folder (real path): the folder whose threads run in the sandbox. */
  folder: string;
  /** The worktree's name. */
  worktree: string;
  provider: SandboxProviderName;
  /** null until the sandbox is made (the folder's first session makes it). */
  sandboxId: string | null;
  state: SandboxRecordState;
  createdAt: string;
  lastUsedAt: string;
  /** What the sandbox holds as far as Deepdesk knows; null until the folder went up. */
  manifest: Manifest | null;
  /** What went up and what was left out (folder-upload.ts uploadSummary), for the agent's prompt. */
  uploadSummary: string | null;
}

const MIGRATIONS: Migration[] = [
  {
    id: 'sandboxes-001',
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS sandboxes (
          folder TEXT PRIMARY KEY,
          worktree TEXT NOT NULL,
          provider TEXT NOT NULL,
          sandbox_id TEXT,
          state TEXT NOT NULL,
          created_at TEXT NOT NULL,
          last_used_at TEXT NOT NULL,
          manifest TEXT
        );
        CREATE INDEX IF NOT EXISTS sandboxes_id ON sandboxes(provider, sandbox_id);
      `);
    },
  },
  {
    id: 'sandboxes-002-upload-summary',
    up(db) {
      db.exec('ALTER TABLE sandboxes ADD COLUMN upload_summary TEXT');
    },
  },
];

interface Row {
  folder: string;
  worktree: string;
  provider: string;
  sandbox_id: string | null;
  state: string;
  created_at: string;
  last_used_at: string;
  manifest: string | null;
  upload_summary: string | null;
}

/** This store's statements, prepared once per connection (store-db.ts perConnection); none is ever iterated. */
const SANDBOX_STATEMENTS = Symbol('sandbox_statements');

export class SandboxStore {
  private readonly stmts;

  constructor(db: Database.Database) {
    runMigrations(db, MIGRATIONS);
    this.stmts = perConnection(db, SANDBOX_STATEMENTS, () =>
      lazyStatements({
        put: () => db.prepare(
          `INSERT INTO sandboxes (folder, worktree, provider, sandbox_id, state, created_at, last_used_at, manifest)
           VALUES (@folder, @worktree, @provider, @sandboxId, @state, @createdAt, @lastUsedAt, @manifest)
           ON CONFLICT(folder) DO UPDATE SET worktree = excluded.worktree, provider = excluded.provider, sandbox_id = excluded.sandbox_id,
             state = excluded.state, created_at = excluded.created_at, last_used_at = excluded.last_used_at, manifest = excluded.manifest`,
        ),
        get: () => db.prepare<[string], Row>('SELECT * FROM sandboxes WHERE folder = ?'),
        byId: () => db.prepare<[string], Row>('SELECT * FROM sandboxes WHERE sandbox_id = ?'),
        list: () => db.prepare<[], Row>('SELECT * FROM sandboxes ORDER BY created_at'),
        // The sandbox's age is from when it was made, not from when its folder was marked.
        made: () => db.prepare('UPDATE sandboxes SET sandbox_id = ?, state = ?, last_used_at = ?, created_at = ? WHERE folder = ?'),
        state: () => db.prepare('UPDATE sandboxes SET state = ?, last_used_at = ? WHERE folder = ?'),
        used: () => db.prepare('UPDATE sandboxes SET last_used_at = ? WHERE folder = ?'),
        manifest: () => db.prepare('UPDATE sandboxes SET manifest = ? WHERE folder = ?'),
        summary: () => db.prepare('UPDATE sandboxes SET upload_summary = ? WHERE folder = ?'),
        delete: () => db.prepare('DELETE FROM sandboxes WHERE folder = ?'),
        forget: () => db.prepare("UPDATE sandboxes SET sandbox_id = NULL, state = 'pending', manifest = NULL, upload_summary = NULL WHERE folder = ?"),
      }),
    );
  }

  /** Marks `folder` to run in `provider`'s sandbox: `sandboxId` an existing one to reattach, else one is made when the folder opens. */
  put(record: { folder: string; worktree: string; provider: SandboxProviderName; sandboxId?: string }): SandboxRecord {
    const now = new Date().toISOString();
    this.stmts.put.run({ folder: record.folder, worktree: record.worktree, provider: record.provider, sandboxId: record.sandboxId ?? null, state: 'pending', createdAt: now, lastUsedAt: now, manifest: null });
    return this.get(record.folder)!;
  }

  get(folder: string): SandboxRecord | undefined {
    const row = this.stmts.get.get(folder);
    return row ? fromRow(row) : undefined;
  }

  byId(sandboxId: string): SandboxRecord | undefined {
    const row = this.stmts.byId.get(sandboxId);
    return row ? fromRow(row) : undefined;
  }

  list(): SandboxRecord[] {
    return this.stmts.list.all().map(fromRow);
  }

  made(folder: string, sandboxId: string): void {
    const now = new Date().toISOString();
    this.stmts.made.run(sandboxId, 'running', now, now, folder);
  }

  setState(folder: string, state: SandboxRecordState): void {
    this.stmts.state.run(state, new Date().toISOString(), folder);
  }

  used(folder: string): void {
    this.stmts.used.run(new Date().toISOString(), folder);
  }

  setManifest(folder: string, manifest: Manifest | null): void {
    this.stmts.manifest.run(manifest === null ? null : JSON.stringify(manifest), folder);
  }

  setUploadSummary(folder: string, summary: string): void {
    this.stmts.summary.run(summary, folder);
  }

  /** The folder's sandbox was never usable (its start failed): the next open makes one anew. */
  forgetSandbox(folder: string): void {
    this.stmts.forget.run(folder);
  }

  delete(folder: string): void {
    this.stmts.delete.run(folder);
  }
}

function fromRow(row: Row): SandboxRecord {
  let manifest: Manifest | null = null;
  if (row.manifest !== null) {
    try {
      manifest = JSON.parse(row.manifest) as Manifest;
    } catch {
      manifest = null; // Unreadable: the folder goes up again.
    }
  }
  return {
    folder: row.folder,
    worktree: row.worktree,
    provider: row.provider as SandboxProviderName,
    sandboxId: row.sandbox_id,
    state: row.state as SandboxRecordState,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    manifest,
    uploadSummary: row.upload_summary,
  };
}
