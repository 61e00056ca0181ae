// The one run assembly (issue 39): a folder's threads and every run of the agent on them,
// whoever asked for it — the window, `deepdesk run` through the agent host, an editor over
// ACP. A thread's mounts, its agent definition, the read guard, persistence after every step,
// its queue and its events are assembled here and nowhere else; what differs between the
// clients (the model flags of a `run`, an editor's permission bridge) is a thread's
// RunSettings. A run waiting for approval resumes after a restart. Only running threads and
// the last one opened stay in memory; a window is sent a thread in bounded pages.

import type { AuditRunOptions } from '../telemetry/run-audit';
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { createAgentDefinition } from '../../core/agent/create-agent';
import type { McpHubApi } from '../../core/extensions/mcp/types';
import type { HooksOptions } from '../../core/agent/middleware/hooks';
import type { SkillListing } from '../../core/agent/middleware/skills-prompt';
import type { Skill } from '../../core/extensions/skills/types';
import { unresolvedToolCalls } from '../../core/agent/dangling';
import { appendNotes, isPersonMessage, type PendingNote } from '../../core/agent/notes';
import { previewRequest, runAgent, type AgentDefinition, type QueuedInput, type RequestPreview, type RunResult } from '../../core/agent/loop';
import type { ApprovalBroker } from '../../core/agent/middleware/approval';
import type { CheckpointRecorder } from '../../core/checkpoints/recorder';
import type { CheckpointStore } from '../../core/checkpoints/store';
import type { SubagentSpec } from '../../core/agent/middleware/subagents';
import type { ApprovalMode } from '../../core/agent/permissions/modes';
import { DEFAULT_RULES, type PermissionRule } from '../../core/agent/permissions/rules';
import type { Turn } from '../commands/slash-commands';
import { isShutdown, newThreadState, SHUTDOWN, type AgentEvent, type ApprovalRequest, type QueuedMessage, type ThreadState, type UsageTotals } from '../../core/agent/types';
import type { MemoryStore } from '../../core/backends/store/memory-store-api';
import type { GitMountRoute, MountRoute } from '../../core/backends/mounts/mount-table';
import { createDefaultMounts, threadFilesFrom, threadFilesSnapshot, HISTORY_PREFIX, LARGE_RESULTS_PREFIX, MEMORIES_PREFIX, type Mounts } from '../../core/backends/mounts/mounts';
import type { Backend } from '../../core/backends/protocol';
import type { MediaInput, ChatModel, ContentPart } from '../../core/models/types';
import { mediaTypeOf } from '../../core/media/kinds';
import { AbortedError } from '../../core/models/errors';
import { ReadGuard } from '../../core/tools/read-guard';
import type { ApprovalService } from '../approvals/approval-service';
import { approvalPreview, type ApprovalPreview } from '../approvals/approval-preview';
import { ContractError, type AttachmentInput, type Result, type ThreadSummaryDto, type ThreadView } from '../contract';
import { deleteThread } from '../threads/delete-thread';
import { displayItems } from '../threads/display-items';
import { safeAttachmentName, withAttachments } from '../threads/message-attachments';
import { fullToolCall, itemsBefore, latestPage, latestPageOfRange, type EarlierItems, type ItemsPage } from '../threads/thread-page';
import { cutConversation, isRewoundPart, putBackConversation } from '../threads/rewind';
import { titleFromTyped } from '../threads/thread-title';
import { ThreadStore, type ThreadSearchMatch } from '../threads/thread-store';
import { RunRecords, type RunState } from '../threads/run-records';
import { defaultMaxConcurrentRuns, processRunSlots, RunSlot, type RunSlots } from './run-slots';

export interface ThreadServiceOptions {
  db: Database.Database;
  folder: string;
  approvals: ApprovalService;
  /** The model for a run, from settings; throws a readable error when none is configured. */
  createModel: () => Promise<ChatModel>;
  rules: () => readonly PermissionRule[];
  subagents: () => SubagentSpec[];
  resolveModel?: (spec: string) => ChatModel | Promise<ChatModel>;
  contextWindow?: () => number | undefined;
  /** What each run is audited with: the usage ledger, traces, the budget (SPEC §17). */
  audit?: (state: ThreadState, maxCostUsd?: number) => AuditRunOptions;
  /** Steps' tool results longer than this go to a file (default: the harness's). */
  evictChars?: number;
  /** What a thread's latest run used, from the usage ledger. */
  lastRunUsage?: (threadId: string) => UsageTotals | undefined;
  /**
   * What a thread has cost, from the usage ledger (calls of a price unknown then and set since
   * included): null when none of its calls has a price, undefined when it has none of its calls.
   */
  threadCost?: (threadId: string) => number | null | undefined;
  /** The backend at `/` for a thread (the window's shows its commands in the thread's terminal). */
  folderBackendFor?: (threadId: string) => Backend;
  /** The folder's approval mode, read on every call. */
  mode?: () => ApprovalMode;
  /** Whether commands run in an OS sandbox. */
  sandboxAvailable?: () => boolean;
  /** The folder is a provider's sandbox (SPEC §18): its name and where the folder is there. */
  providerSandbox?: { label: string; workdir: string; uploadSummary?: string };
  emit: (event: ThreadServiceEvent) => void;
  /** Records checkpoints of the folder's changes (SPEC §8). */
  checkpoints?: CheckpointRecorder;
  /** The folder's MCP servers: their tools join the agent's (SPEC §10). */
  mcp?: McpHubApi;
  /** The skills there are now (SPEC §11): listed for the agent, the person's read-only at /skills/. */
  skills?: { source: () => readonly Skill[]; onListing?: (listing: SkillListing) => void };
  /** The person's hooks and the folder's trusted ones (SPEC §11). */
  hooks?: HooksOptions;
  /** Where the folder's checkpoint history is kept: a deleted thread's goes with it (delete-thread.ts). */
  checkpointStore?: CheckpointStore;
  /** The person's mounts (SPEC §13), read on every call; the git ones also at every step (commit and push). */
  mounts?: { routes: () => readonly MountRoute[]; git: () => readonly GitMountRoute[] };
  /** The store behind /memories/ (default: SQLite on `db`). */
  memories?: MemoryStore;
  /** Settings `maxConcurrentRuns`, read whenever a run asks for a slot (undefined: the machine's default). */
  maxConcurrentRuns?: () => number | undefined;
}

