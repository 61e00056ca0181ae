// The Agent Protocol's runs (SPEC §19): each one a host run (app/host/runs.ts), recorded as the
// reference server's Run objects, its events kept as stream parts (run-stream.ts). A run that
// would ask approval reads `interrupted` and leaves its thread `interrupted` (Deep Agents'
// human-in-the-loop interrupt) while the host run waits for the person: it is not done, and
// once the approval is answered anywhere it goes on (`running`, then `success` with the final
// answer), so that a client holding its id — a Deep Agents parent polling it, a script joining
// it — follows it to its end. A run resuming with decisions answers those questions and follows
// the same host run on. A resume names what it answers: keyed by
// the interrupt ids this host issued, or, bare, only when what is pending is exactly the
// interrupt the protocol last showed for the thread; it is bound to those approvals' keys when
// it is accepted, so an approval that appears meanwhile (the window or a terminal answering
// the one shown) is never answered by it.

import { randomUUID } from 'node:crypto';
import type { AgentEvent, ApprovalDecision, ChatMessage } from '../../../core/agent/types';
import { ThreadStore } from '../../threads/thread-store';
import type { PendingQuestion } from '../../host/run-views';
import type { RunEnd } from '../../session/run-requests';
import type { HostConnection } from '../../base/host-service';
import type { ProtocolContext, ProtocolInterrupt, ProtocolThreadStatus, ThreadActivity } from './context';
import { ProtocolHttpError } from './http';
import { InterruptBook, RESUME_BY_ID, type Answer } from './interrupts';
import { ProtocolRunRecords, type ProtocolRun, type ProtocolRunStatus } from './run-records';
import { assistantOf, checkedStart, hostRunParams, type ListenerFolders, type RunRequest, type RunStart } from './run-request';
import { EventTranslator } from './event-translator';
import { RunStream } from './run-stream';

const BUSY = 'Thread is already running a task. Wait for it to finish or choose a different multitask strategy.';
const NO_ROLLBACK = "multitask_strategy: rollback is not possible: Deepdesk cannot roll a thread's messages back. Use interrupt (the run going stops, its messages stay) or enqueue.";
const BUSY_ELSEWHERE = 'Thread is working in a window or an editor: stop it there, or choose enqueue to run after it.';
/** How often a run enqueued behind a window's or an editor's work looks whether that work ended. */
const ELSEWHERE_POLL_MS = 500;

interface LiveRun {
  record: ProtocolRun;
  request: RunRequest;
  stream: RunStream;
  /** The host run's request, checked at creation (none for a resume): `saved` mode when the run names none; `agent`, a subagent's name. */
  start?: RunStart;
  /** A resume's answers, each bound to the approval (its key) it was accepted for. */
  answers?: Answer[];
  translator?: EventTranslator;
  connection?: ProtocolConnection;
  /** A thread made for a stateless run: deleted when it ends (`on_completion: delete`). */
  temporary: boolean;
  cancelled: boolean;
  /** Enqueued behind work that is not the protocol's (a host run, a window's, an editor's): it starts once that ends. */
  behindHost?: boolean;
  /** The last host run event this run followed (each run follows on its own: a waiting run and a resume follow the same host run). */
  seq: number;
  /**
   * Paused at an interrupt: the run reads `interrupted` while its host run waits for the person,
   * and goes on (`running`, then its end) once the approval is answered anywhere — the window, a
   * terminal, another protocol client — so that whoever follows it sees it to its end.
   */
  waiting?: boolean;
}

/** The host run a thread's protocol runs follow: the last event seen and the messages so far. */
interface Followed {
  seq: number;
  messages: ChatMessage[];
}

interface ProtocolConnection extends HostConnection {
  close(): void;
}

/** How long a run a page's closed stream left goes on unfollowed before it is cancelled (cancelWhenLeft). */
export const PAGE_REJOIN_MS = 2_000;

/** Ended runs whose stream parts stay in memory for a join or rejoin. */
const KEPT_ENDED_RUNS = 20;

