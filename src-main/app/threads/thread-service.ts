// Threads for the window: list, create, open, rename, delete, and runs of the agent
// streamed as events. Every step is saved; a run waiting for approval resumes after a restart.

import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { createAgentDefinition } from '../../core/agent/create-agent';
import { runAgent } from '../../core/agent/loop';
import type { SubagentSpec } from '../../core/agent/middleware/subagents';
import { DEFAULT_RULES, type PermissionRule } from '../../core/agent/permissions/rules';
import { newThreadState, SHUTDOWN, type AgentEvent, type ThreadState } from '../../core/agent/types';
import { createDefaultMounts, HISTORY_PREFIX, LARGE_RESULTS_PREFIX, MEMORIES_PREFIX, type Mounts } from '../../core/backends/mounts';
import type { Backend } from '../../core/backends/protocol';
import { StateBackend } from '../../core/backends/state';
import type { ChatModel } from '../../core/models/types';
import { ReadGuard } from '../../core/tools/read-guard';
import type { ApprovalService } from '../approvals/approval-service';
import { ContractError, type ThreadSummaryDto, type ThreadView } from '../contract';
import { displayItems } from './display-items';
import { ThreadStore } from './thread-store';

export interface ThreadServiceOptions {
  db: Database.Database;
  folder: string;
  approvals: ApprovalService;
  /** The model for a run, from settings; throws a readable error when none is configured. */
  createModel: () => Promise<ChatModel>;
  rules: () => readonly PermissionRule[];
  subagents: () => SubagentSpec[];
  resolveModel?: (spec: string) => ChatModel;
  contextWindow?: () => number | undefined;
  /** The backend at `/` for a thread (the window's: its shared terminal). */
  folderBackendFor?: (threadId: string) => Backend;
  emit: (event: ThreadServiceEvent) => void;
}

export type ThreadServiceEvent =
  | { kind: 'thread-event'; threadId: string; seq: number; event: AgentEvent }
  | { kind: 'threads-changed' }
  | { kind: 'memories-changed' };

interface ActiveRun {
  controller: AbortController;
  done: Promise<void>;
}

interface LiveThread {
  state: ThreadState;
  mounts: Mounts;
  guard: ReadGuard;
  contextTokens: number;
  /** Counts the thread's events (see the contract's thread.event `seq`). */
  eventSeq: number;
  /** Top-level text streamed since the last saved message. */
  streamingText: string;
}

const WRITING_TOOLS = new Set(['write_file', 'edit_file']);

export class ThreadService {
  readonly store: ThreadStore;
  private readonly live = new Map<string, LiveThread>();
  private readonly runs = new Map<string, ActiveRun>();

  constructor(private readonly options: ThreadServiceOptions) {
    this.store = new ThreadStore(options.db);
  }

  list(): ThreadSummaryDto[] {
    return this.store
      .list()
      .filter((t) => t.folder === this.options.folder)
      .map((t) => ({ ...t, running: this.runs.has(t.id), pendingApprovals: this.options.approvals.pending(t.id).length }));
  }

  create(title?: string): ThreadSummaryDto {
    const state = newThreadState(randomUUID());
    this.store.save(state, { folder: this.options.folder, ...(title ? { title } : {}) });
    this.options.emit({ kind: 'threads-changed' });
    return this.summary(state.id);
  }

  get(threadId: string): ThreadView {
    const live = this.open(threadId);
    return {
      thread: this.summary(threadId),
      items: displayItems(live.state),
      todos: live.state.todos,
      usage: live.state.usage,
      contextTokens: live.contextTokens,
      contextWindow: this.options.contextWindow?.() ?? 0,
      approvals: this.options.approvals.pending(threadId),
      eventSeq: live.eventSeq,
      streamingText: live.streamingText,
    };
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
    this.store.delete(threadId);
    this.options.approvals.forgetThread(threadId);
    this.options.emit({ kind: 'threads-changed' });
  }

  isRunning(threadId: string): boolean {
    return this.runs.has(threadId);
  }

  /** Starts a run on a new message; events stream while it works. */
  async send(threadId: string, text: string): Promise<void> {
    this.requireThread(threadId);
    if (this.runs.has(threadId)) throw new ContractError('this thread is already working; stop it or wait for it to finish', 'failed');
    const model = await this.options.createModel();
    this.startRun(threadId, model, text);
  }

