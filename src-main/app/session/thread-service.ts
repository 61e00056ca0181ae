// A folder's threads and every run of the agent on them, whoever asked for it — the window,
// `deepdesk run` through the agent host, an editor over ACP — as one façade over four parts
// (issue 60), each with its own options:
//   the thread book (threads/thread-book.ts): list, search, pages, rename, rewinds, notes, and
//     the threads loaded while they run or are shown, saved after every step;
//   the run queue (run-queue.ts): starting, queuing and stopping runs, the run slots and records;
//   the run assembly (run-assembly.ts): one run of the agent for a thread, with its RunSettings;
//   the approval broker (approval-broker.ts): who answers a run's approvals, and what waits.
// What needs two of them (a thread's view, deleting, rewinding, previewing a request) is here.

import { goalJson, startGoal as startGoalRecord, type Goal, type GoalDraft } from '../../core/goals/goal';
import { randomUUID } from 'node:crypto';
import type { RequestPreview, RunResult } from '../../core/agent/loop';
import { isNote, type PendingNote } from '../../core/agent/notes';
import { allowOnce } from '../../core/agent/review/allow-once';
import { newThreadState, type ApprovalRequest, type ThreadState, type UsageTotals } from '../../core/agent/types';
import type { CheckpointStore } from '../../core/checkpoints/store';
import type { Backend } from '../../core/backends/protocol';
import type { ChatMessage, ChatModel, ContentPart } from '../../core/models/types';
import type { ApprovalService } from '../approvals/approval-service';
import { approvalPreview, type ApprovalPreview } from '../approvals/approval-preview';
import type { Turn } from '../commands/slash-commands';
import { ContractError, type AttachmentInput, type Result, type ThreadSummaryDto, type ThreadView } from '../contract';
import { deleteThread } from '../threads/delete-thread';
import { RunRecords } from '../threads/run-records';
import { ThreadBook, type ThreadBookEvent } from '../threads/thread-book';
import type { EarlierItems, ItemsPage } from '../threads/thread-page';
import type { ThreadSearchMatch, ThreadStore } from '../threads/thread-store';
import { ThreadApprovals } from './approval-broker';
import { RunAssembly, withCost, type RunAssemblyOptions, type RunSettings } from './run-assembly';
import { RunQueue, type RunQueueOptions } from './run-queue';

export type ThreadServiceEvent = ThreadBookEvent | { kind: 'memories-changed' };

/** Every part's options (the run assembly's whole), and what the façade itself uses. */
export interface ThreadServiceOptions extends RunAssemblyOptions, Pick<RunQueueOptions, 'createModel' | 'maxConcurrentRuns'> {
  approvals: ApprovalService;
  emit: (event: ThreadServiceEvent) => void;
  /** What a thread's latest run used, from the usage ledger. */
  lastRunUsage?: (threadId: string) => UsageTotals | undefined;
  /** Where the folder's checkpoint history is kept: a deleted thread's goes with it (delete-thread.ts). */
  checkpointStore?: CheckpointStore;
  /** Text deltas joined over this many milliseconds before they are emitted (a window's stream). */
  coalesceTextMs?: number;
}

export class ThreadService {
  readonly store: ThreadStore;
  private readonly book: ThreadBook;
  private readonly assembly: RunAssembly;
  private readonly approvals: ThreadApprovals;
  private readonly queue: RunQueue;
  /** `/goal`'s drafts waiting for the person (SPEC §21), by thread: a window that opens the thread shows its card. */
  private readonly goalDrafts = new Map<string, GoalDraft>();

  /** Threads whose upload note was looked at (told, or found there). */
  private readonly uploadNoted = new Set<string>();

  constructor(private readonly options: ThreadServiceOptions) {
    const { db, folder, emit } = options;
    this.assembly = new RunAssembly(options);
    this.book = new ThreadBook({ db, folder, emit, ...(options.coalesceTextMs !== undefined ? { coalesceTextMs: options.coalesceTextMs } : {}), mountsFor: (state) => this.assembly.mountsFor(state), isRunning: (threadId) => this.queue.isRunning(threadId) });
    this.store = this.book.store;
    const records = new RunRecords(db);
    this.approvals = new ThreadApprovals({ approvals: options.approvals, records });
    const { createModel, maxConcurrentRuns } = options;
    this.queue = new RunQueue({ folder, book: this.book, assembly: this.assembly, approvals: this.approvals, records, createModel, maxConcurrentRuns, emit });
  }

