// The runs the agent host owns (SPEC §16): each one's events kept for clients that attach
// later, sent to every client watching it, its approvals asked of whoever is watching (the
// first answer wins, and the question is withdrawn from the others), its state recorded in
// SQLite so that `deepdesk agents` lists it and a host that dies leaves it marked
// interrupted, never lost.

import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { ApprovalBroker } from '../../core/agent/middleware/approval';
import { AbortedError } from '../../core/models/errors';
import type { AgentEvent, ApprovalDecision, ApprovalRequest } from '../../core/agent/types';
import { AGENT_STATE_WORDS, type Settings } from '../contract';
import type { ApprovalPreview } from '../approvals/approval-preview';
import { agentStateOf } from '../session/agent-board';
import { startHeadlessRun, type HeadlessRun } from '../session/headless-run';
import type { ApprovePolicy, RunActivity, RunEnd, StartRunParams } from '../session/run-requests';
import { FolderSessionPool } from '../session/session-pool';
import { raiseThreadCaps, touchedThread } from '../usage/budget-tree';
import { ApprovalService } from '../approvals/approval-service';
import { CheckpointStore } from '../../core/checkpoints/store';
import { deleteThread } from '../threads/delete-thread';
import { ThreadStore, type ThreadSource } from '../threads/thread-store';
import { capText } from '../threads/thread-page';
import type { SecretStore } from '../base/secret-store';
import { NO_SECRETS, SettingsService } from '../settings/settings-service';
import { CandidateRecords } from '../threads/candidate-records';
import { RunRecords, type RunState } from '../threads/run-records';
import { DeferredSync } from '../../core/backends/store/store-db';
import { asHostError, HostRequestError, type HostConnection } from '../base/host-service';
import { agentLines, endOf, goalOf, HISTORY_LIMITS, recordEnd, threadHistory, type AgentLine, type AttachedRun, type PendingQuestion, type ThreadHistory } from './run-views';

interface Watcher {
  connection: HostConnection;
  interactive: boolean;
}

interface LiveRun {
  threadId: string;
  folder: string;
  state: RunState;
  events: Array<{ seq: number; event: AgentEvent }>;
  seq: number;
  says: string[];
  watchers: Map<string, Watcher>;
  questions: Map<string, { request: ApprovalRequest; preview?: ApprovalPreview; runsIn?: string; answer: (decision: ApprovalDecision) => void }>;
  approve: ApprovePolicy;
  /** The person's message that started it, and how many messages the thread had before. */
  prompt: string;
  historyEnd: number;
  /** The connection that started it while it stays attached (a `run` without --detach). */
  starter?: string;
  run?: HeadlessRun;
  end?: RunEnd;
  /** Where the thread came from, recorded once its row exists (a new thread's is made by the run's first save). */
  source?: ThreadSource;
  /** Forces the run's commits to the disk (one fsync for all of them): called before its end is reported. */
  synced?: () => void;
}

/** Events kept per run for clients that attach later; beyond it the oldest go. */
const KEPT_EVENTS = 50_000;
/** Ended runs kept in memory (their events) for a late attach. */
const KEPT_ENDED = 20;

const NOBODY_TO_ASK = 'Nobody is available to approve this (non-interactive run). Continue without it, or tell the person to rerun with --approve auto.';
const DENIED = 'This run does not allow actions that need approval (--approve deny). Continue without it or explain what you would need.';

export class HostRuns {
  private readonly live = new Map<string, LiveRun>();
  private readonly watchers = new Set<(activity: RunActivity) => void>();
  private readonly records: RunRecords;
  private readonly threads: ThreadStore;
  private readonly approvals: ApprovalService;
  private readonly candidates: CandidateRecords;
  /** Folder sessions kept warm between runs (session-pool.ts). */
  private readonly sessions = new FolderSessionPool();
  /** A run's commits are made durable together at its end, not one fsync each (store-db.ts). */
  private readonly durability: DeferredSync;
  /** Whether a thread works (or waits for the person) outside these runs: in a window's app, an editor's session. */
  private elsewhere: (threadId: string) => Promise<boolean> = () => Promise.resolve(false);
  /** settings.json, read live (opened at the first look): what the host's protocols read beside their runs. */
  private settings: SettingsService | undefined;