  /** Runs the thread again from its history (after a failed run), without a new message. */
  async retry(threadId: string): Promise<void> {
    this.requireThread(threadId);
    if (this.runs.has(threadId)) throw new ContractError('this thread is already working; stop it or wait for it to finish', 'failed');
    const model = await this.options.createModel();
    this.startRun(threadId, model, null);
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
        this.startRun(threadId, await this.options.createModel(), null);
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

  /** Ends every run as a shutdown: pending approvals stay and resume on the next start. */
  async dispose(): Promise<void> {
    const runs = [...this.runs.values()];
    for (const run of runs) run.controller.abort(SHUTDOWN);
    await Promise.all(runs.map((run) => run.done));
  }

  private startRun(threadId: string, model: ChatModel, text: string | null): void {
    const live = this.open(threadId);
    const controller = new AbortController();
    const toolArgs = new Map<string, unknown>();
    const definition = createAgentDefinition({
      model,
      backend: live.mounts.backend,
      rules: () => [...this.options.rules(), ...DEFAULT_RULES],
      broker: this.options.approvals,
      subagents: this.options.subagents(),
      ...(this.options.resolveModel ? { resolveModel: this.options.resolveModel } : {}),
      ...(this.options.contextWindow?.() !== undefined ? { contextWindow: this.options.contextWindow()! } : {}),
    });
    const emit = (event: AgentEvent) => {
      if (event.type === 'usage') live.contextTokens = event.contextTokens;
      if (event.type === 'text' && event.parentToolCallId === undefined) live.streamingText += event.text;
      if (event.type === 'tool_call') toolArgs.set(event.id, event.args);
      if (event.type === 'tool_result' && WRITING_TOOLS.has(event.name) && touchesMemories(toolArgs.get(event.id))) {
        this.options.emit({ kind: 'memories-changed' });
      }
      this.options.emit({ kind: 'thread-event', threadId, seq: ++live.eventSeq, event });
    };
    const done = runAgent(definition, live.state, text === null ? null : { role: 'user', content: text }, {
      signal: controller.signal,
      emit,
      persist: async (state) => this.persist(live, state),
      guard: live.guard,
      resumableToolCalls: this.options.approvals.resumable(threadId),
    })
      .catch((err: unknown) => {
        emit({ type: 'error', threadId, message: err instanceof Error ? err.message : String(err) });
        emit({ type: 'done', threadId, text: '', reason: 'error' });
      })
      .then(() => {
        this.runs.delete(threadId);
        this.options.emit({ kind: 'threads-changed' });
      });
    this.runs.set(threadId, { controller, done });
    this.options.emit({ kind: 'threads-changed' });
  }

  private persist(live: LiveThread, state: ThreadState): void {
    // Whatever streamed is now part of a saved message.
    live.streamingText = '';
    state.files = { largeResults: live.mounts.threadFiles.largeResults.toJSON(), history: live.mounts.threadFiles.history.toJSON() };
    state.guard = live.guard.toJSON();
    this.store.save(state, { folder: this.options.folder });
  }

  private open(threadId: string): LiveThread {
    const cached = this.live.get(threadId);
    if (cached) return cached;
    if (!this.store.exists(threadId)) throw new ContractError(`thread '${threadId}' not found`, 'not_found');
    const state = this.store.load(threadId);
    const threadFiles = { largeResults: StateBackend.fromJSON(state.files.largeResults), history: StateBackend.fromJSON(state.files.history) };
    const folderBackend = this.options.folderBackendFor?.(threadId);
    const mounts = createDefaultMounts({ folder: this.options.folder, db: this.options.db, threadFiles, ...(folderBackend ? { folderBackend } : {}) });
    const live: LiveThread = { state, mounts, guard: new ReadGuard(state.guard), contextTokens: 0, eventSeq: 0, streamingText: '' };
    this.live.set(threadId, live);
    return live;
  }

  private requireThread(threadId: string): void {
    const thread = this.store.get(threadId);
    if (!thread || thread.folder !== this.options.folder) throw new ContractError(`thread '${threadId}' not found`, 'not_found');
  }

  private summary(threadId: string): ThreadSummaryDto {
    const t = this.store.get(threadId);
    if (!t) throw new ContractError(`thread '${threadId}' not found`, 'not_found');
    return { ...t, running: this.runs.has(threadId), pendingApprovals: this.options.approvals.pending(threadId).length };
  }
}

function touchesMemories(args: unknown): boolean {
  const path = (args as { file_path?: unknown } | undefined)?.file_path;
  return typeof path === 'string' && (path.startsWith(MEMORIES_PREFIX) || path === '/memories');
}