export type ThreadServiceEvent =
  | { kind: 'thread-event'; threadId: string; seq: number; event: AgentEvent }
  | { kind: 'threads-changed' }
  | { kind: 'memories-changed' };

interface ActiveRun {
  controller: AbortController;
  /** Settles when the run has ended and its thread is tidied up (a queued message may have started the next). */
  done: Promise<void>;
  /** How this run ended. */
  result: Promise<RunResult>;
}

/**
 * What a thread's runs use instead of the folder's own: set by the client that drives the
 * thread (`deepdesk run`'s flags, an editor's session) and kept for its queued messages.
 */
export interface RunSettings {
  /** The model (default: the folder's, from Settings). */
  model?: ChatModel;
  /** Who answers approvals (default: the folder's ApprovalService, i.e. the window). */
  broker?: ApprovalBroker;
  /** The approval mode (default: the folder's saved one). */
  mode?: () => ApprovalMode;
  /** The agent: a subagent of the folder's (its prompt, tools), instead of Deepdesk's own; the model is `model`. */
  agent?: SubagentSpec;
  /** `--max-cost`: the budget of each run, in dollars. */
  maxCostUsd?: number;
  contextWindow?: number;
  evictChars?: number;
}

interface LiveThread {
  state: ThreadState;
  mounts: Mounts;
  guard: ReadGuard;
  /** Top-level text streamed since the last saved message. */
  streamingText: string;
}

const WRITING_TOOLS = new Set(['write_file', 'edit_file']);

/** Threads kept loaded while idle besides the running ones (the last opened, e.g. the one a window shows). */
const IDLE_THREADS_KEPT = 1;

/** Messages read at first for a page of a thread not loaded (more when the page needs them). */
const PAGE_READ = 400;
/** Messages read for one tool call of a thread not loaded: its own and its results. */
const CALL_READ = 64;

export class ThreadService {
  readonly store: ThreadStore;
  /** Loaded threads, least recently opened first. */
  private readonly live = new Map<string, LiveThread>();
  private readonly runs = new Map<string, ActiveRun>();
  /** Counts each thread's events (see the contract's thread.event `seq`); kept when the thread is unloaded. */
  private readonly eventSeqs = new Map<string, number>();
  private readonly settings = new Map<string, RunSettings>();
  /** Every run's state, for the Agents view and `deepdesk agents` (run-records.ts). */
  private readonly records: RunRecords;
  /** The process's run slots, shared by every folder's threads. */
  private readonly slots: RunSlots = processRunSlots;
  /** Runs waiting for a slot. */
  private readonly queuedRuns = new Set<string>();
  /** When each going run first had its slot (ISO). */
  private readonly runStarts = new Map<string, string>();
  /** Per running thread, the approvals its run is waiting for (the run `needs-you` while there is one). */
  private readonly asking = new Map<string, Set<string>>();
  /**
   * What the latest message of each thread's run lets run without asking (a command's
   * `allowed-tools`), and the same for messages still queued, by queued id. Kept in memory
   * only: after a restart the turn asks as the rules say.
   */
  private readonly turns = new Map<string, Turn>();
  private readonly queuedTurns = new Map<string, Turn>();

  constructor(private readonly options: ThreadServiceOptions) {
    this.store = new ThreadStore(options.db);
    this.records = new RunRecords(options.db);
  }

  list(): ThreadSummaryDto[] {
    const going = this.runs.size > 0 ? this.goingInFolder() : 0;
    return this.store
      .list()
      .filter((t) => t.folder === this.options.folder)
      .map((t) => this.summaryOf(t, going));
  }

  /** How many runs go in this folder now, this process's and others' (two or more: they share it). */
  private goingInFolder(): number {
    return this.records.goingIn(this.options.folder).length;
  }

  private summaryOf<T extends { id: string }>(
    t: T,
    goingInFolder: number,
  ): T & Pick<ThreadSummaryDto, 'running' | 'pendingApprovals' | 'queued' | 'runSlots' | 'runStartedAt' | 'sharesFolder'> {
    const running = this.runs.has(t.id);
    const startedAt = running ? this.runStarts.get(t.id) : undefined;
    return {
      ...t,
      running,
      pendingApprovals: this.options.approvals.pending(t.id).length,
      ...(this.queuedRuns.has(t.id) ? { queued: true, runSlots: this.slots.usage() } : {}),
      ...(startedAt !== undefined ? { runStartedAt: startedAt } : {}),
      ...(running && goingInFolder > 1 ? { sharesFolder: true } : {}),
    };
  }

