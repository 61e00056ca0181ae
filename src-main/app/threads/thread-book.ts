// The thread book (issue 60): a folder's threads over the thread store — the list, search,
// the pages a window is sent (bounded, from the rows a page needs when the thread is not
// loaded), rename, rewinds, notes, the queue a thread keeps — and the threads loaded while
// they run or are shown, saved after every step. Only running threads and the last one opened
// stay in memory. Who runs a thread (session/run-queue.ts) and how its mounts are made
// (session/run-assembly.ts) are told to it, not known by it.

import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { unresolvedToolCalls } from '../../core/agent/dangling';
import { appendNotes, isPersonMessage, type PendingNote } from '../../core/agent/notes';
import { TextCoalescer } from './text-coalescer';
import { newThreadState, type AgentEvent, type QueuedMessage, type ThreadState } from '../../core/agent/types';
import { threadFilesSnapshot, HISTORY_PREFIX, LARGE_RESULTS_PREFIX, type Mounts } from '../../core/backends/mounts/mounts';
import { mediaTypeOf } from '../../core/media/kinds';
import { ReadGuard } from '../../core/tools/read-guard';
import { ContractError, type Result } from '../contract';
import { displayItems } from './display-items';
import { safeAttachmentName } from './message-attachments';
import { fullToolCall, itemsBefore, latestPage, latestPageOfRange, type EarlierItems, type ItemsPage } from './thread-page';
import { cutConversation, isRewoundPart, putBackConversation } from './rewind';
import { ThreadStore, type ThreadSearchMatch, type ThreadSummary } from './thread-store';

/** What the book tells: a thread's event (numbered per thread), or that the list of threads changed. */
export type ThreadBookEvent = { kind: 'thread-event'; threadId: string; seq: number; event: AgentEvent } | { kind: 'threads-changed' };

export interface ThreadBookOptions {
  db: Database.Database;
  folder: string;
  emit: (event: ThreadBookEvent) => void;
  /** A loaded thread's mount table (the run assembly's). */
  mountsFor: (state: ThreadState) => Mounts;
  /** Whether a run of the thread goes now: it stays loaded, and what is loaded is the truth. */
  isRunning: (threadId: string) => boolean;
  /** Text deltas joined over this many milliseconds (a window's stream: text-coalescer.ts); none: each sent as it comes. */
  coalesceTextMs?: number;
}

/** A thread loaded in memory: running, or the last one opened. */
export interface LoadedThread {
  state: ThreadState;
  mounts: Mounts;
  guard: ReadGuard;
  /** Top-level text streamed since the last saved message. */
  streamingText: string;
}

/** A page of a thread as a window opens it, with what it was cut from. */
export interface ThreadPage {
  state: ThreadState;
  streamingText: string;
  page: ItemsPage;
}

/** Threads kept loaded while idle besides the running ones (the last opened, e.g. the one a window shows). */
const IDLE_THREADS_KEPT = 1;

/** Messages read at first for a page of a thread not loaded (more when the page needs them). */
const PAGE_READ = 400;
/** Messages read for one tool call of a thread not loaded: its own and its results. */
const CALL_READ = 64;

export class ThreadBook {
  readonly store: ThreadStore;
  /** Loaded threads, least recently opened first. */
  private readonly live = new Map<string, LoadedThread>();
  /** Counts each thread's events (see the contract's thread.event `seq`); kept when the thread is unloaded. */
  private readonly eventSeqs = new Map<string, number>();
  private readonly coalescer: TextCoalescer | undefined;

  constructor(private readonly options: ThreadBookOptions) {
    this.store = new ThreadStore(options.db);
    this.coalescer = options.coalesceTextMs !== undefined ? new TextCoalescer(options.coalesceTextMs, (threadId, event) => this.sendEvent(threadId, event)) : undefined;
  }

  /** This folder's threads, as the store has them. */
  list(): ThreadSummary[] {
    return this.store.list().filter((t) => t.folder === this.options.folder);
  }

  /** This folder's threads whose messages contain every word of `query` (the window adds title matches). */
  search(query: string): ThreadSearchMatch[] {
    return this.store.search(this.options.folder, query);
  }

  /** A new empty thread of the folder: its id. */
  create(title?: string): string {
    const state = newThreadState(randomUUID());
    this.store.save(state, { folder: this.options.folder, ...(title ? { title } : {}) });
    this.options.emit({ kind: 'threads-changed' });
    return state.id;
  }