  constructor(private readonly options: { dataDir: string; db: Database.Database; version: string; secrets: SecretStore; reviewer?: string }) {
    this.records = new RunRecords(options.db);
    this.threads = new ThreadStore(options.db);
    this.approvals = new ApprovalService(options.db, async () => ({}));
    this.candidates = new CandidateRecords(options.db);
    this.durability = new DeferredSync(options.db);
  }

  /** Settings as saved now, without keys (a reader that tells nobody: the sessions tell the person of a bad file). */
  savedSettings(): Omit<Settings, 'apiKeys'> {
    return (this.settings ??= new SettingsService(this.options.dataDir, NO_SECRETS, { readOnly: true })).raw();
  }

  /** Where else threads work (the host's windows and editors): a thread never has two runs, nor is deleted while it works. */
  workElsewhereFrom(check: (threadId: string) => Promise<boolean>): void {
    this.elsewhere = check;
  }

  /** Whether the thread works (or waits for the person) in a window's app or an editor's session. */
  worksElsewhere(threadId: string): Promise<boolean> {
    return this.elsewhere(threadId);
  }

  /**
   * Runs another host left going are interrupted: this one serves the data folder's socket, so
   * that host is gone (it stops when it loses its socket). Told in their thread, listed as such.
   */
  interruptOrphans(): void {
    // A goal pursued by a run of a host that is gone is paused, with the reason (SPEC §21).
    this.threads.pauseOrphanedGoals('the agent host stopped while the goal was pursued; send a message (or run again) to go on');
    for (const orphan of this.records.interruptDead()) {
      if (this.threads.exists(orphan.threadId)) {
        this.threads.addNote(orphan.threadId, { kind: 'interrupted', text: 'Note: the previous run of this thread was interrupted (the agent host stopped). Its last step may not have finished.', display: 'The run was interrupted: the agent host stopped.' });
      }
    }
  }

  busy(): boolean {
    return [...this.live.values()].some((run) => run.end === undefined);
  }

  async start(connection: HostConnection, params: StartRunParams): Promise<{ threadId: string }> {
    const threadId = params.request.threadId ?? randomUUID();
    const paused = this.live.get(threadId);
    if (paused !== undefined && paused.end === undefined && paused.state === 'budget') return this.followPaused(connection, paused, params);
    const notWorking = () => {
      if (this.has(threadId)) throw new HostRequestError(`thread ${threadId} is already working: deepdesk attach ${threadId} to follow it, or deepdesk stop ${threadId}`, 'failed');
    };
    notWorking();
    // A thread never has two runs: not one in a window or an editor and one here.
    if (params.request.threadId !== undefined && (await this.elsewhere(threadId))) throw workingElsewhereError(threadId);
    // Looked at again after the wait: another start may have begun meanwhile.
    notWorking();
    const run: LiveRun = {
      threadId,
      folder: params.request.folder,
      state: 'working',
      events: [],
      seq: 0,
      says: [],
      watchers: new Map([[connection.id, { connection, interactive: params.interactive && !params.detach }]]),
      questions: new Map(),
      approve: params.approve,
      prompt: params.request.prompt,
      historyEnd: this.threads.get(threadId)?.messageCount ?? 0,
      ...(params.detach ? {} : { starter: connection.id }),
      ...(sourceOf(params, connection) !== undefined ? { source: sourceOf(params, connection)! } : {}),
    };
    this.live.set(threadId, run);
    connection.onClose(() => this.unwatch(run, connection.id));
    run.synced = this.durability.hold();
    try {
      const { candidateSet, ...request } = params.request;
      run.run = await startHeadlessRun({ ...request, threadId, ...(candidateSet !== undefined ? { budgetSet: candidateSet } : {}) }, { ...this.options, sessions: this.sessions }, {
        say: (line) => {
          run.says.push(line);
          this.tell(run, 'run.say', { threadId, line });
        },
        emit: (event) => this.event(run, event),
        broker: this.broker(run),
      });
    } catch (err) {
      this.live.delete(threadId);
      try {
        run.synced();
      } catch {
        // The run's own error is the one to tell.
      }
      throw asHostError(err);
    }
    run.folder = run.run.folder;
    // A window already showing the thread was not the one that sent this message: it shows it from here.
    if (run.prompt.trim() !== '') this.event(run, { type: 'user_message', threadId, text: run.prompt });
    this.activity({ kind: 'started', threadId, folder: run.folder });
    if (params.detach) this.unwatch(run, connection.id);
    void run.run.result.then(
      (result) => this.ended(run, { ...endOf(result), ...goalOf(this.threads.goal(threadId)) }),
      (err: unknown) => this.ended(run, { state: 'failed', reason: 'error', text: '', error: err instanceof Error ? err.message : String(err) }),
    );
    return { threadId };
  }