/** The host's protocol runs, one book for every listener: their queues, the host runs they follow. */
interface RunBook {
  live: Map<string, LiveRun>;
  /** Per thread: its going run, then the enqueued ones. */
  queues: Map<string, LiveRun[]>;
  followed: Map<string, Followed>;
  records: ProtocolRunRecords;
  threads: ThreadStore;
  interrupts: InterruptBook;
}

/**
 * The host's protocol runs: one per host (protocolAdapter, listen.ts), so that every listener sees the same
 * queues; each listener works through `forListener` with its own folders.
 */
export class ProtocolRuns implements ThreadActivity {
  private readonly book: RunBook;

  constructor(
    /** What every listener shares: the host's services (a listener's own part is its folders). */
    private readonly context: Omit<ProtocolContext, keyof ListenerFolders>,
    /** Whether a thread exists over the protocol before any Deepdesk thread holds it (threads routes). */
    private readonly threadKnown: (threadId: string) => boolean = () => false,
    private readonly folders: ListenerFolders = { defaultFolder: undefined, folderRefusal: () => 'this host serves no listener' },
    book?: RunBook,
  ) {
    this.book = book ?? { live: new Map(), queues: new Map(), followed: new Map(), records: new ProtocolRunRecords(context.db), threads: new ThreadStore(context.db), interrupts: new InterruptBook((threadId) => this.questions(threadId)) };
  }

  /** The same runs as a listener with `folders` sees them. */
  forListener(folders: ListenerFolders): ProtocolRuns {
    return new ProtocolRuns(this.context, this.threadKnown, folders, this.book);
  }

  /** Runs a host that stopped left pending or running were interrupted (the host serving the data folder calls it). */
  interruptUnfinished(): void {
    this.book.records.interruptUnfinished();
  }

  threadExists(threadId: string): boolean {
    return this.book.threads.exists(threadId) || this.threadKnown(threadId);
  }

  /** Creates a run on `threadId` (a new temporary thread when undefined: a stateless run). */
  async create(threadId: string | undefined, request: RunRequest): Promise<{ run: ProtocolRun; stream: RunStream }> {
    const temporary = threadId === undefined && request.on_completion !== 'keep';
    const thread = threadId ?? randomUUID();
    const assistant = assistantOf({ dataDir: this.context.dataDir, runs: this.context.runs, defaultFolder: this.folders.defaultFolder }, request.assistant_id);
    if (threadId !== undefined && !this.threadExists(threadId) && request.if_not_exists !== 'create') throw new ProtocolHttpError(404, `Thread with ID ${threadId} not found`);
    if (request.multitask_strategy === 'rollback') throw new ProtocolHttpError(422, NO_ROLLBACK);
    const resume = request.command !== undefined && request.command.resume !== undefined ? request.command.resume : undefined;
    const asking = this.questions(thread);
    let answers: Answer[] | undefined;
    let start: RunStart | undefined;
    if (resume !== undefined) {
      if (asking.length === 0) throw new ProtocolHttpError(409, `Thread ${thread} has no interrupt to resume.`);
      answers = this.book.interrupts.answersOf(thread, resume, asking);
    } else start = checkedStart(request, assistant.subagent, this.folders);
    // Checked in full above: a request that fails stops nothing.
    const going = this.queued(thread).some((run) => !isEnded(run.record.status));
    // Work that is not the protocol's: a host run working (not one waiting on approvals: a new message ends that wait), a window's, an editor's.
    const hostWorking = this.context.runs.has(thread) && this.questions(thread).length === 0;
    const elsewhere = threadId !== undefined && (await this.context.runs.worksElsewhere(thread));
    if ((going || hostWorking || elsewhere) && request.multitask_strategy === 'reject') throw new ProtocolHttpError(422, BUSY);
    if (elsewhere && request.multitask_strategy === 'interrupt') throw new ProtocolHttpError(422, BUSY_ELSEWHERE);
    const now = new Date().toISOString();
    const record: ProtocolRun = {
      run_id: randomUUID(),
      thread_id: thread,
      assistant_id: assistant.assistant.assistant_id,
      created_at: now,
      updated_at: now,
      status: 'pending',
      metadata: request.metadata ?? {},
      multitask_strategy: request.multitask_strategy,
      kwargs: { input: request.input ?? null, command: request.command ?? null, config: request.config ?? {}, stream_mode: request.stream_mode, temporary },
    };
    const run: LiveRun = { record, request, stream: new RunStream(), temporary, cancelled: false, seq: 0, ...(start ? { start } : {}), ...(answers ? { answers } : {}) };
    if (request.multitask_strategy === 'enqueue' && (hostWorking || elsewhere)) run.behindHost = true;
    this.book.records.insert(record);
    this.book.live.set(record.run_id, run);
    const queue = this.book.queues.get(thread) ?? [];
    this.book.queues.set(thread, queue);
    queue.push(run);
    if (request.multitask_strategy === 'interrupt') {
      // As Deep Agents' update_async_task: the runs before it stop first, the going one last; then the host run the client asked to interrupt.
      const before = queue.filter((r) => r !== run && !isEnded(r.record.status));
      for (const old of before.reverse()) await this.cancel(thread, old.record.run_id);
      if (hostWorking && this.context.runs.has(thread)) await this.context.runs.stop(thread).catch(() => undefined);
    }
    this.next(thread);
    return { run: { ...record }, stream: run.stream };
  }