  list(): ThreadSummaryDto[] {
    const going = this.queue.anyRunning() ? this.queue.goingInFolder() : 0;
    return this.book.list().map((t) => this.summaryOf(t, going));
  }

  /** A window opened the thread: a finished run of it leaves the Agents view. */
  markSeen(threadId: string): void {
    this.queue.markSeen(threadId);
  }

  /** This folder's threads whose messages contain every word of `query` (the window adds title matches). */
  search(query: string): ThreadSearchMatch[] {
    return this.book.search(query);
  }

  create(title?: string): ThreadSummaryDto {
    const id = this.book.create(title);
    this.noteUpload(id);
    return this.summary(id);
  }

  /**
   * A sandbox thread starts with what went up to its sandbox (and how to change that) as a note:
   * in its history, the window and its export, whichever client made it (a window, `run`, the protocol).
   */
  private noteUpload(threadId: string): void {
    const uploaded = this.options.providerSandbox?.uploadSummary;
    if (uploaded === undefined || this.uploadNoted.has(threadId)) return;
    this.uploadNoted.add(threadId);
    const isUpload = (m: ChatMessage): boolean => isNote(m) && m.note.kind === 'upload';
    if (this.book.latest(threadId).state.messages.some(isUpload) || this.book.store.pendingNotes(threadId).some((n) => n.kind === 'upload')) return;
    this.book.tell(threadId, { kind: 'upload', text: `Note: ${uploaded}`, display: uploaded });
  }

  /** The thread as a window opens it: its recent items (threads.earlier has the rest) and its state. */
  get(threadId: string): ThreadView {
    const { state, streamingText, page } = this.book.latest(threadId);
    return this.view(threadId, state, streamingText, page);
  }

  /** The items before `cursor` (from a page threads.get or this gave). */
  earlier(threadId: string, cursor: number): EarlierItems {
    return this.book.earlier(threadId, cursor);
  }

  /** One tool call uncut, as a page would show it if it cut nothing. */
  toolCall(threadId: string, index: number, toolCallId: string, parentToolCallId?: string): Result<'threads.toolCall'> {
    return this.book.toolCall(threadId, index, toolCallId, parentToolCallId);
  }

  /** The person's messages (not notes), oldest first, with their index in the history. */
  userMessages(threadId: string): Array<{ index: number; text: string }> {
    return this.book.userMessages(threadId);
  }

  rename(threadId: string, title: string): void {
    this.book.rename(threadId, title);
  }

  async delete(threadId: string): Promise<void> {
    this.book.require(threadId);
    await this.queue.stop(threadId);
    this.book.forget(threadId);
    this.queue.forget(threadId);
    this.goalDrafts.delete(threadId);
    deleteThread(threadId, { store: this.store, approvals: this.options.approvals, checkpoints: this.options.checkpointStore });
    this.options.emit({ kind: 'threads-changed' });
  }

  /** The thread was changed by another run assembly (a `deepdesk run` in the agent host): see ThreadBook. */
  changedElsewhere(threadId: string): void {
    this.book.changedElsewhere(threadId);
  }

  /** Whether any thread of the folder is working. */
  anyRunning(): boolean {
    return this.queue.anyRunning();
  }

  /** The settings of the thread's runs from now on (see RunSettings); undefined: the folder's. */
  useRunSettings(threadId: string, settings: RunSettings | undefined): void {
    this.queue.useRunSettings(threadId, settings);
    // A thread whose agent is another one says whose it is from when it is made (the list, its header), not from its first turn.
    const agent = settings?.externalAgent;
    if (agent === undefined || !this.store.exists(threadId)) return;
    const live = this.book.open(threadId);
    if (live.state.externalAgent?.name === agent.name) return;
    live.state.externalAgent = { name: agent.name, label: agent.label };
    this.book.persist(live, live.state);
  }

  /** Runs the agent on `content` and resolves with how the run ended (RunQueue.run). */
  run(threadId: string, content: string | ContentPart[] | null, options?: { compactOnly?: boolean; typed?: string; turn?: Turn; attachments?: readonly AttachmentInput[] }): Promise<RunResult> {
    this.noteUpload(threadId);
    return this.queue.run(threadId, content, options);
  }

  /** Starts a run on a new message, or queues it while one goes (RunQueue.send). */
  send(threadId: string, text: string, attachments?: readonly AttachmentInput[], typed?: string, turn?: Turn): Promise<{ queuedId?: string }> {
    this.noteUpload(threadId);
    return this.queue.send(threadId, text, attachments, typed, turn);
  }