  /** A window opened the thread: a finished run of it leaves the Agents view. */
  markSeen(threadId: string): void {
    this.records.seen(threadId);
  }

  /** This folder's threads whose messages contain every word of `query` (the window adds title matches). */
  search(query: string): ThreadSearchMatch[] {
    return this.store.search(this.options.folder, query);
  }

  create(title?: string): ThreadSummaryDto {
    const state = newThreadState(randomUUID());
    this.store.save(state, { folder: this.options.folder, ...(title ? { title } : {}) });
    this.options.emit({ kind: 'threads-changed' });
    return this.summary(state.id);
  }

  /** The thread as a window opens it: its recent items (threads.earlier has the rest) and its state. */
  get(threadId: string): ThreadView {
    // A thread not loaded, with no notes to deliver, is shown from the rows its page needs.
    const stored = this.store.pendingNotes(threadId).length === 0 ? this.storedPage(threadId) : undefined;
    if (stored !== undefined) {
      // The thread shown now is not loaded: no idle one needs to be.
      this.unloadIdle(0);
      return this.view(threadId, stored.state, '', stored.page);
    }
    const live = this.open(threadId);
    // Notes left by another process (a `deepdesk checkpoints restore`) show up when the thread does.
    if (!this.runs.has(threadId)) this.deliverNotes(threadId);
    const page = latestPage(live.state);
    this.unloadIdle();
    return this.view(threadId, live.state, live.streamingText, page);
  }

  /** The items before `cursor` (from a page threads.get or this gave). */
  earlier(threadId: string, cursor: number): EarlierItems {
    this.requireThread(threadId);
    return this.storedItems(threadId, cursor) ?? itemsBefore(this.open(threadId).state, cursor)!;
  }

  /** One tool call uncut, as a page would show it if it cut nothing. */
  toolCall(threadId: string, index: number, toolCallId: string, parentToolCallId?: string): Result<'threads.toolCall'> {
    this.requireThread(threadId);
    const call = fullToolCall(this.storedCall(threadId, index) ?? this.open(threadId).state, index, toolCallId, parentToolCallId);
    if (call === undefined) throw new ContractError('that tool call is no longer in this thread', 'not_found');
    return call;
  }

  /** The person's messages (not notes), oldest first, with their index in the history. */
  userMessages(threadId: string): Array<{ index: number; text: string }> {
    return displayItems(this.open(threadId).state).flatMap((item) => (item.kind === 'user' ? [{ index: item.index, text: item.text }] : []));
  }

  rename(threadId: string, title: string): void {
    this.requireThread(threadId);
    this.store.rename(threadId, title);
    this.options.emit({ kind: 'threads-changed' });
  }

  async delete(threadId: string): Promise<void> {
    this.requireThread(threadId);
    await this.stop(threadId);
    this.live.delete(threadId);
    this.eventSeqs.delete(threadId);
    this.settings.delete(threadId);
    this.turns.delete(threadId);
    deleteThread(threadId, { store: this.store, approvals: this.options.approvals, checkpoints: this.options.checkpointStore });
    this.options.emit({ kind: 'threads-changed' });
  }

  isRunning(threadId: string): boolean {
    return this.runs.has(threadId);
  }

  /**
   * The thread was changed by another run assembly (a `deepdesk run` in the agent host): a
   * copy loaded here is dropped, so the next look reads what was saved (never overwrites it).
   */
  changedElsewhere(threadId: string): void {
    if (this.runs.has(threadId) || !this.live.has(threadId)) return;
    this.live.delete(threadId);
    this.store.forget(threadId);
  }

  /** Whether any thread of the folder is working. */
  anyRunning(): boolean {
    return this.runs.size > 0;
  }

  /** The settings of the thread's runs from now on (see RunSettings); undefined: the folder's. */
  useRunSettings(threadId: string, settings: RunSettings | undefined): void {
    this.requireThread(threadId);
    if (settings === undefined) this.settings.delete(threadId);
    else this.settings.set(threadId, settings);
  }

  /**
   * Runs the agent on `content` (null: on the history as it is, e.g. a run resumed) and
   * resolves with how the run ended. Refused while the thread works: an editor's prompt and a
   * `deepdesk run` wait for their own run, so they never queue.
   */
  async run(
    threadId: string,
    content: string | ContentPart[] | null,
    options: { compactOnly?: boolean; typed?: string; turn?: Turn; attachments?: readonly AttachmentInput[] } = {},
  ): Promise<RunResult> {
    this.requireThread(threadId);
    if (this.runs.has(threadId)) throw new ContractError('this thread is already working; stop it or wait for it to finish', 'failed');
    const model = await this.modelFor(threadId);
    // Files sent with the message go as the window's send takes them: as content when the model takes their type, else saved and named.
    const attachments = options.attachments ?? [];
    if (attachments.length > 0) content = await this.attach(threadId, typeof content === 'string' ? content : '', attachments, model.mediaInput);
    if (this.runs.has(threadId)) throw new ContractError('this thread is already working; stop it or wait for it to finish', 'failed');
    if (options.typed !== undefined) this.store.titleIfUntitled(threadId, titleFromTyped(options.typed, attachments.map((a) => a.name)));
    this.startRun(threadId, model, content, undefined, options.compactOnly === true, options.turn);
    return this.runs.get(threadId)!.result;
  }