  /**
   * `run --thread ID` of a thread paused at a cap (SPEC §26): it follows that run rather than
   * starting another — its `--max-cost` raising the run's cap (the thread's own, in settings.json)
   * — and hears where it stands: going on, or the paused line again.
   */
  private async followPaused(connection: HostConnection, run: LiveRun, params: StartRunParams): Promise<{ threadId: string }> {
    const raised = params.request.budget !== undefined && (await raiseThreadCaps(this.options.dataDir, this.options.secrets, run.threadId, params.request.budget));
    if (!params.detach) {
      run.watchers.set(connection.id, { connection, interactive: params.interactive });
      connection.onClose(() => this.unwatch(run, connection.id));
    }
    touchedThread(this.options.db, run.threadId);
    const last = run.events.findLast((e) => e.event.type === 'paused');
    const tell = () => {
      if (run.state === 'budget' && last !== undefined) connection.send('run.event', { threadId: run.threadId, seq: last.seq, event: last.event });
    };
    // Not raised: said at once. Raised: the session hears settings.json change in a moment; still paused then, said again.
    if (!raised) queueMicrotask(tell);
    else setTimeout(tell, 2_000).unref();
    return { threadId: run.threadId };
  }

  attach(connection: HostConnection, threadId: string, afterSeq: number, interactive: boolean): AttachedRun {
    const run = this.live.get(threadId);
    // Attached by the person: what the thread spends unattended starts again (SPEC §26).
    touchedThread(this.options.db, threadId);
    // A thread that is not running: what it holds, and how its latest run ended.
    if (run?.end !== undefined || run === undefined) {
      const record = this.records.get(threadId);
      const end = run?.end ?? (record !== undefined ? recordEnd(record) : undefined);
      if (record === undefined || end === undefined) throw new HostRequestError(`thread ${threadId} has no run in the agent host`, 'not_found');
      return { threadId, folder: record.folder, state: end.state, history: this.history(threadId), events: [], dropped: 0, says: [], approvals: [], end, ...goalOf(this.threads.goal(threadId)) };
    }
    if (!run.watchers.has(connection.id)) {
      run.watchers.set(connection.id, { connection, interactive });
      connection.onClose(() => this.unwatch(run, connection.id));
    }
    const first = run.events[0]?.seq ?? run.seq + 1;
    const before = this.history(threadId, run.historyEnd);
    return {
      threadId,
      folder: run.folder,
      state: run.state,
      // The person's message of this run: the events that follow are its answer.
      history: { ...before, items: [...before.items, { kind: 'user', text: capText(run.prompt, HISTORY_LIMITS.capChars).text, index: run.historyEnd }] },
      events: run.events.filter((e) => e.seq > afterSeq),
      dropped: Math.max(0, first - 1 - afterSeq),
      says: [...run.says],
      approvals: this.pending(run),
      ...goalOf(this.threads.goal(threadId)),
    };
  }

  /** The thread's latest items before message `before` (all of them by default). */
  history(threadId: string, before?: number): ThreadHistory {
    return threadHistory(this.threads, threadId, before);
  }

  /** How the thread's latest run ended, as its record says (undefined while it goes, or when it has none). */
  recordedEnd(threadId: string): RunEnd | undefined {
    const record = this.records.get(threadId);
    return record === undefined ? undefined : recordEnd(record);
  }

  detach(connection: HostConnection, threadId: string): void {
    const run = this.live.get(threadId);
    if (run !== undefined) this.unwatch(run, connection.id);
  }

  /** Whether a window shows a folder (it can answer the approvals of runs there). */
  private windowOn: (folder: string) => boolean = () => false;

  answeredByWindowsOf(windowOn: (folder: string) => boolean): void {
    this.windowOn = windowOn;
  }

  onActivity(listener: (activity: RunActivity) => void): () => void {
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }

