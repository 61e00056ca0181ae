// The run queue of a folder's threads (issue 60): starting a run, queuing a message while one
// goes (a thread never has two runs, whatever the timing of the sends), stopping, the run
// slots shared by every folder of the process, the run records of the Agents view, and what
// is going now. A run waiting for approval resumes after a restart. The run itself is built
// by the run assembly (run-assembly.ts); its approvals go through the broker (approval-broker.ts).

import { randomUUID } from 'node:crypto';
import type { QueuedInput, RunResult } from '../../core/agent/loop';
import { isShutdown, SHUTDOWN, type QueuedMessage } from '../../core/agent/types';
import type { MediaInput, ChatModel, ContentPart } from '../../core/models/types';
import { AbortedError } from '../../core/models/errors';
import type { Turn } from '../commands/slash-commands';
import { ContractError, type AttachmentInput, type ThreadSummaryDto } from '../contract';
import { withAttachments } from '../threads/message-attachments';
import type { RunRecords, RunState } from '../threads/run-records';
import type { ThreadBook } from '../threads/thread-book';
import { titleFromTyped } from '../threads/thread-title';
import type { ThreadApprovals } from './approval-broker';
import type { RunAssembly, RunSettings } from './run-assembly';
import { defaultMaxConcurrentRuns, processRunSlots, RunSlot, type RunSlots } from './run-slots';

export interface RunQueueOptions {
  folder: string;
  /** The folder's threads: loaded, saved, told of. */
  book: Pick<ThreadBook, 'store' | 'require' | 'open' | 'queued' | 'setQueue' | 'emitEvent' | 'persist' | 'persistFiles' | 'deliverNotes' | 'isLoaded' | 'unloadIdle'>;
  /** Builds each run. */
  assembly: Pick<RunAssembly, 'prepare' | 'priceAsLedger'>;
  /** Who answers the runs' approvals. */
  approvals: Pick<ThreadApprovals, 'brokerFor' | 'note' | 'waiting' | 'runEnded' | 'resumable' | 'threadsWaiting'>;
  /** Every run's state, for the Agents view and `deepdesk agents` (run-records.ts). */
  records: Pick<RunRecords, 'start' | 'end' | 'setState' | 'goingIn' | 'seen'>;
  /** The model for a run, from settings; throws a readable error when none is configured. */
  createModel: () => Promise<ChatModel>;
  /** Settings `maxConcurrentRuns`, read whenever a run asks for a slot (undefined: the machine's default). */
  maxConcurrentRuns?: () => number | undefined;
  emit: (event: { kind: 'threads-changed' }) => void;
}

/** What a thread's summary says of its runs. */
export type RunStatus = Pick<ThreadSummaryDto, 'running' | 'queued' | 'runSlots' | 'runStartedAt' | 'sharesFolder'>;

interface ActiveRun {
  controller: AbortController;
  /** Settles when the run has ended and its thread is tidied up (a queued message may have started the next). */
  done: Promise<void>;
  /** How this run ended. */
  result: Promise<RunResult>;
}

const WORKING = 'this thread is already working; stop it or wait for it to finish';

export class RunQueue {
  private readonly runs = new Map<string, ActiveRun>();
  /** Who stopped a thread's run, when not the person here (a protocol client): its stop note says so. */
  private readonly stoppedBy = new Map<string, string>();
  private readonly settings = new Map<string, RunSettings>();
  /** The process's run slots, shared by every folder's threads. */
  private readonly slots: RunSlots = processRunSlots;
  /** Runs waiting for a slot. */
  private readonly queuedRuns = new Set<string>();
  /** When each going run first had its slot (ISO). */
  private readonly runStarts = new Map<string, string>();
  /**
   * What the latest message of each thread's run lets run without asking (a command's
   * `allowed-tools`), and the same for messages still queued, by queued id. Kept in memory
   * only: after a restart the turn asks as the rules say.
   */
  private readonly turns = new Map<string, Turn>();
  private readonly queuedTurns = new Map<string, Turn>();

  constructor(private readonly options: RunQueueOptions) {}

  isRunning(threadId: string): boolean {
    return this.runs.has(threadId);
  }