  /** The model of the thread's next run: its RunSettings', else the folder's. */
  private async modelFor(threadId: string): Promise<ChatModel> {
    return this.settings.get(threadId)?.model ?? (await this.options.createModel());
  }

  /**
   * Starts a run on a new message; events stream while it works. While a run is going the
   * message is queued instead (its id is returned) and delivered when the current step
   * ends: a thread never has two runs, whatever the timing of the sends. `typed` is what the
   * person typed when `text` is what it became (a command's text, mentioned files attached);
   * `turn` what the command lets run without asking during its turn, and its shell lines.
   */
  async send(threadId: string, text: string, attachments: readonly AttachmentInput[] = [], typed: string = text, turn?: Turn): Promise<{ queuedId?: string }> {
    this.requireThread(threadId);
    if (text.trim() === '' && attachments.length === 0) throw new ContractError('the message is empty', 'bad_request');
    let content: string | ContentPart[] = text;
    let unattached = attachments;
    if (this.runs.has(threadId)) {
      // A queued message is text: its files are saved to the thread's files and named in it.
      content = (await this.attach(threadId, text, unattached, 'save-all')) as string;
      unattached = [];
      if (this.runs.has(threadId)) return { queuedId: this.enqueue(threadId, content, turn) };
    }
    const model = await this.modelFor(threadId);
    if (unattached.length > 0) content = await this.attach(threadId, text, unattached, model.mediaInput);
    // Looked at again after the awaits, and acted on synchronously: another send may have started a run meanwhile.
    // A queued message is text, so files that were to go as content are saved and named instead.
    if (this.runs.has(threadId)) {
      const queued = typeof content === 'string' ? content : ((await this.attach(threadId, text, unattached, 'save-all')) as string);
      if (this.runs.has(threadId)) return { queuedId: this.enqueue(threadId, queued, turn) };
      content = queued;
    }
    // A thread's first message titles it by what the person typed (`typed`: before a command or mention became text for the model).
    this.store.titleIfUntitled(threadId, titleFromTyped(typed, attachments.map((a) => a.name)));
    this.startRun(threadId, model, content, undefined, false, turn);
    return {};
  }

  private async attach(threadId: string, text: string, attachments: readonly AttachmentInput[], mediaInput: MediaInput | undefined | 'save-all'): Promise<string | ContentPart[]> {
    if (attachments.length === 0) return text;
    const live = this.open(threadId);
    const content = await withAttachments(text, attachments, { mediaInput, files: live.mounts.threadFiles.attachments });
    if (live.mounts.threadFiles.attachments.isEmpty()) return content;
    // Saved now: the files outlive a send that fails before the run saves the thread.
    this.persistFiles(live);
    return content;
  }