  get(threadId: string, runId: string): ProtocolRun | undefined {
    const live = this.book.live.get(runId);
    if (live !== undefined) return live.record.thread_id === threadId ? { ...live.record } : undefined;
    return this.book.records.get(threadId, runId);
  }

  /** A run by its id alone, whatever its thread. */
  byId(runId: string): ProtocolRun | undefined {
    const live = this.book.live.get(runId);
    return live !== undefined ? { ...live.record } : this.book.records.byId(runId);
  }

  list(threadId: string, options: { limit: number; offset: number; status?: string | undefined }): ProtocolRun[] {
    return this.book.records.list(threadId, options).map((r) => ({ ...(this.book.live.get(r.run_id)?.record ?? r) }));
  }

  /** The run's stream parts, kept while the host is up (undefined for an unknown or older run). */
  stream(threadId: string | undefined, runId: string): RunStream | undefined {
    const live = this.book.live.get(runId);
    return live !== undefined && (threadId === undefined || live.record.thread_id === threadId) ? live.stream : undefined;
  }

  /** Stops a run: a going one's host run ends (its commands' process trees too); it is `interrupted`. `by`: who, for the thread's note. */
  async cancel(threadId: string, runId: string, by?: string): Promise<void> {
    const run = this.book.live.get(runId);
    if (run === undefined || run.record.thread_id !== threadId) {
      if (this.get(threadId, runId) === undefined) throw new ProtocolHttpError(404, 'Run not found');
      return;
    }
    if (run.waiting === true) {
      // A run waiting for the person: cancelling it ends that wait (its approval leaves the window too).
      run.cancelled = true;
      run.waiting = false;
      run.stream.unpause();
      run.connection?.close();
      if (this.context.runs.has(threadId) && this.questions(threadId).length > 0) await this.context.runs.stop(threadId, by).catch(() => undefined);
      this.dropTemporary(run);
      return;
    }
    if (isEnded(run.record.status)) return;
    run.cancelled = true;
    if (run.record.status === 'pending') {
      this.finish(run, 'interrupted');
      return;
    }
    if (this.context.runs.has(threadId)) await this.context.runs.stop(threadId, by).catch(() => undefined);
    await run.stream.finished();
  }