  /** Whether any thread of the folder is working. */
  anyRunning(): boolean {
    return this.runs.size > 0;
  }

  /** How many runs go in this folder now, this process's and others' (two or more: they share it). */
  goingInFolder(): number {
    return this.options.records.goingIn(this.options.folder).length;
  }

  /** What the thread's summary says of its runs; `goingInFolder` as goingInFolder() counts. */
  statusOf(threadId: string, goingInFolder: number): RunStatus {
    const running = this.runs.has(threadId);
    const startedAt = running ? this.runStarts.get(threadId) : undefined;
    return {
      running,
      ...(this.queuedRuns.has(threadId) ? { queued: true, runSlots: this.slots.usage() } : {}),
      ...(startedAt !== undefined ? { runStartedAt: startedAt } : {}),
      ...(running && goingInFolder > 1 ? { sharesFolder: true } : {}),
    };
  }

  /** A window opened the thread: a finished run of it leaves the Agents view. */
  markSeen(threadId: string): void {
    this.options.records.seen(threadId);
  }

  /** The settings of the thread's runs from now on (see RunSettings); undefined: the folder's. */
  useRunSettings(threadId: string, settings: RunSettings | undefined): void {
    this.options.book.require(threadId);
    if (settings === undefined) this.settings.delete(threadId);
    else this.settings.set(threadId, settings);
  }

  /** The settings of the thread's runs (empty: the folder's). */
  settingsOf(threadId: string): RunSettings {
    return this.settings.get(threadId) ?? {};
  }

  /** What the thread's current turn lets run without asking. */
  turnOf(threadId: string): Turn | undefined {
    return this.turns.get(threadId);
  }

  /** Forgets the settings and turn of a thread being deleted (its runs have ended). */
  forget(threadId: string): void {
    this.settings.delete(threadId);
    this.turns.delete(threadId);
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
    const { book } = this.options;
    book.require(threadId);
    if (this.runs.has(threadId)) throw new ContractError(WORKING, 'failed');
    const model = await this.modelFor(threadId);
    // Files sent with the message go as the window's send takes them: as content when the model takes their type, else saved and named.
    const attachments = options.attachments ?? [];
    if (attachments.length > 0) content = await this.attach(threadId, typeof content === 'string' ? content : '', attachments, model.mediaInput);
    if (this.runs.has(threadId)) throw new ContractError(WORKING, 'failed');
    if (options.typed !== undefined) book.store.titleIfUntitled(threadId, titleFromTyped(options.typed, attachments.map((a) => a.name)));
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
    this.options.book.require(threadId);
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
    this.options.book.store.titleIfUntitled(threadId, titleFromTyped(typed, attachments.map((a) => a.name)));
    this.startRun(threadId, model, content, undefined, false, turn);
    return {};
  }

  private async attach(threadId: string, text: string, attachments: readonly AttachmentInput[], mediaInput: MediaInput | undefined | 'save-all'): Promise<string | ContentPart[]> {
    if (attachments.length === 0) return text;
    const live = this.options.book.open(threadId);
    const content = await withAttachments(text, attachments, { mediaInput, files: live.mounts.threadFiles.attachments });
    if (live.mounts.threadFiles.attachments.isEmpty()) return content;
    // Saved now: the files outlive a send that fails before the run saves the thread.
    this.options.book.persistFiles(live);
    return content;
  }

  /** Withdraws a queued message before it is delivered. */
  cancelQueued(threadId: string, queuedId: string): void {
    const { book } = this.options;
    book.require(threadId);
    const queued = book.queued(threadId);
    if (!queued.some((q) => q.id === queuedId)) throw new ContractError('that message is no longer queued (it was delivered or cancelled)', 'not_found');
    book.setQueue(threadId, queued.filter((q) => q.id !== queuedId));
    this.queuedTurns.delete(queuedId);
  }