  /** The bytes of an attachment of the person's message at `index`: sent as content, or saved to /attachments/. */
  async attachment(threadId: string, index: number, name: string): Promise<{ mimeType: string; data: string }> {
    this.requireThread(threadId);
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

  /** Withdraws a queued message before it is delivered. */
  cancelQueued(threadId: string, queuedId: string): void {
    this.requireThread(threadId);
    const live = this.open(threadId);
    if (!(live.state.queued ?? []).some((q) => q.id === queuedId)) throw new ContractError('that message is no longer queued (it was delivered or cancelled)', 'not_found');
    this.setQueue(threadId, (live.state.queued ?? []).filter((q) => q.id !== queuedId));
    this.queuedTurns.delete(queuedId);
  }

  /**
   * Sends a queued message now instead of when the current step ends: the current step is
   * interrupted as Stop does (a streaming answer is cut, running commands are stopped,
   * pending approvals withdrawn) and a run starts on this message at once. Other queued
   * messages stay queued and follow at the next step boundary.
   */
  async sendQueuedNow(threadId: string, queuedId: string): Promise<void> {
    this.requireThread(threadId);
    // Read again after each wait: the thread may have been unloaded and loaded meanwhile.
    const queue = () => this.open(threadId).state.queued ?? [];
    const find = () => queue().find((q) => q.id === queuedId);
    if (find() === undefined) throw new ContractError('that message is no longer queued (it was delivered or cancelled)', 'not_found');
    const model = await this.modelFor(threadId);
    await this.stop(threadId);
    const item = find();
    if (item === undefined) return; // delivered by the step that just ended
    this.setQueue(threadId, queue().filter((q) => q.id !== queuedId));
    if (this.runs.has(threadId)) {
      // Another send started a run meanwhile: this message goes first in the queue.
      this.setQueue(threadId, [item, ...queue()]);
      return;
    }
    this.startRun(threadId, model, item.text, item.id);
  }

  /** `/compact`: summarizes the thread's history now, as a run of its own (Stop ends it); no answer follows. */
  async compact(threadId: string): Promise<void> {
    this.requireThread(threadId);
    if (this.runs.has(threadId)) throw new ContractError('this thread is working; /compact when it has finished (or Stop it)', 'failed');
    const model = await this.modelFor(threadId);
    this.startRun(threadId, model, null, undefined, true);
  }

  /** Runs the thread again from its history (after a failed run), without a new message. */
  async retry(threadId: string): Promise<void> {
    this.requireThread(threadId);
    if (this.runs.has(threadId)) throw new ContractError('this thread is already working; stop it or wait for it to finish', 'failed');
    const model = await this.modelFor(threadId);
    this.startRun(threadId, model, null);
  }

  /** The diff an approval of the thread's edit or write shows, read through the thread's own backend. */
  previewApproval(request: ApprovalRequest): Promise<ApprovalPreview | undefined> {
    return approvalPreview(request, this.open(request.threadId).mounts.backend);
  }

  async stop(threadId: string): Promise<void> {
    const run = this.runs.get(threadId);
    if (!run) return;
    run.controller.abort();
    await run.done;
  }

  /** Resumes every run of this folder that was waiting for an approval when the app stopped. */
  async resumePending(): Promise<void> {
    for (const threadId of this.options.approvals.threadsWithApprovals()) {
      const thread = this.store.get(threadId);
      if (!thread || thread.folder !== this.options.folder || this.runs.has(threadId)) continue;
      try {
        this.startRun(threadId, await this.modelFor(threadId), null);
      } catch {
        // No model configured: the approval stays pending until one is.
      }
    }
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
    this.requireThread(threadId);
    this.store.addNote(threadId, note);
    if (!this.runs.has(threadId)) this.deliverNotes(threadId);
  }

  /** Why the thread's conversation cannot be rewound now, or null. */
  rewindBlocker(threadId: string): string | null {
    this.requireThread(threadId);
    if (this.runs.has(threadId)) return 'This thread is working: stop it (or wait until it finishes) before restoring its conversation.';
    return null;
  }

  /**
   * Rewinds the conversation to before the person's message at `index`: that message and
   * everything after it leave the thread (saved, with what went, so Undo restore can put it
   * back). Refused while the thread runs.
   */
  rewind(threadId: string, index: number, record: { checkpointId: string | null; checkpointSeq: number }): void {
    const blocker = this.rewindBlocker(threadId);
    if (blocker !== null) throw new ContractError(blocker, 'failed');
    const live = this.open(threadId);
    const message = live.state.messages[index];
    if (message === undefined || !isPersonMessage(message)) throw new ContractError('that message is no longer in this thread', 'not_found');
    const part = cutConversation(live.state, index);
    live.streamingText = '';
    live.state.files = threadFilesSnapshot(live.mounts.threadFiles);
    live.state.guard = live.guard.toJSON();
    this.store.saveRewound(live.state, { folder: this.options.folder }, { threadId, index, checkpointId: record.checkpointId, checkpointSeq: record.checkpointSeq, removed: part });
    // Approvals left waiting (no run picks them up) were for calls that are gone now.
    if (this.options.approvals.pending(threadId).length > 0) this.options.approvals.forgetThread(threadId);
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
    if (this.runs.has(threadId)) return 'continued';
    const live = this.open(threadId);
    if (!putBackConversation(live.state, record.removed)) return 'continued';
    this.store.savePutBack(live.state, { folder: this.options.folder }, record.id);
    this.emitEvent(threadId, { type: 'rewound', threadId });
    this.options.emit({ kind: 'threads-changed' });
    return 'put-back';
  }

  /** The thread's rewinds still in force, oldest first. */
  rewinds(threadId: string): Array<{ index: number; checkpointSeq: number }> {
    return this.store.rewinds(threadId).map((r) => ({ index: r.index, checkpointSeq: r.checkpointSeq }));
  }

  /** Ends every run as a shutdown: pending approvals stay and resume on the next start. */
  async dispose(): Promise<void> {
    const runs = [...this.runs.values()];
    for (const run of runs) run.controller.abort(SHUTDOWN);
    await Promise.all(runs.map((run) => run.done));
  }

  private enqueue(threadId: string, text: string, turn: Turn | undefined): string {
    const live = this.open(threadId);
    const item: QueuedMessage = { id: randomUUID(), text, createdAt: new Date().toISOString() };
    if (turn !== undefined) this.queuedTurns.set(item.id, turn);
    this.setQueue(threadId, [...(live.state.queued ?? []), item]);
    return item.id;
  }

  /** Replaces the thread's queue, saves it (a restart keeps it) and tells the window. */
  private setQueue(threadId: string, queued: QueuedMessage[]): void {
    const live = this.open(threadId);
    live.state.queued = queued;
    this.store.save(live.state, { folder: this.options.folder });
    this.emitEvent(threadId, { type: 'queued', threadId, queued });
  }

  /** Takes every queued message, for the run to deliver now. */
  private takeQueued(threadId: string): QueuedInput[] {
    const queued = this.open(threadId).state.queued ?? [];
    if (queued.length === 0) return [];
    this.setQueue(threadId, []);
    // Delivered now: the turn is the last of them, and its rules are the run's from here.
    this.startTurn(threadId, queued.at(-1)!.id);
    for (const { id } of queued) this.queuedTurns.delete(id);
    return queued.map(({ id, text }) => ({ id, text }));
  }

  /** Puts the thread's waiting notes into its history (it must be idle) and tells the window. */
  private deliverNotes(threadId: string): void {
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

  private emitEvent(threadId: string, event: AgentEvent): void {
    const seq = (this.eventSeqs.get(threadId) ?? 0) + 1;
    this.eventSeqs.set(threadId, seq);
    this.options.emit({ kind: 'thread-event', threadId, seq, event });
  }

  /** A new message's turn begins: its rules (a queued one's, by its id) replace the last turn's. */
  private startTurn(threadId: string, queuedId: string | undefined, given?: Turn): void {
    const turn = queuedId !== undefined ? this.queuedTurns.get(queuedId) : given;
    if (queuedId !== undefined) this.queuedTurns.delete(queuedId);
    if (turn === undefined) this.turns.delete(threadId);
    else this.turns.set(threadId, turn);
  }

  /** The agent of a thread's runs: one assembly, for a run and for the preview of its request. */
  private agentDefinition(threadId: string, backend: Backend, model: ChatModel, broker: ApprovalBroker): AgentDefinition {
    const settings = this.settings.get(threadId) ?? {};
    const mode = settings.mode ?? this.options.mode;
    const contextWindow = settings.contextWindow ?? this.options.contextWindow?.();
    const evictChars = settings.evictChars ?? this.options.evictChars;
    return createAgentDefinition({
      model,
      backend,
      // A command's allowed-tools come after every rule of the person's and the folder's (their deny and ask rules win) and before the defaults they relax.
      rules: () => [...this.options.rules(), ...(this.turns.get(threadId)?.allow?.() ?? []), ...DEFAULT_RULES],
      broker,
      ...(mode ? { mode } : {}),
      ...(this.options.sandboxAvailable ? { sandboxAvailable: this.options.sandboxAvailable } : {}),
      ...(this.options.providerSandbox ? { providerSandbox: this.options.providerSandbox } : {}),
      subagents: this.options.subagents(),
      ...(settings.agent !== undefined ? { agent: settings.agent } : {}),
      ...(this.options.checkpoints ? { checkpoints: this.options.checkpoints } : {}),
      ...(this.options.mcp ? { mcp: this.options.mcp } : {}),
      ...(this.options.skills ? { skills: this.options.skills } : {}),
      // The turn's skill and command shell lines, for PreSkillShellCommand (those the person invoked).
      ...(this.options.hooks ? { hooks: { ...this.options.hooks, skillShellLines: () => this.turns.get(threadId)?.shell ?? [] } } : {}),
      ...(this.options.mounts ? { gitMounts: this.options.mounts.git } : {}),
      ...(this.options.resolveModel ? { resolveModel: this.options.resolveModel } : {}),
      ...(contextWindow !== undefined ? { contextWindow } : {}),
      ...(evictChars !== undefined ? { evictChars } : {}),
    });
  }

  /**
   * The request the next run would send first with `content` added (SPEC §20): from the same
   * assembly as a run, on the thread's history (a new thread's when there is no such thread),
   * without calling `model`, running anything or saving anything.
   */
  async previewRequest(content: string | null, model: ChatModel, threadId?: string): Promise<RequestPreview> {
    let state: ThreadState;
    let backend: Backend;
    if (threadId !== undefined && this.store.exists(threadId)) {
      this.requireThread(threadId);
      const live = this.open(threadId);
      state = live.state;
      backend = live.mounts.backend;
    } else {
      state = newThreadState(threadId ?? randomUUID());
      backend = this.mountsFor(state).backend;
    }
    const definition = this.agentDefinition(state.id, backend, model, NOBODY_ASKED);
    return previewRequest(definition, state, content === null ? null : { role: 'user', content });
  }

  private startRun(threadId: string, model: ChatModel, text: string | ContentPart[] | null, fromQueue?: string, compactOnly = false, turn?: Turn): void {
    const live = this.open(threadId);
    // A run on the history as it is (a retry, a resumed approval) stays in the turn it was in.
    if (text !== null) this.startTurn(threadId, fromQueue, turn);
    // A queued message becomes this run's input: the window moves it from the queue into the conversation.
    if (typeof text === 'string' && fromQueue !== undefined) this.emitEvent(threadId, { type: 'user_message', threadId, text, queuedId: fromQueue });
    const controller = new AbortController();
    const toolArgs = new Map<string, unknown>();
    const settings = this.settings.get(threadId) ?? {};
    const limit = this.options.maxConcurrentRuns;
    if (limit !== undefined) this.slots.setLimit(limit() ?? defaultMaxConcurrentRuns());
    // The run starts now, or once a slot is free (then it waits `Queued` first).
    const waits = !this.slots.free();
    if (!waits) this.runStarts.set(threadId, new Date().toISOString());
    const slot = new RunSlot(this.slots, (queued) => {
      if (queued) this.queuedRuns.add(threadId);
      else this.queuedRuns.delete(threadId);
      if (!queued && !this.runStarts.has(threadId)) this.runStarts.set(threadId, new Date().toISOString());
      if (this.runs.has(threadId)) this.records.setState(threadId, queued ? 'queued' : this.asking.get(threadId)?.size ? 'needs-you' : 'working');
      this.options.emit({ kind: 'threads-changed' });
    });
    const broker = settings.broker ?? this.options.approvals;
    // While the run waits for the person its slot goes to another run (RunSlot).
    const definition = this.agentDefinition(threadId, live.mounts.backend, model, {
      decide: async (request, signal) => {
        slot.pause();
        try {
          return await broker.decide(request, signal);
        } finally {
          await slot.resume(signal);
        }
      },
    });
    const emit = (event: AgentEvent) => {
      if (event.type === 'text' && event.parentToolCallId === undefined) live.streamingText += event.text;
      if (event.type === 'tool_call') toolArgs.set(event.id, event.args);
      if (event.type === 'approval') this.noteApproval(threadId, event);
      if (event.type === 'tool_result' && WRITING_TOOLS.has(event.name) && touchesMemories(toolArgs.get(event.id))) {
        this.options.emit({ kind: 'memories-changed' });
      }
      this.emitEvent(threadId, event);
    };
    this.records.start(threadId, this.options.folder, process.pid, waits ? 'queued' : 'working');
    // The run adds to what the thread has cost as the ledger prices it now (a price set since its
    // last run reaches the calls made without one): the totals it reports and its budget agree with Usage.
    live.state.usage = withCost(live.state.usage, this.options.threadCost?.(threadId));
    let started = false;
    const result = slot
      .take(controller.signal)
      .then(async () => {
        started = true;
        try {
          return await runAgent(definition, live.state, text === null ? null : { role: 'user', content: text }, {
            signal: controller.signal,
            emit,
            persist: async (state) => this.persist(live, state),
            guard: live.guard,
            resumableToolCalls: this.options.approvals.resumable(threadId),
            takeQueued: () => this.takeQueued(threadId),
            pendingNotes: () => this.store.pendingNotes(threadId),
            ...(compactOnly ? { compactOnly } : {}),
            ...this.options.audit?.(live.state, settings.maxCostUsd),
          });
        } finally {
          slot.end();
        }
      })
      .catch((err: unknown): RunResult => {
        slot.end();
        if (!started && err instanceof AbortedError) {
          // Stopped while it waited for a slot: nothing ran.
          emit({ type: 'done', threadId, text: '', reason: 'aborted' });
          return { text: '', reason: 'aborted' };
        }
        const error = err instanceof Error ? err : new Error(String(err));
        emit({ type: 'error', threadId, message: error.message });
        emit({ type: 'done', threadId, text: '', reason: 'error' });
        return { text: '', reason: 'error', error };
      });
    const done = result.then((result) => {
        this.runs.delete(threadId);
        this.runStarts.delete(threadId);
        this.asking.delete(threadId);
        this.records.end(threadId, recordedEnd(result), result.error?.message);
        // A stop is kept in the thread (the window shows it after a reload; the model hears of it); a shutdown's runs resume.
        if (result.reason === 'aborted' && !isShutdown(controller.signal) && this.store.exists(threadId)) {
          this.store.addNote(threadId, STOPPED_NOTE);
          this.deliverNotes(threadId);
        }
        // A message queued after the run's last look at the queue: it starts the next run now,
        // in the same tick, so no other send can start one first. After a Stop or a failure,
        // queued messages wait for the person (Send now or Cancel).
        const next = result.reason === 'completed' ? (live.state.queued ?? [])[0] : undefined;
        if (next !== undefined && this.live.get(threadId) === live) {
          this.setQueue(threadId, (live.state.queued ?? []).slice(1));
          this.startRun(threadId, model, next.text, next.id);
          return;
        }
        this.unloadIdle();
        this.options.emit({ kind: 'threads-changed' });
      });
    this.runs.set(threadId, { controller, done, result });
    this.options.emit({ kind: 'threads-changed' });
  }

  /** Keeps the run's record `needs-you` while one of its approvals waits for the person. */
  private noteApproval(threadId: string, event: Extract<AgentEvent, { type: 'approval' }>): void {
    const key = `${event.parentToolCallId ?? ''}/${event.id}`;
    let asked = this.asking.get(threadId);
    if (event.status === 'pending') {
      if (asked === undefined) this.asking.set(threadId, (asked = new Set()));
      asked.add(key);
      if (asked.size === 1) this.records.setState(threadId, 'needs-you');
    } else if (asked?.delete(key) === true && asked.size === 0) {
      this.records.setState(threadId, 'working');
    }
  }

  /** Saves the thread's files now (the rest of the thread as it was last saved). */
  private persistFiles(live: LiveThread): void {
    live.state.files = threadFilesSnapshot(live.mounts.threadFiles);
    this.store.save(live.state, { folder: this.options.folder });
  }

  private persist(live: LiveThread, state: ThreadState): void {
    // Whatever streamed is now part of a saved message.
    live.streamingText = '';
    state.files = threadFilesSnapshot(live.mounts.threadFiles);
    state.guard = live.guard.toJSON();
    this.store.save(state, { folder: this.options.folder });
  }

  private open(threadId: string): LiveThread {
    const cached = this.live.get(threadId);
    if (cached) {
      // The most recently opened last.
      this.live.delete(threadId);
      this.live.set(threadId, cached);
      return cached;
    }
    if (!this.store.exists(threadId)) throw new ContractError(`thread '${threadId}' not found`, 'not_found');
    const state = this.store.load(threadId);
    const live: LiveThread = { state, mounts: this.mountsFor(state), guard: new ReadGuard(state.guard), streamingText: '' };
    this.live.set(threadId, live);
    return live;
  }

  /** A thread's mount table: the folder, its thread files, /memories/, the skills and the person's mounts. */
  private mountsFor(state: ThreadState): Mounts {
    const folderBackend = this.options.folderBackendFor?.(state.id);
    return createDefaultMounts({
      folder: this.options.folder,
      db: this.options.db,
      threadFiles: threadFilesFrom(state.files),
      memoryAuthor: state.id,
      ...(folderBackend ? { folderBackend } : {}),
      ...(this.options.skills ? { skills: this.options.skills.source } : {}),
      ...(this.options.mounts ? { extraMounts: this.options.mounts.routes } : {}),
      ...(this.options.memories ? { memories: this.options.memories } : {}),
    });
  }

  private view(threadId: string, state: ThreadState, streamingText: string, { items, page }: ItemsPage): ThreadView {
    return {
      thread: this.summary(threadId),
      items,
      page,
      todos: state.todos,
      usage: withCost(state.usage, this.options.threadCost?.(threadId)),
      ...lastRunOf(this.options.lastRunUsage?.(threadId)),
      contextTokens: state.contextTokens ?? 0,
      contextWindow: this.options.contextWindow?.() ?? 0,
      approvals: this.options.approvals.pending(threadId),
      eventSeq: this.eventSeqs.get(threadId) ?? 0,
      streamingText,
      queued: state.queued ?? [],
    };
  }

  /**
   * The latest page of a thread that is not loaded, from the rows it needs (a long thread is
   * not read whole to be shown); undefined when the thread is loaded (it is the truth then)
   * or the store cannot say (ThreadStore.range).
   */
  private storedPage(threadId: string): { state: ThreadState; page: ItemsPage } | undefined {
    if (this.live.has(threadId) || this.runs.has(threadId)) return undefined;
    for (let span = PAGE_READ; ; span *= 4) {
      const read = this.store.range(threadId, undefined, span);
      if (read === undefined) return undefined;
      const page = latestPageOfRange(read.state, read.from, read.personCount);
      if (page !== undefined) return { state: read.state, page };
    }
  }

  /** The items before `cursor` of a thread that is not loaded, as storedPage reads them. */
  private storedItems(threadId: string, cursor: number): EarlierItems | undefined {
    if (this.live.has(threadId) || this.runs.has(threadId)) return undefined;
    for (let span = PAGE_READ; ; span *= 4) {
      const read = this.store.range(threadId, cursor, span);
      if (read === undefined) return undefined;
      const earlier = itemsBefore(read.state, cursor, read.from);
      if (earlier !== undefined) return earlier;
    }
  }

  /** The message at `index` and the rows after it, of a thread not loaded, when they hold all of its results. */
  private storedCall(threadId: string, index: number): ThreadState | undefined {
    if (this.live.has(threadId) || this.runs.has(threadId)) return undefined;
    const read = this.store.range(threadId, index + CALL_READ, CALL_READ);
    if (read === undefined) return undefined;
    const { messages } = read.state;
    const last = Math.min(index + CALL_READ, messages.length) - 1;
    // The results may go on past what was read.
    if (last + 1 < messages.length && messages[last]?.role === 'tool') return undefined;
    return read.state;
  }

  /**
   * Unloads idle threads but the last one opened: SQLite has all of them, and opening one
   * loads it again. Called where nothing holds a loaded thread (a window opening one, a run ending).
   */
  private unloadIdle(keep = IDLE_THREADS_KEPT): void {
    for (const threadId of [...this.live.keys()].reverse()) {
      if (this.runs.has(threadId)) continue;
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

  private requireThread(threadId: string): void {
    const thread = this.store.get(threadId);
    if (!thread || thread.folder !== this.options.folder) throw new ContractError(`thread '${threadId}' not found`, 'not_found');
  }

  private summary(threadId: string): ThreadSummaryDto {
    const t = this.store.get(threadId);
    if (!t) throw new ContractError(`thread '${threadId}' not found`, 'not_found');
    return this.summaryOf(t, this.runs.has(threadId) ? this.goingInFolder() : 0);
  }
}

/** The broker of a preview: nothing runs, so nobody is asked. */
const NOBODY_ASKED: ApprovalBroker = {
  decide: () => Promise.reject(new Error('a preview of a request runs no tools')),
};

/** What a stopped run leaves in its thread. */
const STOPPED_NOTE = { kind: 'stopped', text: 'Note: the previous run of this thread was stopped before it finished. Its last step may not have finished.', display: 'Stopped.' } as const;

/** How a run's end is recorded. */
function recordedEnd(result: RunResult): RunState {
  return result.reason === 'completed' ? 'done' : result.reason === 'aborted' ? 'stopped' : 'failed';
}

function touchesMemories(args: unknown): boolean {
  const path = (args as { file_path?: unknown } | undefined)?.file_path;
  return typeof path === 'string' && (path.startsWith(MEMORIES_PREFIX) || path === '/memories');
}

/** A thread's totals with its cost as the ledger has it (as they are when the ledger has none of its calls). */
function withCost(usage: UsageTotals, cost: number | null | undefined): UsageTotals {
  if (cost === undefined) return usage;
  const { costUsd: _recorded, ...tokens } = usage;
  return cost === null ? tokens : { ...tokens, costUsd: cost };
}

function lastRunOf(usage: UsageTotals | undefined): { lastRun?: UsageTotals } {
  return usage !== undefined ? { lastRun: usage } : {};
}