  /**
   * A browser page's stream of the run closed (`on_disconnect: continue`): the page stopped it
   * (agent-chat-ui's Cancel only closes its stream), unless a client follows the run again within
   * PAGE_REJOIN_MS (the SDK rejoining a dropped stream, a page reloaded with `reconnectOnMount`).
   * A run waiting for the person goes on waiting: the approval is still in the window.
   */
  cancelWhenLeft(threadId: string, runId: string, left: AbortSignal, by: string): void {
    left.addEventListener(
      'abort',
      () => {
        setTimeout(() => {
          const run = this.book.live.get(runId);
          if (run === undefined || run.waiting === true || isEnded(run.record.status) || run.stream.followed) return;
          void this.cancel(threadId, runId, by).catch(() => undefined);
        }, PAGE_REJOIN_MS).unref();
      },
      { once: true },
    );
  }

  /** Deletes a run; a going one is cancelled first (the reference deletes it whatever it does). */
  async delete(threadId: string, runId: string): Promise<void> {
    if (this.get(threadId, runId) === undefined) throw new ProtocolHttpError(404, 'Run not found');
    const run = this.book.live.get(runId);
    if (run !== undefined && !isEnded(run.record.status)) await this.cancel(threadId, runId);
    this.book.live.delete(runId);
    run?.stream.dispose();
    this.book.records.delete(runId);
  }

  status(threadId: string): ProtocolThreadStatus {
    if (this.queued(threadId).some((run) => !isEnded(run.record.status))) return 'busy';
    if (this.context.runs.has(threadId)) return this.questions(threadId).length > 0 ? 'interrupted' : 'busy';
    return this.book.records.lastStatus(threadId) === 'error' ? 'error' : 'idle';
  }

  interrupts(threadId: string): ProtocolInterrupt[] {
    if (this.queued(threadId).some((run) => !isEnded(run.record.status))) return [];
    const asking = this.questions(threadId);
    return asking.length === 0 ? [] : [this.book.interrupts.show(threadId, asking)];
  }

  async cancelAll(threadId: string): Promise<void> {
    for (const run of [...this.queued(threadId)].reverse()) await this.cancel(threadId, run.record.run_id);
    if (this.context.runs.has(threadId)) await this.context.runs.stop(threadId).catch(() => undefined);
  }

  /** Cancels every going run (the host stops). */
  async close(): Promise<void> {
    for (const [threadId, queue] of this.book.queues) for (const run of [...queue].reverse()) await this.cancel(threadId, run.record.run_id);
  }

  private questions(threadId: string): PendingQuestion[] {
    return this.context.runs.going(threadId)?.questions ?? [];
  }

  /** The thread's going and enqueued runs (read only: a queue is made by the run pushed on it). */
  private queued(threadId: string): readonly LiveRun[] {
    return this.book.queues.get(threadId) ?? [];
  }

  /** Starts the thread's first pending run when nothing goes before it. */
  private next(threadId: string): void {
    const queue = this.book.queues.get(threadId);
    if (queue === undefined) return;
    while (queue.length > 0 && isEnded(queue[0]!.record.status)) queue.shift();
    const first = queue[0];
    if (first === undefined) {
      this.book.queues.delete(threadId);
      return;
    }
    if (first.record.status !== 'pending') return;
    if (first.behindHost === true) {
      void this.afterHostWork(first);
      return;
    }
    this.setStatus(first, 'running');
    void this.launch(first).catch((err: unknown) => this.fail(first, err instanceof Error ? err.message : String(err)));
  }

  /** An enqueued run starts once the work it waits behind (a host run's, a window's, an editor's) has ended. */
  private async afterHostWork(run: LiveRun): Promise<void> {
    const threadId = run.record.thread_id;
    const busy = async () => (this.context.runs.has(threadId) && this.questions(threadId).length === 0) || (await this.context.runs.worksElsewhere(threadId));
    while (!isEnded(run.record.status) && (await busy())) await new Promise((resolve) => setTimeout(resolve, ELSEWHERE_POLL_MS));
    if (isEnded(run.record.status) || run.behindHost !== true) return;
    run.behindHost = false;
    this.next(threadId);
  }