  /**
   * Sends a queued message now instead of when the current step ends: the current step is
   * interrupted as Stop does (a streaming answer is cut, running commands are stopped,
   * pending approvals withdrawn) and a run starts on this message at once. Other queued
   * messages stay queued and follow at the next step boundary.
   */
  async sendQueuedNow(threadId: string, queuedId: string): Promise<void> {
    const { book } = this.options;
    book.require(threadId);
    // Read again after each wait: the thread may have been unloaded and loaded meanwhile.
    const queue = () => book.queued(threadId);
    const find = () => queue().find((q) => q.id === queuedId);
    if (find() === undefined) throw new ContractError('that message is no longer queued (it was delivered or cancelled)', 'not_found');
    const model = await this.modelFor(threadId);
    await this.stop(threadId);
    const item = find();
    if (item === undefined) return; // delivered by the step that just ended
    book.setQueue(threadId, queue().filter((q) => q.id !== queuedId));
    if (this.runs.has(threadId)) {
      // Another send started a run meanwhile: this message goes first in the queue.
      book.setQueue(threadId, [item, ...queue()]);
      return;
    }
    this.startRun(threadId, model, item.text, item.id);
  }

  /** `/compact`: summarizes the thread's history now, as a run of its own (Stop ends it); no answer follows. */
  async compact(threadId: string): Promise<void> {
    this.options.book.require(threadId);
    if (this.runs.has(threadId)) throw new ContractError('this thread is working; /compact when it has finished (or Stop it)', 'failed');
    const model = await this.modelFor(threadId);
    this.startRun(threadId, model, null, undefined, true);
  }

  /** Runs the thread again from its history (after a failed run), without a new message. */
  async retry(threadId: string): Promise<void> {
    this.options.book.require(threadId);
    if (this.runs.has(threadId)) throw new ContractError(WORKING, 'failed');
    const model = await this.modelFor(threadId);
    this.startRun(threadId, model, null);
  }

  async stop(threadId: string, by?: string): Promise<void> {
    const run = this.runs.get(threadId);
    if (!run) return;
    if (by !== undefined) this.stoppedBy.set(threadId, by);
    run.controller.abort();
    await run.done;
  }

  /** Resumes every run of this folder that was waiting for an approval when the app stopped. */
  async resumePending(): Promise<void> {
    for (const threadId of this.options.approvals.threadsWaiting()) {
      const thread = this.options.book.store.get(threadId);
      if (!thread || thread.folder !== this.options.folder || this.runs.has(threadId)) continue;
      try {
        this.startRun(threadId, await this.modelFor(threadId), null);
      } catch {
        // No model configured: the approval stays pending until one is.
      }
    }
  }

  /** Ends every run as a shutdown: pending approvals stay and resume on the next start. */
  async dispose(): Promise<void> {
    const runs = [...this.runs.values()];
    for (const run of runs) run.controller.abort(SHUTDOWN);
    await Promise.all(runs.map((run) => run.done));
  }