  /** A going run's pending questions and the number of its latest event (for a window showing its thread). */
  going(threadId: string): { folder: string; seq: number; questions: PendingQuestion[] } | undefined {
    const run = this.live.get(threadId);
    if (run === undefined || run.end !== undefined || run.run === undefined) return undefined;
    return { folder: run.folder, seq: run.seq, questions: this.pending(run) };
  }

  /** Whether a run of the thread is going here. */
  has(threadId: string): boolean {
    const run = this.live.get(threadId);
    return run !== undefined && run.end === undefined;
  }

  /** The first answer wins; the others are told the question is gone. */
  answer(threadId: string, key: string, decision: ApprovalDecision): void {
    const question = this.live.get(threadId)?.questions.get(key);
    if (question === undefined) throw new HostRequestError('that approval is no longer pending', 'not_found');
    question.answer(decision);
  }

  /** `by`: who stopped it, when not the person ("node over the Agent Protocol"): the thread says so. */
  async stop(threadId: string, by?: string): Promise<RunEnd> {
    const run = this.live.get(threadId);
    if (run?.run === undefined || run.end !== undefined) {
      const record = this.records.get(threadId);
      const word = record !== undefined ? ` (${AGENT_STATE_WORDS[agentStateOf(record.state)]})` : '';
      throw new HostRequestError(`thread ${threadId} is not running${word}`, 'not_found');
    }
    await run.run.stop(by);
    await run.run.result.catch(() => undefined);
    return run.end ?? { state: 'stopped', reason: 'aborted', text: '' };
  }

  /**
   * Deletes a thread with everything it owns (delete-thread.ts), its run here stopped first;
   * refused while it works in a window or an editor. The windows on its folder are told, of
   * its approvals too: a window's app keeps its own ApprovalService, which hears nothing of this one.
   */
  async deleteThread(threadId: string): Promise<void> {
    if (await this.elsewhere(threadId)) throw workingElsewhereError(threadId);
    if (this.has(threadId)) await this.stop(threadId).catch(() => undefined);
    const folder = this.threads.get(threadId)?.folder;
    const hadApprovals = this.approvals.pending(threadId).length > 0;
    const checkpoints = CheckpointStore.open(this.options.dataDir);
    try {
      deleteThread(threadId, { store: this.threads, approvals: this.approvals, checkpoints });
    } finally {
      checkpoints.close();
    }
    this.live.delete(threadId);
    if (folder === undefined) return;
    if (hadApprovals) this.activity({ kind: 'approvals', threadId, folder });
    this.activity({ kind: 'deleted', threadId, folder });
  }

  list(): AgentLine[] {
    this.records.interruptDead();
    return agentLines(this.records, this.threads, this.candidates);
  }

  /** The host is stopping: its runs end as interrupted (their approvals stay unanswered). */
  async close(): Promise<void> {
    const going = [...this.live.values()].filter((run) => run.end === undefined && run.run !== undefined);
    await Promise.all(going.map((run) => run.run!.stop()));
    await Promise.all(going.map((run) => run.run!.result.catch(() => undefined)));
    await this.sessions.close();
    this.settings?.close();
  }

  private event(run: LiveRun, event: AgentEvent): void {
    this.recordSource(run);
    run.seq += 1;
    run.events.push({ seq: run.seq, event });
    if (run.events.length > KEPT_EVENTS) run.events.splice(0, run.events.length - KEPT_EVENTS);
    this.tell(run, 'run.event', { threadId: run.threadId, seq: run.seq, event });
    // Paused at a cap (SPEC §26) until it goes on.
    if (event.type === 'paused' && run.end === undefined) this.setState(run, event.line !== undefined ? 'budget' : run.questions.size > 0 ? 'needs-you' : 'working');
    if (run.run !== undefined) this.activity({ kind: 'event', threadId: run.threadId, folder: run.folder, seq: run.seq, event });
  }

  private activity(activity: RunActivity): void {
    for (const listener of this.watchers) {
      try {
        listener(activity);
      } catch {
        // A window's trouble is not the run's.
      }
    }
  }

  private tell(run: LiveRun, event: string, payload: unknown): void {
    for (const watcher of run.watchers.values()) watcher.connection.send(event, payload);
  }

  private setState(run: LiveRun, state: RunState): void {
    if (run.state === state) return;
    run.state = state;
    this.tell(run, 'run.state', { threadId: run.threadId, state });
  }