  private async launch(run: LiveRun): Promise<void> {
    const threadId = run.record.thread_id;
    const connection = this.connect(run);
    run.connection = connection;
    if (run.start !== undefined) {
      // A new message while the thread waits on an approval: that wait ends, unanswered. A host run that works is not stopped here (create refused or waited).
      if (this.context.runs.has(threadId) && this.questions(threadId).length > 0) await this.context.runs.stop(threadId).catch(() => undefined);
      const before = this.book.threads.exists(threadId) ? this.book.threads.load(threadId).messages : [];
      await this.context.runs.start(connection, hostRunParams(run.start, threadId, this.context.env, run.request.client));
      this.book.followed.set(threadId, { seq: 0, messages: [...before, { role: 'user', content: run.start.prompt }] });
    }
    // A host run this host's protocol did not start (`deepdesk run --detach`'s, a listener's before a restart): followed from its latest event.
    let followed = this.book.followed.get(threadId);
    if (followed === undefined) {
      followed = { seq: this.context.runs.going(threadId)?.seq ?? 0, messages: this.book.threads.exists(threadId) ? this.book.threads.load(threadId).messages : [] };
      this.book.followed.set(threadId, followed);
    }
    const todos = this.book.threads.range(threadId, undefined, 0)?.state.todos ?? [];
    const folder = run.start?.folder ?? this.book.threads.get(threadId)?.folder;
    const translator = new EventTranslator({ runId: run.record.run_id, threadId, modes: new Set(run.request.stream_mode), stream: run.stream, messages: followed.messages, todos, folder });
    run.translator = translator;
    run.seq = followed.seq;
    translator.begin();
    if (run.answers !== undefined) {
      // Each answer goes to the approval it was accepted for, or none does: one answered elsewhere meanwhile is never replaced by another.
      const pending = new Set(this.questions(threadId).map((q) => q.key));
      if (!run.answers.every((answer) => pending.has(answer.key))) throw new Error(`The approvals this resume answers were answered elsewhere meanwhile; nothing was answered. ${RESUME_BY_ID}`);
      const by = run.request.client !== undefined ? { answeredBy: run.request.client } : {};
      for (const { key, decision } of run.answers) this.context.runs.answer(threadId, key, { ...decision, answeredIn: 'protocol', ...by } as ApprovalDecision);
    }
    const attached = this.context.runs.attach(connection, threadId, followed.seq, true);
    for (const { seq, event } of attached.events) this.onEvent(run, seq, event);
    if (attached.end !== undefined) return this.onEnd(run, attached.end);
    if (attached.approvals.length > 0) this.onApproval(run);
  }

  private connect(run: LiveRun): ProtocolConnection {
    const closers: Array<() => void> = [];
    let closed = false;
    return {
      id: `agent-protocol:${run.record.run_id}`,
      client: 'agent-protocol',
      get closed() {
        return closed;
      },
      send: (event, payload) => {
        if (closed || run.translator === undefined) return;
        const p = payload as { seq?: number; event?: AgentEvent };
        if (event === 'run.event' && p.seq !== undefined && p.event !== undefined) {
          // The host run goes on after the approval this run waited on was answered (anywhere): so does this run.
          if (run.waiting === true && this.questions(run.record.thread_id).length === 0) this.revive(run);
          this.onEvent(run, p.seq, p.event);
        } else if (event === 'run.approval') this.onApproval(run);
        else if (event === 'run.end') {
          const end = payload as RunEnd;
          if (run.waiting === true) {
            // Its wait ended unanswered (stopped, a new message): it stays interrupted. Answered and finished: it ends.
            if (end.state !== 'done') {
              run.waiting = false;
              run.stream.unpause();
              run.connection?.close();
              this.dropTemporary(run);
              return;
            }
            this.revive(run);
          }
          this.onEnd(run, end);
        }
      },
      ask: () => Promise.reject(new Error('an Agent Protocol run answers nothing')),
      onClose: (listener) => closers.push(listener),
      close: () => {
        if (closed) return;
        closed = true;
        for (const close of closers) close();
      },
    };
  }