  /** The bytes of an attachment of the person's message at `index`: sent as content, or saved to /attachments/. */
  attachment(threadId: string, index: number, name: string): Promise<{ mimeType: string; data: string }> {
    return this.book.attachment(threadId, index, name);
  }

  /** Withdraws a queued message before it is delivered. */
  cancelQueued(threadId: string, queuedId: string): void {
    this.queue.cancelQueued(threadId, queuedId);
  }

  /** Sends a queued message now, interrupting the current step as Stop does (RunQueue.sendQueuedNow). */
  sendQueuedNow(threadId: string, queuedId: string): Promise<void> {
    return this.queue.sendQueuedNow(threadId, queuedId);
  }

  /** `/compact`: summarizes the thread's history now, as a run of its own (Stop ends it); no answer follows. */
  compact(threadId: string): Promise<void> {
    return this.queue.compact(threadId);
  }

  /** Runs the thread again from its history (after a failed run), without a new message. */
  retry(threadId: string): Promise<void> {
    return this.queue.retry(threadId);
  }

  /** The request the next run would send first with `content` added (SPEC §20), on the thread's history (a new thread's when there is none). */
  async previewRequest(content: string | null, model: ChatModel, threadId?: string): Promise<RequestPreview> {
    let state: ThreadState;
    let backend: Backend;
    if (threadId !== undefined && this.store.exists(threadId)) {
      this.book.require(threadId);
      ({ state, mounts: { backend } } = this.book.open(threadId));
    } else {
      state = newThreadState(threadId ?? randomUUID());
      backend = this.assembly.mountsFor(state).backend;
    }
    const id = state.id;
    return this.assembly.preview(state, backend, content, { threadId: id, model, settings: this.queue.settingsOf(id), turn: () => this.queue.turnOf(id) });
  }

  /** The thread's agent drafts a goal from `objective` and the folder (SPEC §21); nothing starts. */
  async draftGoal(threadId: string, objective: string, model?: ChatModel): Promise<GoalDraft> {
    this.book.require(threadId);
    const { state, mounts } = this.book.open(threadId);
    const settings = this.queue.settingsOf(threadId);
    // Another agent's thread (§22) has a stand-in for a model: its goal is drafted by Deepdesk's own.
    const using = model ?? (settings.externalAgent === undefined ? settings.model : undefined) ?? (await this.options.createModel());
    const draft = await this.assembly.draftGoal(state, mounts.backend, objective, { threadId, model: using, settings, turn: () => this.queue.turnOf(threadId) });
    this.goalDrafts.set(threadId, draft);
    return draft;
  }

  /** The person put the draft aside: no card for it any more. */
  dismissGoalDraft(threadId: string): void {
    this.book.require(threadId);
    this.goalDrafts.delete(threadId);
  }

  /** Starts the accepted goal on the thread (SPEC §21): the folder's tree now is its base. */
  async startGoal(threadId: string, draft: GoalDraft): Promise<Goal> {
    const current = this.goal(threadId);
    if (current?.state === 'pursuing') throw new ContractError('this thread already pursues a goal', 'bad_request');
    const base = await this.options.goalFolder?.tree().catch(() => undefined);
    const maxRounds = this.options.goalMaxRounds?.();
    const goal = startGoalRecord(draft, { ...(base !== undefined ? { base } : {}), ...(maxRounds !== undefined ? { maxRounds } : {}) });
    this.goalDrafts.delete(threadId);
    this.setGoal(threadId, goal);
    return goal;
  }

  /** Starts (or replaces) the thread's goal, saved with it; the goal's event is told to its clients. */
  setGoal(threadId: string, goal: Goal): void {
    this.book.require(threadId);
    const live = this.book.open(threadId);
    live.state.goal = goal;
    this.book.persist(live, live.state);
    this.book.emitEvent(threadId, { type: 'goal', threadId, goal: goalJson(goal) });
  }

  /** The thread's goal, as loaded. */
  goal(threadId: string): Goal | undefined {
    this.book.require(threadId);
    return this.book.open(threadId).state.goal;
  }

  /** The diff an approval of the thread's edit or write shows, read through the thread's own backend. */
  previewApproval(request: ApprovalRequest): Promise<ApprovalPreview | undefined> {
    return approvalPreview(request, this.book.open(request.threadId).mounts.backend);
  }

  /** `by`: who stopped it, when not the person here ("node over the Agent Protocol"): the thread says so. */
  stop(threadId: string, by?: string): Promise<void> {
    return this.queue.stop(threadId, by);
  }

