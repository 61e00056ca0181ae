// The checkpoint history of one data folder in its own SQLite file (`checkpoints.db`):
// content-addressed blobs (sha256, deduplicated), each folder's manifest (the last state
// seen of every path) and the checkpoints with their entries. A checkpoint, its blobs and
// the manifest update are written in one transaction, so a process killed at any point
// leaves the history as it was before or after that checkpoint, never in between.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { ownerOnlySqliteFile, runMigrations } from '../backends/store/store-db';
import type { Migration } from '../backends/store/migration';
import { packBlob } from './blob-packing';
import type { BlobWriter } from './blob-writer';
import { changeStatus, type Change, type Checkpoint, type CheckpointEntry, type CheckpointKind, type EntryType, type FileState, type ManifestRow } from './types';

const MIGRATIONS: Migration[] = [
  {
    id: 'checkpoints-001',
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS folders (
          id INTEGER PRIMARY KEY,
          path TEXT NOT NULL UNIQUE,
          baseline_at TEXT
        );
        -- A rowid table: SQLite keeps big rows badly in WITHOUT ROWID tables.
        CREATE TABLE IF NOT EXISTS blobs (
          hash TEXT NOT NULL UNIQUE,
          size INTEGER NOT NULL,
          zipped INTEGER NOT NULL DEFAULT 0,
          data BLOB NOT NULL
        );
        CREATE TABLE IF NOT EXISTS manifest (
          folder_id INTEGER NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
          path TEXT NOT NULL,
          type TEXT NOT NULL,
          mode INTEGER NOT NULL,
          hash TEXT NOT NULL,
          size INTEGER NOT NULL,
          mtime REAL NOT NULL,
          ctime REAL NOT NULL,
          ino INTEGER NOT NULL,
          hashed_at REAL NOT NULL,
          PRIMARY KEY (folder_id, path)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS checkpoints (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          id TEXT NOT NULL UNIQUE,
          folder_id INTEGER NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
          thread_id TEXT,
          message_index INTEGER,
          message_line TEXT NOT NULL DEFAULT '',
          kind TEXT NOT NULL,
          parent_id TEXT,
          tool_call_id TEXT,
          tool TEXT,
          reverts TEXT NOT NULL DEFAULT '[]',
          created_at TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS checkpoints_thread ON checkpoints(thread_id, seq);
        CREATE INDEX IF NOT EXISTS checkpoints_folder ON checkpoints(folder_id, seq);
        CREATE TABLE IF NOT EXISTS entries (
          checkpoint_seq INTEGER NOT NULL REFERENCES checkpoints(seq) ON DELETE CASCADE,
          path TEXT NOT NULL,
          before_type TEXT, before_mode INTEGER, before_hash TEXT,
          after_type TEXT, after_mode INTEGER, after_hash TEXT,
          added INTEGER, removed INTEGER,
          PRIMARY KEY (checkpoint_seq, path)
        ) WITHOUT ROWID;
      `);
    },
  },
  {
    // Changes seen during a command without a write layer: who made them cannot be told.
    id: 'checkpoints-002-unattributed',
    up(db) {
      db.exec('ALTER TABLE checkpoints ADD COLUMN unattributed INTEGER NOT NULL DEFAULT 0');
    },
  },
  {
    // The model of the step (who wrote each line, SPEC §24).
    id: 'checkpoints-003-model',
    up(db) {
      db.exec('ALTER TABLE checkpoints ADD COLUMN model TEXT');
    },
  },
  {
    // The notes Deepdesk wrote under refs/notes/ai (their blob ids), or read and let stand: any other is looked at again (SPEC §24).
    id: 'checkpoints-004-notes',
    up(db) {
      db.exec('CREATE TABLE notes (folder_id INTEGER NOT NULL REFERENCES folders(id) ON DELETE CASCADE, blob TEXT NOT NULL, PRIMARY KEY (folder_id, blob)) WITHOUT ROWID');
    },
  },
];

export type NewCheckpoint = Pick<Checkpoint, 'folder' | 'kind' | 'threadId' | 'messageIndex' | 'messageLine'> &
  Partial<Pick<Checkpoint, 'toolCallId' | 'tool' | 'model' | 'reverts' | 'unattributed'>> & { changes: Change[] };

interface CheckpointRow {
  seq: number;
  id: string;
  folder: string;
  thread_id: string | null;
  message_index: number | null;
  message_line: string;
  kind: CheckpointKind;
  parent_id: string | null;
  tool_call_id: string | null;
  tool: string | null;
  model: string | null;
  reverts: string;
  created_at: string;
  unattributed: number;
}

interface EntryRow {
  checkpoint_seq: number;
  path: string;
  before_type: EntryType | null;
  before_mode: number | null;
  before_hash: string | null;
  after_type: EntryType | null;
  after_mode: number | null;
  after_hash: string | null;
  added: number | null;
  removed: number | null;
}

interface ManifestDbRow {
  path: string;
  type: EntryType;
  mode: number;
  hash: string;
  size: number;
  mtime: number;
  ctime: number;
  ino: number;
  hashed_at: number;
}

export interface PathStep extends CheckpointEntry {
  checkpoint: Checkpoint;
}

export class CheckpointStore {
  readonly db: Database.Database;
  private readonly folderIds = new Map<string, number>();
  private readonly s;

  /** Opens `<dataDir>/checkpoints.db` (or a given file). */
  static open(dataDir: string): CheckpointStore {
    return new CheckpointStore(path.join(dataDir, 'checkpoints.db'));
  }

  constructor(file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    ownerOnlySqliteFile(file);
    this.db = new Database(file);
    // WAL with synchronous=NORMAL: a killed process never loses or half-writes a committed
    // transaction; only a power cut may drop the last ones (the history stays consistent).
    // Space freed by garbage collection goes back to the file system (set before any table exists).
    this.db.pragma('auto_vacuum = INCREMENTAL');
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 10000');
    // A big first snapshot grows the WAL; give the space back once it is checkpointed.
    this.db.pragma('journal_size_limit = 16777216');
    this.db.pragma('foreign_keys = ON');
    runMigrations(this.db, MIGRATIONS);
    const db = this.db;
    this.s = {
      folderGet: db.prepare<[string], { id: number; baseline_at: string | null }>('SELECT id, baseline_at FROM folders WHERE path = ?'),
      folderAdd: db.prepare('INSERT OR IGNORE INTO folders (path) VALUES (?)'),
      folderBaseline: db.prepare('UPDATE folders SET baseline_at = ? WHERE id = ?'),
      blobHas: db.prepare<[string], { one: number }>('SELECT 1 AS one FROM blobs WHERE hash = ?'),
      blobPut: db.prepare('INSERT OR IGNORE INTO blobs (hash, size, zipped, data) VALUES (?, ?, ?, ?)'),
      blobGet: db.prepare<[string], { zipped: number; data: Buffer }>('SELECT zipped, data FROM blobs WHERE hash = ?'),
      manifestAll: db.prepare<[number], ManifestDbRow>('SELECT path, type, mode, hash, size, mtime, ctime, ino, hashed_at FROM manifest WHERE folder_id = ?'),
      manifestGet: db.prepare<[number, string], ManifestDbRow>('SELECT path, type, mode, hash, size, mtime, ctime, ino, hashed_at FROM manifest WHERE folder_id = ? AND path = ?'),
      // Paths sort as bytes: those below `a` lie between `a/` and `a0` ('0' follows '/').
      manifestUnder: db.prepare<[number, string, string], string>('SELECT path FROM manifest WHERE folder_id = ? AND path > ? AND path < ?').pluck(),
      manifestIgnored: db.prepare<[number], string>("SELECT path FROM manifest WHERE folder_id = ? AND type = 'i'").pluck(),
      manifestCount: db.prepare<[number], number>('SELECT count(*) FROM manifest WHERE folder_id = ?').pluck(),
      manifestPut: db.prepare(
        'INSERT OR REPLACE INTO manifest (folder_id, path, type, mode, hash, size, mtime, ctime, ino, hashed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      manifestDel: db.prepare('DELETE FROM manifest WHERE folder_id = ? AND path = ?'),
      lastInFolder: db.prepare<[number], { id: string }>('SELECT id FROM checkpoints WHERE folder_id = ? ORDER BY seq DESC LIMIT 1'),
      insertCheckpoint: db.prepare(
        `INSERT INTO checkpoints (id, folder_id, thread_id, message_index, message_line, kind, parent_id, tool_call_id, tool, model, reverts, created_at, unattributed)
         VALUES (@id, @folderId, @threadId, @messageIndex, @messageLine, @kind, @parentId, @toolCallId, @tool, @model, @reverts, @createdAt, @unattributed)`,
      ),
      insertEntry: db.prepare(
        `INSERT OR REPLACE INTO entries (checkpoint_seq, path, before_type, before_mode, before_hash, after_type, after_mode, after_hash, added, removed)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)`,
      ),
      setCounts: db.prepare('UPDATE entries SET added = ?, removed = ? WHERE checkpoint_seq = ? AND path = ?'),
      checkpointById: db.prepare<[string], CheckpointRow>(
        'SELECT c.*, f.path AS folder FROM checkpoints c JOIN folders f ON f.id = c.folder_id WHERE c.id = ?',
      ),
      checkpointsOfThread: db.prepare<[string], CheckpointRow>(
        'SELECT c.*, f.path AS folder FROM checkpoints c JOIN folders f ON f.id = c.folder_id WHERE c.thread_id = ? ORDER BY c.seq',
      ),
      entriesOf: db.prepare<[number], EntryRow>('SELECT * FROM entries WHERE checkpoint_seq = ? ORDER BY path'),
      pathHistory: db.prepare<[number, string], CheckpointRow & EntryRow>(
        'SELECT c.*, f.path AS folder, e.* FROM entries e JOIN checkpoints c ON c.seq = e.checkpoint_seq JOIN folders f ON f.id = c.folder_id WHERE c.folder_id = ? AND e.path = ? ORDER BY c.seq',
      ),
      threadModel: db.prepare<[string], string>('SELECT model FROM checkpoints WHERE thread_id = ? AND model IS NOT NULL ORDER BY seq DESC LIMIT 1').pluck(),
      deleteThread: db.prepare('DELETE FROM checkpoints WHERE thread_id = ?'),
      noteKnow: db.prepare('INSERT OR IGNORE INTO notes (folder_id, blob) VALUES (?, ?)'),
      noteKnown: db.prepare<[number, string], number>('SELECT 1 FROM notes WHERE folder_id = ? AND blob = ?').pluck(),
    };
  }

  close(): void {
    this.db.close();
  }

  /** The folder's row id, created on first use. */
  folderId(folder: string): number {
    const cached = this.folderIds.get(folder);
    if (cached !== undefined) return cached;
    this.s.folderAdd.run(folder);
    const id = this.s.folderGet.get(folder)!.id;
    this.folderIds.set(folder, id);
    return id;
  }

  hasBaseline(folder: string): boolean {
    return this.baselineAt(folder) !== undefined;
  }

  /** When Deepdesk first recorded the whole folder (ISO time). */
  baselineAt(folder: string): string | undefined {
    return this.s.folderGet.get(folder)?.baseline_at ?? undefined;
  }

  /** A note (its blob id) Deepdesk wrote on a commit of the folder, or read there and let stand. */
  knowNote(folder: string, blob: string): void {
    this.s.noteKnow.run(this.folderId(folder), blob);
  }

  knowsNote(folder: string, blob: string): boolean {
    return this.s.noteKnown.get(this.folderId(folder), blob) !== undefined;
  }

  manifest(folder: string): Map<string, ManifestRow> {
    const rows = this.s.manifestAll.all(this.folderId(folder));
    return new Map(rows.map((r) => [r.path, fromManifestRow(r)]));
  }

  manifestRow(folder: string, rel: string): ManifestRow | undefined {
    const r = this.s.manifestGet.get(this.folderId(folder), rel);
    return r ? fromManifestRow(r) : undefined;
  }

  /** The recorded paths below folder `rel` (at any depth). */
  manifestPathsUnder(folder: string, rel: string): string[] {
    return this.s.manifestUnder.all(this.folderId(folder), `${rel}/`, `${rel}0`);
  }

  /** The recorded paths of ignored entries (type `i`). */
  manifestIgnoredPaths(folder: string): string[] {
    return this.s.manifestIgnored.all(this.folderId(folder));
  }

  manifestSize(folder: string): number {
    return this.s.manifestCount.get(this.folderId(folder)) ?? 0;
  }

  hasBlob(hash: string): boolean {
    return this.s.blobHas.get(hash) !== undefined;
  }

  blob(hash: string): Buffer | undefined {
    const row = this.s.blobGet.get(hash);
    if (!row) return undefined;
    return row.zipped ? inflateRawSync(row.data) : row.data;
  }

  /**
   * Writes one snapshot in one transaction: the new blobs, the manifest rows that changed
   * (`null` removes a path), and, when `checkpoint` has changes, the checkpoint.
   */
  commit(options: {
    folder: string;
    blobs: ReadonlyMap<string, Buffer>;
    manifest: ReadonlyMap<string, ManifestRow | null>;
    checkpoints: NewCheckpoint[];
    baseline?: boolean;
  }): Checkpoint[] {
    const folderId = this.folderId(options.folder);
    const prepared = [...options.blobs].filter(([hash]) => !this.hasBlob(hash)).map(([hash, data]) => [hash, data, ...packBlob(data)] as const);
    return this.db.transaction(() => {
      for (const [hash, data, zipped, stored] of prepared) this.s.blobPut.run(hash, data.length, zipped, stored);
      for (const [rel, row] of options.manifest) {
        if (row === null) this.s.manifestDel.run(folderId, rel);
        else this.s.manifestPut.run(folderId, rel, row.type, row.mode, row.hash, row.size, row.mtimeMs, row.ctimeMs, row.ino, row.hashedAt);
      }
      if (options.baseline) this.s.folderBaseline.run(new Date().toISOString(), folderId);
      const made: Checkpoint[] = [];
      for (const c of options.checkpoints) {
        if (c.changes.length === 0) continue;
        const parentId = this.s.lastInFolder.get(folderId)?.id ?? null;
        const id = randomBytes(6).toString('hex');
        const createdAt = new Date().toISOString();
        const fields = {
          threadId: c.threadId,
          messageIndex: c.messageIndex,
          messageLine: c.messageLine,
          kind: c.kind,
          parentId,
          toolCallId: c.toolCallId ?? null,
          tool: c.tool ?? null,
          model: c.model ?? null,
        };
        const info = this.s.insertCheckpoint.run({ id, folderId, ...fields, reverts: JSON.stringify(c.reverts ?? []), createdAt, unattributed: c.unattributed ? 1 : 0 });
        const seq = Number(info.lastInsertRowid);
        for (const ch of c.changes) {
          this.s.insertEntry.run(seq, ch.path, ch.before?.type ?? null, ch.before?.mode ?? null, ch.before?.hash ?? null, ch.after?.type ?? null, ch.after?.mode ?? null, ch.after?.hash ?? null);
        }
        made.push({ id, seq, folder: options.folder, ...fields, reverts: c.reverts ?? [], createdAt, unattributed: c.unattributed === true });
      }
      return made;
    }).immediate();
  }

  /**
   * Stores blobs; with a writer (the baseline, which stores every file of the folder), they
   * are compressed and written on its thread, off the event loop.
   */
  async putBlobs(blobs: ReadonlyMap<string, Buffer>, writer?: BlobWriter): Promise<void> {
    // The writer's thread skips what is stored already (INSERT OR IGNORE): no lookups here.
    if (writer) return writer.put([...blobs].map(([hash, data]) => ({ hash, data })));
    const fresh = [...blobs].filter(([hash]) => !this.hasBlob(hash));
    this.db.transaction(() => {
      for (const [hash, data] of fresh) this.s.blobPut.run(hash, data.length, ...packBlob(data));
    }).immediate();
  }

  checkpoint(id: string): Checkpoint | undefined {
    const row = this.s.checkpointById.get(id);
    return row ? fromCheckpointRow(row) : undefined;
  }

  checkpointsOfThread(threadId: string): Checkpoint[] {
    return this.s.checkpointsOfThread.all(threadId).map(fromCheckpointRow);
  }

  entries(checkpoint: Checkpoint): CheckpointEntry[] {
    return this.s.entriesOf.all(checkpoint.seq).map(fromEntryRow);
  }

  /** The checkpoints that changed `rel` in `folder`, oldest first, each with its change of it. */
  pathHistory(folder: string, rel: string): PathStep[] {
    return this.s.pathHistory.all(this.folderId(folder), rel).map((r) => ({ checkpoint: fromCheckpointRow(r), ...fromEntryRow(r) }));
  }

  /** The model of the thread's latest step that recorded one. */
  threadModel(threadId: string): string | undefined {
    return this.s.threadModel.get(threadId) ?? undefined;
  }

  setLineCounts(checkpoint: Checkpoint, rel: string, added: number, removed: number): void {
    this.s.setCounts.run(added, removed, checkpoint.seq, rel);
  }

  /** Removes a thread's checkpoints (its entries go with them); blobs are collected by gc(). */
  deleteThread(threadId: string): number {
    return this.s.deleteThread.run(threadId).changes;
  }

  /**
   * Forgets `folder` and the folders inside it, gone for good (a removed worktree): their
   * checkpoints and manifests, and the content nothing else needs. Their rows stay, without a
   * baseline (a process that knows their ids can still use them; a folder made there again starts anew).
   */
  forgetFolder(folder: string): number {
    const forgotten = this.db.transaction(() => {
      const ids = this.db
        .prepare<[{ folder: string }], { id: number }>("SELECT id FROM folders WHERE path = @folder OR substr(path, 1, length(@folder) + 1) = @folder || '/'")
        .all({ folder })
        .map((r) => r.id);
      let n = 0;
      for (const id of ids) {
        n += this.db.prepare('DELETE FROM checkpoints WHERE folder_id = ?').run(id).changes;
        for (const table of ['manifest', 'notes']) this.db.prepare(`DELETE FROM ${table} WHERE folder_id = ?`).run(id);
        this.s.folderBaseline.run(null, id);
      }
      return n;
    }).immediate();
    this.collectUnreferenced();
    return forgotten;
  }

  /** Removes the person's checkpoints recorded up to `iso` (they only document; restores never use them). */
  deletePersonCheckpointsUpTo(iso: string): number {
    return this.db.prepare("DELETE FROM checkpoints WHERE kind = 'person' AND created_at <= ?").run(iso).changes;
  }

  /** Bytes of blob content stored (as stored: deflated ones count their deflated size). */
  storedBytes(): number {
    return (this.db.prepare('SELECT COALESCE(SUM(length(data)), 0) AS n FROM blobs').get() as { n: number }).n;
  }

  /** Deletes blobs that no checkpoint entry and no manifest row refers to; returns how many. */
  collectUnreferenced(): number {
    const deleted = this.db
      .prepare(
        `DELETE FROM blobs WHERE hash NOT IN (
           SELECT before_hash FROM entries WHERE before_type IN ('f','l')
           UNION SELECT after_hash FROM entries WHERE after_type IN ('f','l')
           UNION SELECT hash FROM manifest WHERE type IN ('f','l'))`,
      )
      .run().changes;
    if (deleted > 0) this.db.pragma('incremental_vacuum');
    return deleted;
  }

  /** Threads with checkpoints, least recently checkpointed first (by recording order: two in one millisecond keep theirs). */
  threadsByAge(): Array<{ threadId: string; lastAt: string }> {
    return this.db
      .prepare<[], { thread_id: string; last_at: string }>(
        'SELECT thread_id, MAX(created_at) AS last_at FROM checkpoints WHERE thread_id IS NOT NULL GROUP BY thread_id ORDER BY MAX(seq)',
      )
      .all()
      .map((r) => ({ threadId: r.thread_id, lastAt: r.last_at }));
  }
}

function fromManifestRow(r: ManifestDbRow): ManifestRow {
  return { path: r.path, type: r.type, mode: r.mode, hash: r.hash, size: r.size, mtimeMs: r.mtime, ctimeMs: r.ctime, ino: r.ino, hashedAt: r.hashed_at };
}

function fromCheckpointRow(r: CheckpointRow): Checkpoint {
  let reverts: string[];
  try {
    reverts = JSON.parse(r.reverts) as string[];
  } catch {
    reverts = [];
  }
  return {
    id: r.id,
    seq: r.seq,
    folder: r.folder,
    threadId: r.thread_id,
    messageIndex: r.message_index,
    messageLine: r.message_line,
    kind: r.kind,
    parentId: r.parent_id,
    toolCallId: r.tool_call_id,
    tool: r.tool,
    model: r.model,
    reverts,
    createdAt: r.created_at,
    unattributed: r.unattributed === 1,
  };
}

function stateOf(type: EntryType | null, mode: number | null, hash: string | null): FileState | null {
  return type === null ? null : { type, mode: mode ?? 0, hash: hash ?? '' };
}

function fromEntryRow(r: EntryRow): CheckpointEntry {
  const change: Change = { path: r.path, before: stateOf(r.before_type, r.before_mode, r.before_hash), after: stateOf(r.after_type, r.after_mode, r.after_hash) };
  return { ...change, status: changeStatus(change), added: r.added, removed: r.removed };
}