  /** The thread's row; not_found when there is none. */
  row(threadId: string): ThreadSummary {
    const t = this.store.get(threadId);
    if (!t) throw new ContractError(`thread '${threadId}' not found`, 'not_found');
    return t;
  }

  /** Throws not_found unless the thread is one of this folder's. */
  require(threadId: string): void {
    const thread = this.store.get(threadId);
    if (!thread || thread.folder !== this.options.folder) throw new ContractError(`thread '${threadId}' not found`, 'not_found');
  }

  /** The thread as a window opens it: its recent items (earlier has the rest), from what it was cut from. */
  latest(threadId: string): ThreadPage {
    // A thread not loaded, with no notes to deliver, is shown from the rows its page needs.
    const stored = this.store.pendingNotes(threadId).length === 0 ? this.storedPage(threadId) : undefined;
    if (stored !== undefined) {
      // The thread shown now is not loaded: no idle one needs to be.
      this.unloadIdle(0);
      return { state: stored.state, streamingText: '', page: stored.page };
    }
    const live = this.open(threadId);
    // Notes left by another process (a `deepdesk checkpoints restore`) show up when the thread does.
    if (!this.options.isRunning(threadId)) this.deliverNotes(threadId);
    const page = latestPage(live.state);
    this.unloadIdle();
    return { state: live.state, streamingText: live.streamingText, page };
  }

  /** The items before `cursor` (from a page threads.get or this gave). */
  earlier(threadId: string, cursor: number): EarlierItems {
    this.require(threadId);
    return this.fromStoredRows(threadId, cursor, (read) => itemsBefore(read.state, cursor, read.from)) ?? itemsBefore(this.open(threadId).state, cursor)!;
  }

  /** One tool call uncut, as a page would show it if it cut nothing. */
  toolCall(threadId: string, index: number, toolCallId: string, parentToolCallId?: string): Result<'threads.toolCall'> {
    this.require(threadId);
    const call = fullToolCall(this.storedCall(threadId, index) ?? this.open(threadId).state, index, toolCallId, parentToolCallId);
    if (call === undefined) throw new ContractError('that tool call is no longer in this thread', 'not_found');
    return call;
  }

  /** The person's messages (not notes), oldest first, with their index in the history. */
  userMessages(threadId: string): Array<{ index: number; text: string }> {
    return displayItems(this.open(threadId).state).flatMap((item) => (item.kind === 'user' ? [{ index: item.index, text: item.text }] : []));
  }

  rename(threadId: string, title: string): void {
    this.require(threadId);
    this.store.rename(threadId, title);
    this.options.emit({ kind: 'threads-changed' });
  }

  /** Forgets what is kept in memory of a thread being deleted. */
  forget(threadId: string): void {
    this.live.delete(threadId);
    this.coalescer?.forget(threadId);
    this.eventSeqs.delete(threadId);
  }

  /**
   * The thread was changed by another run assembly (a `deepdesk run` in the agent host): a
   * copy loaded here is dropped, so the next look reads what was saved (never overwrites it).
   */
  changedElsewhere(threadId: string): void {
    if (this.options.isRunning(threadId) || !this.live.has(threadId)) return;
    this.live.delete(threadId);
    this.store.forget(threadId);
  }

  /** The bytes of an attachment of the person's message at `index`: sent as content, or saved to /attachments/. */
  async attachment(threadId: string, index: number, name: string): Promise<{ mimeType: string; data: string }> {
    this.require(threadId);
    const live = this.open(threadId);
    const message = live.state.messages[index];
    if (message?.role === 'user' && typeof message.content !== 'string') {
      const part = message.content.find((p) => p.type !== 'text' && p.name === name);
      if (part !== undefined && part.type !== 'text') return { mimeType: part.mimeType, data: part.data };
    }
    const files = live.mounts.threadFiles.attachments;
    const path = `/${safeAttachmentName(name)}`;
    const [file] = await files.downloadFiles([path]);
    if (file?.content === undefined) throw new ContractError(`attachment ${name} is not in this thread`, 'not_found');
    return { mimeType: mediaTypeOf(name)?.mimeType ?? 'application/octet-stream', data: Buffer.from(file.content).toString('base64') };
  }

  /** Text of a thread file (/large_tool_results/…, /conversation_history/…). */
  async readThreadFile(threadId: string, path: string): Promise<string> {
    if (!path.startsWith(LARGE_RESULTS_PREFIX) && !path.startsWith(HISTORY_PREFIX)) {
      throw new ContractError('only /large_tool_results/ and /conversation_history/ files belong to a thread');
    }
    const live = this.open(threadId);
    const raw = await live.mounts.backend.readRaw(path);
    if (raw.error !== undefined) throw new ContractError(raw.error, 'not_found');
    return Buffer.from(raw.data ?? new Uint8Array()).toString('utf8');
  }