  private startRun(threadId: string, model: ChatModel, text: string | ContentPart[] | null, fromQueue?: string, compactOnly = false, turn?: Turn): void {
    const { book, approvals, records } = this.options;
    const live = book.open(threadId);
    // A run on the history as it is (a retry, a resumed approval) stays in the turn it was in.
    if (text !== null) this.startTurn(threadId, fromQueue, turn);
    // A queued message becomes this run's input: the window moves it from the queue into the conversation.
    if (typeof text === 'string' && fromQueue !== undefined) book.emitEvent(threadId, { type: 'user_message', threadId, text, queuedId: fromQueue });
    const controller = new AbortController();
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
      if (this.runs.has(threadId)) records.setState(threadId, queued ? 'queued' : approvals.waiting(threadId) ? 'needs-you' : 'working');
      this.options.emit({ kind: 'threads-changed' });
    });
    let fanOutLine: string | undefined;
    const { emit, run } = this.options.assembly.prepare(
      live,
      { threadId, model, settings, turn: () => this.turns.get(threadId) },
      {
        signal: controller.signal,
        broker: approvals.brokerFor(settings.broker, slot),
        emitEvent: (event) => {
          // A call waiting at a cap (SPEC §26): the run is `budget` until it goes on, its slot another run's meanwhile.
          if (event.type === 'paused') {
            if (event.line !== undefined) {
              records.setState(threadId, 'budget', event.line);
              slot.pause();
            } else {
              records.setState(threadId, approvals.waiting(threadId) ? 'needs-you' : 'working');
              void slot.resume(controller.signal).catch(() => undefined);
            }
            this.options.emit({ kind: 'threads-changed' });
          }
          // Subagents that did not all finish are said on the run's row too (SPEC §26 honest counts).
          if (event.type === 'done' && event.parentToolCallId === undefined && event.fanOut !== undefined && event.fanOut.finished < event.fanOut.total) fanOutLine = `subagents: ${event.fanOut.line}`;
          book.emitEvent(threadId, event);
        },
        onApproval: (event) => approvals.note(threadId, event),
        persist: (state) => book.persist(live, state),
        resumableToolCalls: () => approvals.resumable(threadId),
        takeQueued: () => this.takeQueued(threadId),
        pendingNotes: () => book.store.pendingNotes(threadId),
        ...(compactOnly ? { compactOnly } : {}),
      },
    );
    records.start(threadId, this.options.folder, process.pid, waits ? 'queued' : 'working');
    this.options.assembly.priceAsLedger(live, threadId);
    let started = false;
    const result = slot
      .take(controller.signal)
      .then(async () => {
        started = true;
        try {
          return await run(text);
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
      approvals.runEnded(threadId);
      records.end(threadId, recordedEnd(result), result.error?.message ?? fanOutLine);
      // A stop is kept in the thread (the window shows it after a reload; the model hears of it); a shutdown's runs resume.
      const by = this.stoppedBy.get(threadId);
      this.stoppedBy.delete(threadId);
      if (result.reason === 'aborted' && !isShutdown(controller.signal) && book.store.exists(threadId)) {
        book.store.addNote(threadId, by === undefined ? STOPPED_NOTE : { ...STOPPED_NOTE, display: `Stopped by ${by}.` });
        book.deliverNotes(threadId);
      }
      // A message queued after the run's last look at the queue: it starts the next run now,
      // in the same tick, so no other send can start one first. After a Stop or a failure,
      // queued messages wait for the person (Send now or Cancel).
      const next = result.reason === 'completed' ? (live.state.queued ?? [])[0] : undefined;
      if (next !== undefined && book.isLoaded(threadId, live)) {
        book.setQueue(threadId, (live.state.queued ?? []).slice(1));
        this.startRun(threadId, model, next.text, next.id);
        return;
      }
      book.unloadIdle();
      this.options.emit({ kind: 'threads-changed' });
    });
    this.runs.set(threadId, { controller, done, result });
    this.options.emit({ kind: 'threads-changed' });
  }

  private enqueue(threadId: string, text: string, turn: Turn | undefined): string {
    const { book } = this.options;
    const queued = book.queued(threadId);
    const item: QueuedMessage = { id: randomUUID(), text, createdAt: new Date().toISOString() };
    if (turn !== undefined) this.queuedTurns.set(item.id, turn);
    book.setQueue(threadId, [...queued, item]);
    return item.id;
  }

  /** Takes every queued message, for the run to deliver now. */
  private takeQueued(threadId: string): QueuedInput[] {
    const queued = this.options.book.queued(threadId);
    if (queued.length === 0) return [];
    this.options.book.setQueue(threadId, []);
    // Delivered now: the turn is the last of them, and its rules are the run's from here.
    this.startTurn(threadId, queued.at(-1)!.id);
    for (const { id } of queued) this.queuedTurns.delete(id);
    return queued.map(({ id, text }) => ({ id, text }));
  }

  /** A new message's turn begins: its rules (a queued one's, by its id) replace the last turn's. */
  private startTurn(threadId: string, queuedId: string | undefined, given?: Turn): void {
    const turn = queuedId !== undefined ? this.queuedTurns.get(queuedId) : given;
    if (queuedId !== undefined) this.queuedTurns.delete(queuedId);
    if (turn === undefined) this.turns.delete(threadId);
    else this.turns.set(threadId, turn);
  }
}

/** What a stopped run leaves in its thread. */
const STOPPED_NOTE = { kind: 'stopped', text: 'Note: the previous run of this thread was stopped before it finished. Its last step may not have finished.', display: 'Stopped.' } as const;

/** How a run's end is recorded. */
function recordedEnd(result: RunResult): RunState {
  return result.reason === 'completed' ? 'done' : result.reason === 'aborted' ? 'stopped' : 'failed';
}
