// Threads in SQLite (SPEC §4): messages append-only in their own table, the thread's files
// (/large_tool_results/, /conversation_history/, /attachments/) one row each, written when
// they change, and everything else (todos, summary, usage, read guard) in the thread row; each
// save is one transaction, so a killed process loses at most the step in flight. Beside
// them: notes waiting for the model's next request, and the record of conversations rewound.

import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { runMigrations, type Migration } from '../../core/backends/store/store';
import { lazyStatements, perConnection } from '../../core/backends/store/store-db';
import { isNote, isPersonMessage, type PendingNote } from '../../core/agent/notes';
import { newThreadState, type ThreadAgentRecord, type ThreadState } from '../../core/agent/types';
import type { StateFile } from '../../core/backends/store/state';
import type { ChatMessage } from '../../core/models/types';
import { titleFromMessage } from './thread-title';
import { todoSchema, usageSchema } from '../contract/agent-events';
import { endGoal, goalSchema, type Goal } from '../../core/goals/goal';

const MIGRATIONS: Migration[] = [
  {
    id: 'threads-001',
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS threads (
          id TEXT PRIMARY KEY,
          title TEXT NOT NULL DEFAULT '',
          folder TEXT NOT NULL DEFAULT '',
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL,
          message_count INTEGER NOT NULL DEFAULT 0,
          state_json TEXT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS thread_messages (
          thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
          seq INTEGER NOT NULL,
          message_json TEXT NOT NULL,
          PRIMARY KEY (thread_id, seq)
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS threads_updated ON threads(updated_at DESC);
      `);
    },
  },
  {
    id: 'threads-002-notes-and-rewinds',
    up(db) {
      db.exec(`
        -- Notes waiting for the model's next request (e.g. of a restore); removed when saved into the history.
        CREATE TABLE IF NOT EXISTS thread_notes (
          id TEXT PRIMARY KEY,
          thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
          created_at TEXT NOT NULL,
          note_json TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS thread_notes_thread ON thread_notes(thread_id);
        -- Conversations rewound to before a message: what was taken out (for Undo restore),
        -- and up to which checkpoint the steps answering those messages went with them.
        CREATE TABLE IF NOT EXISTS thread_rewinds (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
          at_index INTEGER NOT NULL,
          checkpoint_id TEXT,
          checkpoint_seq INTEGER NOT NULL,
          removed_json TEXT NOT NULL,
          created_at TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS thread_rewinds_thread ON thread_rewinds(thread_id);
      `);
    },
  },
  {
    // How many of a thread's messages are the person's: with it, the end of a long thread is
    // shown without reading the rest (see tail()). Threads saved before have none until saved again.
    id: 'threads-003-person-count',
    up(db) {
      db.exec('ALTER TABLE threads ADD COLUMN person_count INTEGER');
    },
  },
  {
    // A thread's files had been in the row's JSON, rewritten whole at every step: an attached
    // 10 MB video made every step write 13 MB. Each file is its own row now, written when its
    // version changes; rows saved before keep theirs in the JSON until the thread is saved again.
    id: 'threads-004-thread-files',
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS thread_files (
          thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
          mount TEXT NOT NULL,
          path TEXT NOT NULL,
          version INTEGER NOT NULL,
          file_json TEXT NOT NULL,
          PRIMARY KEY (thread_id, mount, path)
        ) WITHOUT ROWID;
      `);
    },
  },
  {
    // A thread whose worktree was removed moves to the folder the worktree was made from; this
    // says which worktree it worked in (JSON: name, branch, removedAt).
    id: 'threads-005-removed-worktree',
    up(db) {
      db.exec('ALTER TABLE threads ADD COLUMN worktree_json TEXT');
    },
  },
  {
    // A thread's goal (SPEC §21) is in its state's JSON; its state is also a column, so the
    // Agents view lists goals and a host that starts finds the goals left pursuing without
    // reading every thread.
    id: 'threads-006-goal-state',
    up(db) {
      db.exec('ALTER TABLE threads ADD COLUMN goal_state TEXT');
      db.exec('CREATE INDEX IF NOT EXISTS threads_goal_state ON threads(goal_state) WHERE goal_state IS NOT NULL');
    },
  },
  {
    // Where a thread came from when not the window (JSON ThreadSource): a protocol client, a
    // terminal's `deepdesk run`, an editor. Null: the window, or a thread from before.
    id: 'threads-007-source',
    up(db) {
      db.exec('ALTER TABLE threads ADD COLUMN source_json TEXT');
    },
  },
  {
    // The hunks of a thread's changes the person marked Reviewed (or kept) in Changes (SPEC §24), by their id.
    id: 'threads-008-reviewed-hunks',
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS thread_reviewed_hunks (
          thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
          hunk_id TEXT NOT NULL,
          PRIMARY KEY (thread_id, hunk_id)
        ) WITHOUT ROWID;
      `);
    },
  },
];

/** Where a thread came from, when not the window: told in the thread list, its header, its messages' author and its export. */
export interface ThreadSource {
  kind: 'protocol' | 'run' | 'acp';
  /** Who, in words, where known: a protocol client's origin or user agent. */
  client?: string;
}

const threadSourceSchema = z.object({ kind: z.enum(['protocol', 'run', 'acp']), client: z.string().max(200).optional() });

type ThreadFileMounts = ThreadState['files'];
type MountName = keyof ThreadFileMounts;
const FILE_MOUNTS: readonly MountName[] = ['largeResults', 'history', 'attachments'];

/** The worktree a thread worked in before it was removed (the thread moved to the folder it was made from). */
export interface RemovedWorktree {
  name: string;
  branch: string;
  removedAt: string;
}

export interface ThreadSummary {
  id: string;
  title: string;
  folder: string;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
  removedWorktree?: RemovedWorktree;
  source?: ThreadSource;
  /** Its agent when it is another one over ACP (SPEC §22): its label. */
  agent?: string;
}

/** The thread row's JSON: the state minus its messages. */
const rowStateSchema = z.object({
  contextStart: z.number().int().min(0),
  summary: z.string().optional(),
  todos: z.array(z.object(todoSchema.shape)),
  usage: z.object(usageSchema.shape),
  guard: z.record(z.string(), z.string()),
  /** Only in rows saved before threads-004 (the files are rows of thread_files since). */
  files: z
    .object({
      largeResults: z.object({ files: z.record(z.string(), z.any()) }),
      history: z.object({ files: z.record(z.string(), z.any()) }),
      attachments: z.object({ files: z.record(z.string(), z.any()) }).optional(),
    })
    .optional(),
  subagentRuns: z.record(z.string(), z.array(z.any())).optional(),
  contextTokens: z.number().nonnegative().optional(),
  compactedBefore: z.number().int().min(0).optional(),
  mediaDroppedBefore: z.number().int().min(0).optional(),
  queued: z.array(z.object({ id: z.string(), text: z.string(), createdAt: z.string() })).optional(),
  mcpLoadedTools: z.array(z.string()).optional(),
  goal: goalSchema.optional(),
  /** The reviewer's breaker (SPEC §23): it holds across a restart. */
  reviewBreaker: z.object({ deniedInRow: z.number().int().min(0), denied: z.number().int().min(0), failedInRow: z.number().int().min(0), tripped: z.string().optional() }).optional(),
  allowedOnce: z.array(z.string()).optional(),
  externalAgent: z.object({ name: z.string(), label: z.string(), sessionId: z.string().optional() }).optional(),
});
const externalAgentSchema = rowStateSchema.shape.externalAgent.unwrap();

export class ThreadNotFoundError extends Error {}

/** A thread whose messages say what was searched for, with a bit of the first such message. */
export interface ThreadSearchMatch {
  threadId: string;
  snippet: string;
}

/** At most this many words of a search are used. */
const SEARCH_WORDS = 8;


/** A rewind of a thread's conversation (see rewind.ts): where, what went, and with which restore. */
export interface RewindRecord {
  id: number;
  threadId: string;
  /** The index of the person's message the conversation went back to before. */
  index: number;
  /** The restore of files that went with it (Undo restore of it puts the conversation back). */
  checkpointId: string | null;
  /** The thread's checkpoints up to this seq that answered messages from `index` on answered messages that are gone. */
  checkpointSeq: number;
  removed: unknown;
  createdAt: string;
}

interface RewindRow {
  id: number;
  thread_id: string;
  at_index: number;
  checkpoint_id: string | null;
  checkpoint_seq: number;
  removed_json: string;
  created_at: string;
}

/** This store's statements, prepared once per connection (store-db.ts perConnection); none is ever iterated. */
const THREAD_STATEMENTS = Symbol('thread_statements');

export class ThreadStore {
  /** The message objects last saved per thread: a message replaced since (e.g. an edited call) is written again. */
  private readonly saved = new Map<string, readonly ChatMessage[]>();
  /** The version of each file row last written or read per thread (`mount\0path` → version). */
  private readonly savedFiles = new Map<string, Map<string, number>>();
  private readonly stmts;

  constructor(private readonly db: Database.Database) {
    runMigrations(db, MIGRATIONS);
    this.stmts = perConnection(db, THREAD_STATEMENTS, () =>
      lazyStatements({
        get: () => db.prepare<[string], RowShape>(`SELECT *, ${AGENT_LABEL} FROM threads WHERE id = ?`),
        idsFrom: () => db.prepare<[string, number], { id: string }>('SELECT id FROM threads WHERE id >= ? ORDER BY id LIMIT ?'),
        messages: () => db.prepare<[string], { seq: number; message_json: string }>('SELECT seq, message_json FROM thread_messages WHERE thread_id = ? ORDER BY seq'),
        messagesFrom: () => db.prepare<[string, number, number], { seq: number; message_json: string }>('SELECT seq, message_json FROM thread_messages WHERE thread_id = ? AND seq >= ? ORDER BY seq LIMIT ?'),
        messageRange: () => db.prepare<[string, number, number], { seq: number; message_json: string }>(
          'SELECT seq, message_json FROM thread_messages WHERE thread_id = ? AND seq >= ? AND seq < ? ORDER BY seq',
        ),
        insertThread: () => db.prepare(
          `INSERT INTO threads (id, title, folder, created_at, updated_at, message_count, person_count, state_json, goal_state) VALUES (@id, @title, @folder, @now, @now, @count, @persons, @state, @goal)
           ON CONFLICT(id) DO UPDATE SET updated_at = @now, message_count = @count, person_count = @persons, state_json = @state, goal_state = @goal`,
        ),
        insertMessage: () => db.prepare('INSERT OR REPLACE INTO thread_messages (thread_id, seq, message_json) VALUES (?, ?, ?)'),
        deleteMessagesFrom: () => db.prepare('DELETE FROM thread_messages WHERE thread_id = ? AND seq >= ?'),
        list: () => db.prepare<[], RowShape>(`SELECT *, ${AGENT_LABEL} FROM threads ORDER BY updated_at DESC, id`),
        rename: () => db.prepare('UPDATE threads SET title = ?, updated_at = ? WHERE id = ?'),
        setTitleIfEmpty: () => db.prepare("UPDATE threads SET title = ? WHERE id = ? AND title = ''"),
        delete: () => db.prepare('DELETE FROM threads WHERE id = ?'),
        inFolder: () => db.prepare<[{ folder: string }], { id: string; folder: string }>("SELECT id, folder FROM threads WHERE folder = @folder OR substr(folder, 1, length(@folder) + 1) = @folder || '/'"),
        latest: () => db.prepare<[string], { id: string }>('SELECT id FROM threads WHERE folder = ? ORDER BY updated_at DESC, id LIMIT 1'),
        move: () => db.prepare('UPDATE threads SET folder = ?, worktree_json = ? WHERE id = ?'),
        setSource: () => db.prepare('UPDATE threads SET source_json = ? WHERE id = ? AND source_json IS NULL'),
        deleteMessages: () => db.prepare('DELETE FROM thread_messages WHERE thread_id = ?'),
        files: () => db.prepare<[string], { mount: string; path: string; version: number; file_json: string }>(
          'SELECT mount, path, version, file_json FROM thread_files WHERE thread_id = ?',
        ),
        putFile: () => db.prepare('INSERT OR REPLACE INTO thread_files (thread_id, mount, path, version, file_json) VALUES (?, ?, ?, ?, ?)'),
        deleteFile: () => db.prepare('DELETE FROM thread_files WHERE thread_id = ? AND mount = ? AND path = ?'),
        deleteFiles: () => db.prepare('DELETE FROM thread_files WHERE thread_id = ?'),
        addNote: () => db.prepare('INSERT INTO thread_notes (id, thread_id, created_at, note_json) VALUES (?, ?, ?, ?)'),
        notes: () => db.prepare<[string], { note_json: string }>('SELECT note_json FROM thread_notes WHERE thread_id = ? ORDER BY rowid'),
        deleteNote: () => db.prepare('DELETE FROM thread_notes WHERE id = ?'),
        deleteNotes: () => db.prepare('DELETE FROM thread_notes WHERE thread_id = ?'),
        addRewind: () => db.prepare(
          'INSERT INTO thread_rewinds (thread_id, at_index, checkpoint_id, checkpoint_seq, removed_json, created_at) VALUES (@threadId, @index, @checkpointId, @checkpointSeq, @removed, @createdAt)',
        ),
        rewinds: () => db.prepare<[string], RewindRow>('SELECT * FROM thread_rewinds WHERE thread_id = ? ORDER BY id'),
        deleteRewind: () => db.prepare('DELETE FROM thread_rewinds WHERE id = ?'),
        deleteRewinds: () => db.prepare('DELETE FROM thread_rewinds WHERE thread_id = ?'),
        reviewed: () => db.prepare<[string], string>('SELECT hunk_id FROM thread_reviewed_hunks WHERE thread_id = ?').pluck(),
        markReviewed: () => db.prepare('INSERT OR IGNORE INTO thread_reviewed_hunks (thread_id, hunk_id) VALUES (?, ?)'),
        unmarkReviewed: () => db.prepare('DELETE FROM thread_reviewed_hunks WHERE thread_id = ? AND hunk_id = ?'),
        deleteReviewed: () => db.prepare('DELETE FROM thread_reviewed_hunks WHERE thread_id = ?'),
        goalsIn: () => db.prepare<[string], { id: string; state_json: string }>('SELECT id, state_json FROM threads WHERE goal_state = ?'),
        setGoal: () => db.prepare('UPDATE threads SET state_json = ?, goal_state = ? WHERE id = ?'),
        resetBreakers: () => db.prepare("UPDATE threads SET state_json = json_remove(state_json, '$.reviewBreaker') WHERE folder = ? AND json_extract(state_json, '$.reviewBreaker.tripped') IS NOT NULL"),
        goalOf: () => db.prepare<[string], { state_json: string }>('SELECT state_json FROM threads WHERE id = ? AND goal_state IS NOT NULL'),
        agentOf: () => db.prepare<[string], { agent: string | null }>("SELECT json_extract(state_json, '$.externalAgent') AS agent FROM threads WHERE id = ?"),
      }),
    );
  }

  /** A thread's agent when it is another one over ACP (SPEC §22): its name, label and session, read without the thread. */
  externalAgent(id: string): ThreadAgentRecord | undefined {
    const parsed = externalAgentSchema.safeParse(safeJson(this.stmts.agentOf.get(id)?.agent ?? 'null'));
    return parsed.success ? parsed.data : undefined;
  }

  /** A thread's goal as saved (SPEC §21), if it has one. */
  goal(id: string): Goal | undefined {
    const row = this.stmts.goalOf.get(id);
    const parsed = row === undefined ? undefined : goalSchema.safeParse((safeJson(row.state_json) as { goal?: unknown } | undefined)?.goal);
    return parsed?.success === true ? parsed.data : undefined;
  }

  /**
   * Goals left `pursuing` when nothing runs them (the host that ran them stopped): each is
   * `paused` with the reason, never shown as running. Returns the threads changed.
   */
  pauseOrphanedGoals(reason: string): string[] {
    const paused: string[] = [];
    this.db.transaction(() => {
      for (const row of this.stmts.goalsIn.all('pursuing')) {
        const state = safeJson(row.state_json) as { goal?: unknown } | undefined;
        const goal = goalSchema.safeParse(state?.goal);
        if (state === undefined || !goal.success) continue;
        endGoal(goal.data, 'paused', reason);
        this.stmts.setGoal.run(JSON.stringify({ ...state, goal: goal.data }), 'paused', row.id);
        paused.push(row.id);
      }
    })();
    return paused;
  }

  /**
   * Threads of `folder` with a message of the person or the agent (not tool results, not
   * notes) that contains every word of `query`, case-insensitively, newest thread first.
   */
  search(folder: string, query: string, limit = 50): ThreadSearchMatch[] {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean).slice(0, SEARCH_WORDS);
    if (words.length === 0) return [];
    const statement = this.searchStatement(words.length, !/["\\]/.test(words[0]!));
    const params: Record<string, string | number> = { folder, limit };
    words.forEach((w, i) => (params[`w${i}`] = `%${w.replace(/[\\%_]/g, (c) => `\\${c}`)}%`));
    const rows = statement.all(params) as Array<{ thread_id: string; content: string | null }>;
    return rows.map((row) => ({ threadId: row.thread_id, snippet: snippetOf(row.content ?? '', words) }));
  }

  private readonly searchStatements = new Map<string, Database.Statement>();

  private searchStatement(words: number, rawCheck: boolean): Database.Statement {
    let statement = this.searchStatements.get(`${words}:${rawCheck}`);
    if (!statement) {
      // What a person sees of a message: its text, or the text of its parts — never the data
      // (base64) of an attached image or file, which would match nearly any short word.
      const visible = `CASE json_type(m.message_json, '$.content')
          WHEN 'text' THEN json_extract(m.message_json, '$.content')
          ELSE (SELECT group_concat(json_extract(p.value, '$.text'), char(10)) FROM json_each(m.message_json, '$.content') AS p WHERE json_extract(p.value, '$.type') = 'text')
        END`;
      // The raw text is checked first (cheap, and every match contains the word there too, unless
      // JSON escaped it), then the message's visible text.
      const terms = Array.from({ length: words }, (_, i) => `v.text LIKE @w${i} ESCAPE '\\'`).join(' AND ');
      const raw = rawCheck ? "m.message_json LIKE @w0 ESCAPE '\\' AND" : '';
      // One row a thread: its first matching message (SQLite takes the bare column from the MIN row).
      statement = this.db.prepare(
        `SELECT v.thread_id AS thread_id, MIN(v.seq) AS seq, v.text AS content
         FROM (
           SELECT m.thread_id AS thread_id, m.seq AS seq, t.updated_at AS updated_at, ${visible} AS text
           FROM thread_messages m JOIN threads t ON t.id = m.thread_id
           WHERE t.folder = @folder AND ${raw}
             json_extract(m.message_json, '$.role') IN ('user', 'assistant')
             AND json_extract(m.message_json, '$.note') IS NULL
         ) v
         WHERE ${terms}
         GROUP BY v.thread_id
         ORDER BY MAX(v.updated_at) DESC, v.thread_id
         LIMIT @limit`,
      );
      this.searchStatements.set(`${words}:${rawCheck}`, statement);
    }
    return statement;
  }

  exists(id: string): boolean {
    return this.stmts.get.get(id) !== undefined;
  }

  /** Loads a thread; a corrupt message row is skipped with a note rather than losing the thread. */
  load(id: string): ThreadState {
    const row = this.stmts.get.get(id);
    if (row === undefined) throw new ThreadNotFoundError(`thread '${id}' not found`);
    const state = rowState(row);
    this.readFiles(id, state);
    const rows = this.stmts.messages.all(id);
    for (const r of rows) {
      const message = storedMessage(r.message_json);
      if (message !== undefined) state.messages.push(message);
    }
    state.contextStart = Math.min(state.contextStart, state.messages.length);
    this.saved.set(id, rows.length === state.messages.length ? state.messages.slice() : []);
    return state;
  }

  /**
   * The thread with only the `span` messages before `before` read (its end by default): the
   * state's `messages` has the thread's length, empty outside [from, before), for pages
   * (thread-page.ts) of a long thread that is not loaded. Undefined when that cannot be
   * exact, and load() is needed: a row that does not parse, or a thread saved before
   * person_count was kept.
   */
  range(id: string, before: number | undefined, span: number): { state: ThreadState; from: number; personCount: number } | undefined {
    const row = this.stmts.get.get(id);
    if (row === undefined || row.person_count === null) return undefined;
    const end = Math.min(before ?? row.message_count, row.message_count);
    const start = Math.max(0, end - span);
    const state = rowState(row);
    this.readFiles(id, state);
    state.messages = new Array<ChatMessage>(row.message_count);
    const rows = this.stmts.messageRange.all(id, start, end);
    if (rows.length !== end - start) return undefined;
    for (const r of rows) {
      const message = storedMessage(r.message_json);
      if (message === undefined || r.seq < start || r.seq >= end) return undefined;
      state.messages[r.seq] = message;
    }
    state.contextStart = Math.min(state.contextStart, row.message_count);
    return { state, from: start, personCount: row.person_count };
  }

  /** Creates the thread if needed and appends new messages, in one transaction. */
  save(state: ThreadState, meta: { folder?: string; title?: string } = {}): void {
    const now = new Date().toISOString();
    const { messages, id, files, ...rest } = state;
    this.db.transaction(() => {
      const persons = messages.reduce((n, m) => (isPersonMessage(m) ? n + 1 : n), 0);
      this.stmts.insertThread.run({ id, title: meta.title ?? '', folder: meta.folder ?? '', now, count: messages.length, persons, state: JSON.stringify(rest), goal: rest.goal?.state ?? null });
      this.writeFiles(id, files);
      const from = firstUnsaved(this.saved.get(id) ?? [], messages);
      if (from === 0) this.stmts.deleteMessages.run(id);
      else this.stmts.deleteMessagesFrom.run(id, from);
      for (let i = from; i < messages.length; i++) {
        const message = messages[i]!;
        this.stmts.insertMessage.run(id, i, JSON.stringify(message));
        // A note is delivered once it is in the saved history.
        if (isNote(message)) this.stmts.deleteNote.run(message.note.id);
      }
      if (meta.title === undefined) {
        const firstUser = messages.find(isPersonMessage);
        if (firstUser) this.stmts.setTitleIfEmpty.run(titleFromMessage(firstUser), id);
      }
    })();
    this.saved.set(id, messages.slice());
  }

  /**
   * The thread as `load` reads it but without its messages (nor its files): each message row's
   * stored JSON text is handed to `each`, in order, none kept here (an answer made from every
   * message of a long thread). The rows are those load() reads; `storedMessage` parses a text
   * as load() does, and a text it refuses (a corrupt row) is no message of the thread.
   * Undefined when there is no such thread.
   */
  readEachText(id: string, each: (json: string) => void): ThreadState | undefined {
    const row = this.stmts.get.get(id);
    if (row === undefined) return undefined;
    const state = rowState(row);
    // A page of rows at a time: each page's text is let go before the next is read (a
    // statement's iterator costs more per row; all the rows at once are held, and collected, old).
    for (let from = 0; ; ) {
      const rows = this.stmts.messagesFrom.all(id, from, READ_PAGE);
      for (const r of rows) each(r.message_json);
      if (rows.length < READ_PAGE) break;
      from = rows[rows.length - 1]!.seq + 1;
    }
    return state;
  }

  /** Drops what is kept of a thread between saves (it was unloaded); the next load reads it again. */
  forget(id: string): void {
    this.saved.delete(id);
    this.savedFiles.delete(id);
  }

  /** Puts the thread's file rows into its state (over any a pre-threads-004 row still holds). */
  private readFiles(id: string, state: ThreadState): void {
    const versions = new Map<string, number>();
    for (const row of this.stmts.files.all(id)) {
      const file = safeJson(row.file_json);
      if (!FILE_MOUNTS.includes(row.mount as MountName) || file === undefined || typeof file !== 'object') continue;
      const mount = row.mount as MountName;
      state.files[mount] ??= { files: {} };
      state.files[mount].files[row.path] = file as StateFile;
      versions.set(`${mount}\0${row.path}`, row.version);
    }
    this.savedFiles.set(id, versions);
  }

  /** Writes the files whose version changed since they were last read or written, and deletes the ones gone. */
  private writeFiles(id: string, files: ThreadFileMounts): void {
    let known = this.savedFiles.get(id);
    if (known === undefined) {
      // Nothing known of this thread's rows (a new thread, or saved without a load): start clean.
      this.stmts.deleteFiles.run(id);
      known = new Map();
    }
    const present = new Set<string>();
    for (const mount of FILE_MOUNTS) {
      for (const [path, file] of Object.entries(files[mount]?.files ?? {})) {
        const key = `${mount}\0${path}`;
        present.add(key);
        if (known.get(key) === file.version) continue;
        this.stmts.putFile.run(id, mount, path, file.version, JSON.stringify(file));
        known.set(key, file.version);
      }
    }
    for (const key of [...known.keys()]) {
      if (present.has(key)) continue;
      const [mount, path] = key.split('\0') as [string, string];
      this.stmts.deleteFile.run(id, mount, path);
      known.delete(key);
    }
    this.savedFiles.set(id, known);
  }

  list(): ThreadSummary[] {
    return this.stmts.list.all().map(toSummary);
  }

  /** Up to `limit` ids that begin with `prefix`, in order. */
  idsStartingWith(prefix: string, limit: number): string[] {
    const ids: string[] = [];
    for (const { id } of this.stmts.idsFrom.all(prefix, limit)) {
      if (!id.startsWith(prefix)) break;
      ids.push(id);
    }
    return ids;
  }

  get(id: string): ThreadSummary | undefined {
    const row = this.stmts.get.get(id);
    return row ? toSummary(row) : undefined;
  }

  /** The threads whose folder is `folder` or lies inside it. */
  threadsIn(folder: string): Array<{ id: string; folder: string }> {
    return this.stmts.inFolder.all({ folder });
  }

  /** The thread of exactly `folder` that was saved last. */
  latestIn(folder: string): string | undefined {
    return this.stmts.latest.get(folder)?.id;
  }

  /**
   * Moves a thread whose worktree is being removed to the folder it was made from: it is
   * listed and searched there from now on, marked with the worktree it worked in.
   */
  moveFromWorktree(id: string, folder: string, worktree: RemovedWorktree): void {
    this.stmts.move.run(folder, JSON.stringify(worktree), id);
  }

  /** Records where the thread came from (the first source stays: a window continuing it later does not change it). False when it has one, or no row yet. */
  setSource(id: string, source: ThreadSource): boolean {
    return this.stmts.setSource.run(JSON.stringify(source), id).changes > 0;
  }

  /** Titles a thread that has no title yet (its first message's, from what the person typed). */
  titleIfUntitled(id: string, title: string): void {
    if (title !== '') this.stmts.setTitleIfEmpty.run(title, id);
  }

  rename(id: string, title: string): void {
    const result = this.stmts.rename.run(title, new Date().toISOString(), id);
    if (result.changes === 0) throw new ThreadNotFoundError(`thread '${id}' not found`);
  }

  delete(id: string): boolean {
    this.saved.delete(id);
    this.savedFiles.delete(id);
    return this.db.transaction(() => {
      this.stmts.deleteMessages.run(id);
      this.stmts.deleteFiles.run(id);
      this.stmts.deleteNotes.run(id);
      this.stmts.deleteRewinds.run(id);
      this.stmts.deleteReviewed.run(id);
      return this.stmts.delete.run(id).changes > 0;
    })();
  }

  /** The ids of the hunks of the thread's changes the person marked Reviewed. */
  reviewedHunks(threadId: string): Set<string> {
    return new Set(this.stmts.reviewed.all(threadId));
  }

  /** Marks a hunk of the thread's changes Reviewed, or not (the thread must exist). */
  markReviewed(threadId: string, hunkId: string, reviewed: boolean): void {
    (reviewed ? this.stmts.markReviewed : this.stmts.unmarkReviewed).run(threadId, hunkId);
  }

  /** Review was turned back on (SPEC §23): the folder's threads whose reviewer's breaker tripped start afresh. */
  resetTrippedBreakers(folder: string): void {
    this.stmts.resetBreakers.run(folder);
  }

  /** Keeps a note for the thread's next model request (the thread must exist). */
  addNote(threadId: string, note: Omit<PendingNote, 'id' | 'createdAt'>): PendingNote {
    const full: PendingNote = { ...note, id: randomUUID(), createdAt: new Date().toISOString() };
    this.stmts.addNote.run(full.id, threadId, full.createdAt, JSON.stringify(full));
    return full;
  }

  /** The thread's notes not yet saved into its history, oldest first. */
  pendingNotes(threadId: string): PendingNote[] {
    return this.stmts.notes.all(threadId).flatMap((r) => {
      const note = safeJson(r.note_json) as PendingNote | undefined;
      return note && typeof note.id === 'string' && typeof note.text === 'string' ? [note] : [];
    });
  }

  /** Saves a thread whose conversation was just rewound, with the record of the rewind, in one transaction. */
  saveRewound(state: ThreadState, meta: { folder?: string }, rewind: Omit<RewindRecord, 'id' | 'createdAt'>): void {
    this.db.transaction(() => {
      this.save(state, meta);
      this.stmts.addRewind.run({
        threadId: rewind.threadId,
        index: rewind.index,
        checkpointId: rewind.checkpointId,
        checkpointSeq: rewind.checkpointSeq,
        removed: JSON.stringify(rewind.removed),
        createdAt: new Date().toISOString(),
      });
    })();
  }

  /** Saves a thread whose rewound conversation was put back, forgetting that rewind, in one transaction. */
  savePutBack(state: ThreadState, meta: { folder?: string }, rewindId: number): void {
    this.db.transaction(() => {
      this.save(state, meta);
      this.stmts.deleteRewind.run(rewindId);
    })();
  }

  rewinds(threadId: string): RewindRecord[] {
    return this.stmts.rewinds.all(threadId).map((r) => ({
      id: r.id,
      threadId: r.thread_id,
      index: r.at_index,
      checkpointId: r.checkpoint_id,
      checkpointSeq: r.checkpoint_seq,
      removed: safeJson(r.removed_json),
      createdAt: r.created_at,
    }));
  }
}

interface RowShape {
  id: string;
  title: string;
  folder: string;
  created_at: string;
  updated_at: string;
  message_count: number;
  /** Null for a thread not saved since the column came (threads-003). */
  person_count: number | null;
  state_json: string;
  worktree_json: string | null;
  /** Null for the window's threads (and those from before threads-006). */
  source_json?: string | null;
  /** Its agent's label when it is another one (AGENT_LABEL). */
  agent_label?: unknown;
}

/** The label of a thread's agent when it is another one over ACP (SPEC §22), as a column. */
const AGENT_LABEL = "json_extract(state_json, '$.externalAgent.label') AS agent_label";

/** Message rows read at once by readEachText. */
const READ_PAGE = 2048;

/** The thread row's state, without messages (a row that does not parse gives a new thread's). */
function rowState(row: RowShape): ThreadState {
  const state = newThreadState(row.id);
  const parsed = rowStateSchema.safeParse(safeJson(row.state_json));
  if (parsed.success) {
    const { files, ...rest } = parsed.data;
    Object.assign(state, rest);
    if (files) state.files = files as ThreadFileMounts;
  }
  return state;
}

/** The first index whose message is not the very object saved last time. */
function firstUnsaved(saved: readonly ChatMessage[], messages: readonly ChatMessage[]): number {
  if (saved.length > messages.length) return 0;
  let i = 0;
  while (i < saved.length && saved[i] === messages[i]) i++;
  return i;
}

const removedWorktreeSchema = z.object({ name: z.string(), branch: z.string(), removedAt: z.string() });

function toSummary(row: RowShape): ThreadSummary {
  const summary: ThreadSummary = { id: row.id, title: row.title, folder: row.folder, createdAt: row.created_at, updatedAt: row.updated_at, messageCount: row.message_count };
  const worktree = row.worktree_json === null ? undefined : removedWorktreeSchema.safeParse(safeJson(row.worktree_json));
  if (worktree?.success === true) summary.removedWorktree = worktree.data;
  const source = row.source_json === null || row.source_json === undefined ? undefined : threadSourceSchema.safeParse(safeJson(row.source_json));
  if (source?.success === true) summary.source = { kind: source.data.kind, ...(source.data.client !== undefined ? { client: source.data.client } : {}) };
  if (typeof row.agent_label === 'string' && row.agent_label !== '') summary.agent = row.agent_label;
  return summary;
}

/** A stored message row's text as load() takes it: undefined for a corrupt row (skipped, the thread kept). */
export function storedMessage(json: string): ChatMessage | undefined {
  const message = safeJson(json) as ChatMessage | undefined;
  return message && typeof message === 'object' && 'role' in message ? message : undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** About 100 characters of `text` from a little before the first of `words` (a narrow row shows the match), on one line. */
export function snippetOf(text: string, words: readonly string[]): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const lower = flat.toLowerCase();
  const at = Math.max(0, Math.min(...words.map((w) => lower.indexOf(w)).filter((i) => i >= 0), flat.length));
  // A few words of lead, starting at a word.
  let start = Math.max(0, at - 16);
  const space = flat.indexOf(' ', start);
  if (start > 0 && space >= 0 && space < at) start = space + 1;
  const end = Math.min(flat.length, start + 100);
  return `${start > 0 ? '…' : ''}${flat.slice(start, end)}${end < flat.length ? '…' : ''}`;
}