  /**
   * Keeps a note for the thread's next model request (e.g. that the person restored files).
   * An idle thread gets it in its history now, so the window shows it; a running one before
   * its next model call.
   */
  tell(threadId: string, note: Omit<PendingNote, 'id' | 'createdAt'>): void {
    this.require(threadId);
    this.store.addNote(threadId, note);
    if (!this.options.isRunning(threadId)) this.deliverNotes(threadId);
  }

  /** Review was turned back on for the folder (SPEC §23): its threads' tripped breakers are reset, loaded and stored. */
  resetReviewBreakers(): void {
    for (const live of this.live.values()) if (live.state.reviewBreaker?.tripped !== undefined) delete live.state.reviewBreaker;
    this.store.resetTrippedBreakers(this.options.folder);
  }

  /**
   * Cuts the conversation to before the person's message at `index` and saves it, with what
   * went (for Undo restore); `rewound` tells of it. The thread must be idle.
   */
  rewind(threadId: string, index: number, record: { checkpointId: string | null; checkpointSeq: number }): void {
    const live = this.open(threadId);
    const message = live.state.messages[index];
    if (message === undefined || !isPersonMessage(message)) throw new ContractError('that message is no longer in this thread', 'not_found');
    const part = cutConversation(live.state, index);
    live.streamingText = '';
    live.state.files = threadFilesSnapshot(live.mounts.threadFiles);
    live.state.guard = live.guard.toJSON();
    this.store.saveRewound(live.state, { folder: this.options.folder }, { threadId, index, checkpointId: record.checkpointId, checkpointSeq: record.checkpointSeq, removed: part });
  }

  /** Tells the window the thread's conversation was rewound or put back. */
  rewound(threadId: string): void {
    this.emitEvent(threadId, { type: 'rewound', threadId });
    this.options.emit({ kind: 'threads-changed' });
  }

  /**
   * After Undo restore of the restore that went with a rewind: puts the conversation back
   * when nothing but notes came since. 'none': that restore rewound nothing.
   */
  putBack(threadId: string, checkpointId: string): 'put-back' | 'continued' | 'none' {
    const record = this.store.rewinds(threadId).find((r) => r.checkpointId === checkpointId);
    if (record === undefined || !isRewoundPart(record.removed)) return 'none';
    if (this.options.isRunning(threadId)) return 'continued';
    const live = this.open(threadId);
    if (!putBackConversation(live.state, record.removed)) return 'continued';
    this.store.savePutBack(live.state, { folder: this.options.folder }, record.id);
    this.rewound(threadId);
    return 'put-back';
  }

  /** The thread's rewinds still in force, oldest first. */
  rewinds(threadId: string): Array<{ index: number; checkpointSeq: number }> {
    return this.store.rewinds(threadId).map((r) => ({ index: r.index, checkpointSeq: r.checkpointSeq }));
  }

  /** The thread's queued messages. */
  queued(threadId: string): QueuedMessage[] {
    return this.open(threadId).state.queued ?? [];
  }

  /** Replaces the thread's queue, saves it (a restart keeps it) and tells the window. */
  setQueue(threadId: string, queued: QueuedMessage[]): void {
    const live = this.open(threadId);
    live.state.queued = queued;
    this.store.save(live.state, { folder: this.options.folder });
    this.emitEvent(threadId, { type: 'queued', threadId, queued });
  }

  /** Puts the thread's waiting notes into its history (it must be idle) and tells the window. */
  deliverNotes(threadId: string): void {
    const live = this.open(threadId);
    // Calls still waiting for their results (an approval pending since a restart) keep them
    // next to the calls: the run that resumes them delivers the notes after.
    if (unresolvedToolCalls(live.state.messages).length > 0) return;
    const fresh = appendNotes(live.state.messages, this.store.pendingNotes(threadId));
    if (fresh.length === 0) return;
    this.persist(live, live.state);
    for (const note of fresh) {
      this.emitEvent(threadId, { type: 'note', threadId, id: note.id, kind: note.kind, text: note.display, ...(note.checkpointId !== undefined ? { checkpointId: note.checkpointId } : {}) });
    }
  }

  /** Tells the window one event of the thread, numbered as it is sent. */
  emitEvent(threadId: string, event: AgentEvent): void {
    if (this.coalescer) this.coalescer.push(threadId, event);
    else this.sendEvent(threadId, event);
  }