  private unwatch(run: LiveRun, connectionId: string): void {
    run.watchers.delete(connectionId);
    if (run.starter === connectionId) delete run.starter;
  }

  /** The thread's source, once its row exists (the first source stays). */
  private recordSource(run: LiveRun): void {
    if (run.source === undefined || !this.threads.exists(run.threadId)) return;
    this.threads.setSource(run.threadId, run.source);
    delete run.source;
  }

  private ended(run: LiveRun, end: RunEnd): void {
    this.recordSource(run);
    // Its thread, messages, record and ledger rows are on the disk before anyone hears it ended.
    try {
      run.synced?.();
    } catch (err) {
      end = { ...end, state: 'failed', reason: 'error', error: `its thread could not be written to the disk: ${err instanceof Error ? err.message : String(err)}` };
    }
    run.end = end;
    run.state = end.state;
    this.tell(run, 'run.end', { threadId: run.threadId, ...end });
    this.activity({ kind: 'ended', threadId: run.threadId, folder: run.folder });
    run.watchers.clear();
    const ended = [...this.live.values()].filter((r) => r.end !== undefined);
    for (const old of ended.slice(0, Math.max(0, ended.length - KEPT_ENDED))) this.live.delete(old.threadId);
  }

  private broker(run: LiveRun): ApprovalBroker {
    return {
      decide: async (request, signal) => {
        if (run.approve === 'auto') return { type: 'approve' };
        if (run.approve === 'deny') return { type: 'reject', message: DENIED };
        const someoneCanAnswer = [...run.watchers.values()].some((w) => w.interactive) || this.windowOn(run.folder);
        // A foreground run with nobody at a terminal keeps today's answer; a detached one waits for someone to attach.
        if (!someoneCanAnswer && run.starter !== undefined) return { type: 'reject', message: NOBODY_TO_ASK };
        return this.ask(run, request, signal);
      },
    };
  }

  private pending(run: LiveRun): PendingQuestion[] {
    return [...run.questions].map(([key, q]) => ({ key, request: q.request, ...(q.preview !== undefined ? { preview: q.preview } : {}), ...(q.runsIn !== undefined ? { runsIn: q.runsIn } : {}) }));
  }

  private async ask(run: LiveRun, request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    // The host names the question, never the model: ids a model chose may coincide (a
    // subagent's call and its parent's), and an answer must reach the call that was shown.
    const key = randomUUID();
    // The diff the window would show beside it (an edit's, a write's), for a terminal to show too.
    const preview = await run.run?.previewApproval(request).catch(() => undefined);
    const runsIn = request.toolName === 'execute' ? run.run?.runsIn : undefined;
    return new Promise<ApprovalDecision>((resolve, reject) => {
      if (signal.aborted) return reject(new AbortedError());
      const settle = () => {
        run.questions.delete(key);
        signal.removeEventListener('abort', onAbort);
        this.tell(run, 'run.approvalGone', { threadId: run.threadId, key });
        this.activity({ kind: 'approvals', threadId: run.threadId, folder: run.folder });
        if (run.questions.size === 0 && run.end === undefined) this.setState(run, 'working');
      };
      const onAbort = () => {
        settle();
        reject(new AbortedError());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      run.questions.set(key, {
        request,
        ...(preview !== undefined ? { preview } : {}),
        ...(runsIn !== undefined ? { runsIn } : {}),
        answer: (decision) => {
          settle();
          resolve(decision);
        },
      });
      this.setState(run, 'needs-you');
      this.tell(run, 'run.approval', { threadId: run.threadId, key, request, ...(preview !== undefined ? { preview } : {}), ...(runsIn !== undefined ? { runsIn } : {}) });
      this.activity({ kind: 'approvals', threadId: run.threadId, folder: run.folder });
    });
  }
}


/** Where a run's thread comes from: what the request says, else the starting client (a terminal's `run`). */
function sourceOf(params: StartRunParams, connection: HostConnection): ThreadSource | undefined {
  if (params.source !== undefined) return params.source;
  return connection.client === 'run' ? { kind: 'run' } : undefined;
}


function workingElsewhereError(threadId: string): HostRequestError {
  return new HostRequestError(`thread ${threadId} is working in a window or an editor: wait for it or stop it (deepdesk stop ${threadId})`, 'failed');
}