  /** Resumes every run of this folder that was waiting for an approval when the app stopped. */
  resumePending(): Promise<void> {
    return this.queue.resumePending();
  }

  /** Text of a thread file (/large_tool_results/…, /conversation_history/…). */
  readThreadFile(threadId: string, path: string): Promise<string> {
    return this.book.readThreadFile(threadId, path);
  }

  /** Allows a call the reviewer denied once (SPEC §23), by the person's explicit act; the agent is told. */
  allowOnce(threadId: string, callId: string): void {
    const live = this.book.open(threadId);
    const call = allowOnce(live.state, callId);
    if (call === null) throw new ContractError('only a call the reviewer denied can be allowed once', 'bad_request');
    this.book.persistFiles(live);
    const text = `Note: the person allowed your ${call.name} call ${callId} once, after the reviewer denied it. Make that exact call again (the same arguments) if it is still needed; any other call is reviewed as before.`;
    this.book.tell(threadId, { kind: 'reviewer', text, display: `You allowed the denied ${call.name} call once.` });
  }

  /** Review was turned back on for the folder in Settings (SPEC §23): breakers that tripped are reset. */
  reviewTurnedOn(): void {
    this.book.resetReviewBreakers();
  }

  /** Keeps a note for the thread's next model request (ThreadBook.tell). */
  tell(threadId: string, note: Omit<PendingNote, 'id' | 'createdAt'>): void {
    this.book.tell(threadId, note);
  }

  /** Why the thread's conversation cannot be rewound now, or null. */
  rewindBlocker(threadId: string): string | null {
    this.book.require(threadId);
    if (this.queue.isRunning(threadId)) return 'This thread is working: stop it (or wait until it finishes) before restoring its conversation.';
    return null;
  }

  /** Rewinds the conversation to before the person's message at `index` (ThreadBook.rewind); refused while the thread runs. */
  rewind(threadId: string, index: number, record: { checkpointId: string | null; checkpointSeq: number }): void {
    const blocker = this.rewindBlocker(threadId);
    if (blocker !== null) throw new ContractError(blocker, 'failed');
    this.book.rewind(threadId, index, record);
    this.approvals.rewound(threadId);
    this.book.rewound(threadId);
  }

  /** After Undo restore of the restore that went with a rewind: puts the conversation back (ThreadBook.putBack). */
  putBack(threadId: string, checkpointId: string): 'put-back' | 'continued' | 'none' {
    return this.book.putBack(threadId, checkpointId);
  }

  /** The thread's rewinds still in force, oldest first. */
  rewinds(threadId: string): Array<{ index: number; checkpointSeq: number }> {
    return this.book.rewinds(threadId);
  }

  /** Ends every run as a shutdown: pending approvals stay and resume on the next start. */
  dispose(): Promise<void> {
    return this.queue.dispose();
  }

  /** Threads loaded now (running ones and the last one opened), for tests. */
  loadedThreads(): string[] {
    return this.book.loadedThreads();
  }

  private view(threadId: string, state: ThreadState, streamingText: string, { items, page }: ItemsPage): ThreadView {
    const lastRun = this.options.lastRunUsage?.(threadId);
    return {
      thread: this.summary(threadId),
      items,
      page,
      todos: state.todos,
      usage: withCost(state.usage, this.options.threadCost?.(threadId)),
      ...(lastRun !== undefined ? { lastRun } : {}),
      contextTokens: state.contextTokens ?? 0,
      contextWindow: this.options.contextWindow?.() ?? 0,
      approvals: this.approvals.pending(threadId),
      eventSeq: this.book.eventSeq(threadId),
      streamingText,
      queued: state.queued ?? [],
      ...(state.goal !== undefined ? { goal: goalJson(state.goal) } : {}),
      ...(this.goalDrafts.has(threadId) ? { goalDraft: this.goalDrafts.get(threadId) } : {}),
    };
  }

  private summary(threadId: string): ThreadSummaryDto {
    return this.summaryOf(this.book.row(threadId), this.queue.isRunning(threadId) ? this.queue.goingInFolder() : 0);
  }

  /** The thread's row with what its runs do: running, approvals waiting, queued for a slot, sharing the folder. */
  private summaryOf<T extends { id: string }>(t: T, goingInFolder: number): T & Pick<ThreadSummaryDto, 'running' | 'pendingApprovals'> {
    const { running, ...status } = this.queue.statusOf(t.id, goingInFolder);
    return { ...t, running, pendingApprovals: this.approvals.pending(t.id).length, ...status };
  }
}