  private sendEvent(threadId: string, event: AgentEvent): void {
    const seq = (this.eventSeqs.get(threadId) ?? 0) + 1;
    this.eventSeqs.set(threadId, seq);
    this.options.emit({ kind: 'thread-event', threadId, seq, event });
  }

  /**
   * The number of the thread's latest event. Text held to be joined is sent first: a snapshot
   * has it (in its streamed text), so its number must be at most the one the snapshot gives.
   */
  eventSeq(threadId: string): number {
    this.coalescer?.flush(threadId);
    return this.eventSeqs.get(threadId) ?? 0;
  }

  /** Saves the thread's files now (the rest of the thread as it was last saved). */
  persistFiles(live: LoadedThread): void {
    live.state.files = threadFilesSnapshot(live.mounts.threadFiles);
    this.store.save(live.state, { folder: this.options.folder });
  }

  /** Saves the thread after a step of its run. */
  persist(live: LoadedThread, state: ThreadState): void {
    // Whatever streamed is now part of a saved message.
    live.streamingText = '';
    state.files = threadFilesSnapshot(live.mounts.threadFiles);
    state.guard = live.guard.toJSON();
    this.store.save(state, { folder: this.options.folder });
  }

  /** The thread loaded (loading it when it is not); not_found when there is no such thread. */
  open(threadId: string): LoadedThread {
    const cached = this.live.get(threadId);
    if (cached) {
      // The most recently opened last.
      this.live.delete(threadId);
      this.live.set(threadId, cached);
      return cached;
    }
    if (!this.store.exists(threadId)) throw new ContractError(`thread '${threadId}' not found`, 'not_found');
    const state = this.store.load(threadId);
    const live: LoadedThread = { state, mounts: this.options.mountsFor(state), guard: new ReadGuard(state.guard), streamingText: '' };
    this.live.set(threadId, live);
    return live;
  }

  /** Whether this loaded copy is still the thread's (it was not unloaded and loaded again). */
  isLoaded(threadId: string, live: LoadedThread): boolean {
    return this.live.get(threadId) === live;
  }

  /**
   * Unloads idle threads but the last one opened: SQLite has all of them, and opening one
   * loads it again. Called where nothing holds a loaded thread (a window opening one, a run ending).
   */
  unloadIdle(keep = IDLE_THREADS_KEPT): void {
    for (const threadId of [...this.live.keys()].reverse()) {
      if (this.options.isRunning(threadId)) continue;
      if (keep > 0) {
        keep--;
        continue;
      }
      this.live.delete(threadId);
      this.store.forget(threadId);
    }
  }

  /** Threads loaded now (running ones and the last one opened), for tests. */
  loadedThreads(): string[] {
    return [...this.live.keys()];
  }

  /**
   * What `take` makes of the rows before `before` (its end by default) of a thread that is not
   * loaded, reading more rows until it makes something (a long thread is not read whole to be
   * shown); undefined when the thread is loaded (it is the truth then) or the store cannot say
   * (ThreadStore.range).
   */
  private fromStoredRows<T>(threadId: string, before: number | undefined, take: (read: { state: ThreadState; from: number; personCount: number }) => T | undefined): T | undefined {
    if (this.live.has(threadId) || this.options.isRunning(threadId)) return undefined;
    for (let span = PAGE_READ; ; span *= 4) {
      const read = this.store.range(threadId, before, span);
      if (read === undefined) return undefined;
      const taken = take(read);
      if (taken !== undefined) return taken;
    }
  }

  /** The latest page of a thread that is not loaded, from the rows it needs. */
  private storedPage(threadId: string): { state: ThreadState; page: ItemsPage } | undefined {
    return this.fromStoredRows(threadId, undefined, (read) => {
      const page = latestPageOfRange(read.state, read.from, read.personCount);
      return page !== undefined ? { state: read.state, page } : undefined;
    });
  }

  /** The message at `index` and the rows after it, of a thread not loaded, when they hold all of its results. */
  private storedCall(threadId: string, index: number): ThreadState | undefined {
    if (this.live.has(threadId) || this.options.isRunning(threadId)) return undefined;
    const read = this.store.range(threadId, index + CALL_READ, CALL_READ);
    if (read === undefined) return undefined;
    const { messages } = read.state;
    const last = Math.min(index + CALL_READ, messages.length) - 1;
    // The results may go on past what was read.
    if (last + 1 < messages.length && messages[last]?.role === 'tool') return undefined;
    return read.state;
  }
}