  private onEvent(run: LiveRun, seq: number, event: AgentEvent): void {
    if ((isEnded(run.record.status) && run.waiting !== true) || seq <= run.seq) return;
    run.seq = seq;
    run.translator!.event(event);
    const followed = this.book.followed.get(run.record.thread_id);
    if (followed !== undefined && seq > followed.seq) {
      followed.seq = seq;
      followed.messages = run.translator!.messages;
    }
  }

  private onApproval(run: LiveRun): void {
    if (isEnded(run.record.status)) return;
    const asking = this.questions(run.record.thread_id);
    if (asking.length === 0) return;
    // What a bare resume may answer is what a client was sent: this run's parts once read, its `wait` or `join` answer.
    const interrupt = this.book.interrupts.show(run.record.thread_id, asking, false);
    run.translator!.interrupt([interrupt], () => this.book.interrupts.delivered(run.record.thread_id, interrupt.id));
    // The host run waits for the person (the window shows the approval too): this run is interrupted,
    // not finished — its stream, `wait` and `join` answer the interrupt — and it stays attached to go on once answered.
    run.waiting = true;
    this.finish(run, 'interrupted', { keepConnection: true });
  }

  /** A waiting run whose approval was answered goes on: `running` again, its stream open for a join or a rejoin. */
  private revive(run: LiveRun): void {
    if (run.waiting !== true) return;
    run.waiting = false;
    run.stream.reopen();
    this.setStatus(run, 'running');
  }

  private onEnd(run: LiveRun, end: RunEnd): void {
    if (isEnded(run.record.status)) return;
    this.book.followed.delete(run.record.thread_id);
    if (end.state === 'done') this.finish(run, 'success');
    else if (end.state === 'stopped' || run.cancelled) this.finish(run, 'interrupted');
    else this.fail(run, end.error ?? `The run ended: ${end.reason}.`);
  }

  private fail(run: LiveRun, message: string): void {
    if (isEnded(run.record.status)) return;
    if (run.cancelled) return this.finish(run, 'interrupted');
    if (run.translator === undefined) {
      run.stream.push('metadata', { run_id: run.record.run_id, attempt: 1 });
      run.stream.push('error', { error: 'Error', message });
      run.stream.last = { __error__: { error: 'Error', message } };
    } else run.translator.error(message);
    this.finish(run, 'error');
  }

  private finish(run: LiveRun, status: ProtocolRunStatus, options: { keepConnection?: boolean } = {}): void {
    this.setStatus(run, status);
    if (options.keepConnection !== true) run.connection?.close();
    run.stream.end({ paused: run.waiting === true });
    // Ended runs keep their parts for a late join, the newest few: older ones answer from their record and thread. A waiting run is kept: it may go on.
    const ended = [...this.book.live.values()].filter((r) => isEnded(r.record.status) && r.waiting !== true);
    for (const old of ended.slice(0, Math.max(0, ended.length - KEPT_ENDED_RUNS))) {
      this.book.live.delete(old.record.run_id);
      old.stream.dispose();
    }
    const threadId = run.record.thread_id;
    if (run.waiting !== true) this.dropTemporary(run);
    this.next(threadId);
  }

  /** A stateless run's thread goes with it once it is over (the reference's `on_completion: delete`). */
  private dropTemporary(run: LiveRun): void {
    const threadId = run.record.thread_id;
    if (!run.temporary) return;
    void this.context.runs
      .deleteThread(threadId)
      .then(() => this.book.records.deleteThread(threadId))
      .catch((err: unknown) => this.context.log(`a stateless run's thread ${threadId} was not deleted: ${err instanceof Error ? err.message : String(err)}`));
  }

  private setStatus(run: LiveRun, status: ProtocolRunStatus): void {
    run.record.status = status;
    run.record.updated_at = new Date().toISOString();
    this.book.records.setStatus(run.record.run_id, status, run.record.updated_at);
  }
}

function isEnded(status: ProtocolRunStatus): boolean {
  return status !== 'pending' && status !== 'running';
}
