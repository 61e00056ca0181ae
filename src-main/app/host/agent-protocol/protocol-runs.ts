// The Agent Protocol's runs (SPEC §19): each one a host run (runs.ts), recorded as the
// reference server's Run objects, its events kept as stream parts (run-stream.ts). A run that
// would ask approval ends `success` and leaves its thread `interrupted` (Deep Agents'
// human-in-the-loop interrupt) while the host run waits; a run resuming with decisions answers
// those questions and follows the same host run on.

import { randomUUID } from 'node:crypto';
import { isAbsolute } from 'node:path';
import type { ApprovalMode } from '../../../core/agent/permissions/modes';
import type { SubagentSpec } from '../../../core/agent/middleware/subagents';
import type { AgentEvent, ApprovalDecision, ApprovalRequest, ChatMessage } from '../../../core/agent/types';
import { ThreadStore } from '../../threads/thread-store';
import type { PendingQuestion, RunEnd } from '../runs';
import type { HostConnection } from '../service-types';
import type { ProtocolContext, ProtocolInterrupt, ProtocolThreadStatus, ThreadActivity } from './context';
import { ProtocolHttpError } from './http';
import { resolveAssistant, type ResolvedAssistant } from './assistants-routes';
import { promptFromInput } from './messages';
import { EventTranslator } from './event-translator';
import { RunStream, type StreamMode } from './run-stream';

export type ProtocolRunStatus = 'pending' | 'running' | 'success' | 'error' | 'timeout' | 'interrupted';
export type MultitaskStrategy = 'reject' | 'interrupt' | 'rollback' | 'enqueue';

/** A run as the reference server answers it. */
export interface ProtocolRun {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  created_at: string;
  updated_at: string;
  status: ProtocolRunStatus;
  metadata: Record<string, unknown>;
  multitask_strategy: MultitaskStrategy;
  kwargs: Record<string, unknown>;
}

/** What a run is asked to do (the checked body of a run request). */
export interface RunRequest {
  assistant_id: string;
  input?: unknown;
  command?: { resume?: unknown } | undefined;
  config?: { configurable?: Record<string, unknown> | undefined } | undefined;
  metadata?: Record<string, unknown> | undefined;
  stream_mode: StreamMode[];
  multitask_strategy: MultitaskStrategy;
  if_not_exists?: 'reject' | 'create' | undefined;
  on_completion?: 'delete' | 'keep' | undefined;
}

const BUSY = 'Thread is already running a task. Wait for it to finish or choose a different multitask strategy.';
const ALLOWED_DECISIONS = ['approve', 'edit', 'reject'] as const;

interface LiveRun {
  record: ProtocolRun;
  request: RunRequest;
  stream: RunStream;
  /** The host run's request, checked at creation (none for a resume): `saved` mode when the run names none; `agent`, a subagent's name. */
  start?: { folder: string; prompt: string; mode: ApprovalMode | 'saved'; model?: string; agent?: string };
  decisions?: ApprovalDecision[];
  translator?: EventTranslator;
  connection?: ProtocolConnection;
  /** A thread made for a stateless run: deleted when it ends (`on_completion: delete`). */
  temporary: boolean;
  cancelled: boolean;
}

/** The host run a thread's protocol runs follow: the last event seen and the messages so far. */
interface Followed {
  seq: number;
  messages: ChatMessage[];
}

interface ProtocolConnection extends HostConnection {
  close(): void;
}

/** Ended runs whose stream parts stay in memory for a join or rejoin. */
const KEPT_ENDED_RUNS = 20;

export class ProtocolRuns implements ThreadActivity {
  private readonly live = new Map<string, LiveRun>();
  /** Per thread: its going run, then the enqueued ones. */
  private readonly queues = new Map<string, LiveRun[]>();
  private readonly followed = new Map<string, Followed>();
  private readonly threads: ThreadStore;

  constructor(
    private readonly context: ProtocolContext,
    /** Whether a thread exists over the protocol before any Deepdesk thread holds it (threads routes). */
    private readonly threadKnown: (threadId: string) => boolean = () => false,
  ) {
    this.threads = new ThreadStore(context.db);
    context.db.exec(`CREATE TABLE IF NOT EXISTS agent_protocol_runs (
      run_id TEXT PRIMARY KEY,
      thread_id TEXT NOT NULL,
      assistant_id TEXT NOT NULL,
      status TEXT NOT NULL,
      metadata TEXT NOT NULL,
      multitask_strategy TEXT NOT NULL,
      kwargs TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS agent_protocol_runs_thread ON agent_protocol_runs(thread_id, created_at);`);
    // A host that stopped left its runs unfinished: they were interrupted.
    context.db.prepare(`UPDATE agent_protocol_runs SET status = 'interrupted' WHERE status IN ('pending', 'running')`).run();
  }

  threadExists(threadId: string): boolean {
    return this.threads.exists(threadId) || this.threadKnown(threadId);
  }

  /** Creates a run on `threadId` (a new temporary thread when undefined: a stateless run). */
  async create(threadId: string | undefined, request: RunRequest): Promise<{ run: ProtocolRun; stream: RunStream }> {
    const temporary = threadId === undefined && request.on_completion !== 'keep';
    const thread = threadId ?? randomUUID();
    const assistant = assistantOf(this.context, request.assistant_id);
    if (threadId !== undefined && !this.threadExists(threadId) && request.if_not_exists !== 'create') throw new ProtocolHttpError(404, `Thread with ID ${threadId} not found`);
    const resume = request.command !== undefined && request.command.resume !== undefined ? request.command.resume : undefined;
    const going = this.queue(thread).find((run) => !isEnded(run.record.status));
    const asking = this.questions(thread);
    let decisions: ApprovalDecision[] | undefined;
    let start: LiveRun['start'];
    if (resume !== undefined) {
      if (asking.length === 0) throw new ProtocolHttpError(409, `Thread ${thread} has no interrupt to resume.`);
      decisions = decisionsOf(resume, asking);
    } else start = this.startOf(request, assistant.subagent);
    if (going !== undefined && request.multitask_strategy === 'reject') throw new ProtocolHttpError(422, BUSY);
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
    const run: LiveRun = { record, request, stream: new RunStream(), temporary, cancelled: false, ...(start ? { start } : {}), ...(decisions ? { decisions } : {}) };
    this.insert(record);
    this.live.set(record.run_id, run);
    this.queue(thread).push(run);
    if (going !== undefined && request.multitask_strategy !== 'enqueue') {
      // interrupt (Deep Agents' update_async_task) and rollback: the runs before it stop first, the going one last.
      const before = this.queue(thread).filter((r) => r !== run && !isEnded(r.record.status));
      for (const old of before.reverse()) {
        await this.cancel(thread, old.record.run_id);
        if (request.multitask_strategy === 'rollback') await this.delete(thread, old.record.run_id);
      }
    }
    this.next(thread);
    return { run: this.copy(record), stream: run.stream };
  }

  get(threadId: string, runId: string): ProtocolRun | undefined {
    const live = this.live.get(runId);
    if (live !== undefined) return live.record.thread_id === threadId ? this.copy(live.record) : undefined;
    const row = this.context.db.prepare('SELECT * FROM agent_protocol_runs WHERE run_id = ? AND thread_id = ?').get(runId, threadId) as RunRow | undefined;
    return row === undefined ? undefined : fromRow(row);
  }

  list(threadId: string, options: { limit: number; offset: number; status?: string | undefined }): ProtocolRun[] {
    const rows = this.context.db
      .prepare(`SELECT * FROM agent_protocol_runs WHERE thread_id = ? ${options.status !== undefined ? 'AND status = ?' : ''} ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`)
      .all(...[threadId, ...(options.status !== undefined ? [options.status] : []), options.limit, options.offset]) as RunRow[];
    return rows.map((row) => this.live.get(row.run_id)?.record ?? fromRow(row)).map((r) => this.copy(r));
  }

  /** The run's stream parts, kept while the host is up (undefined for an unknown or older run). */
  stream(threadId: string | undefined, runId: string): RunStream | undefined {
    const live = this.live.get(runId);
    return live !== undefined && (threadId === undefined || live.record.thread_id === threadId) ? live.stream : undefined;
  }

  /** Stops a run: a going one's host run ends (its commands' process trees too); it is `interrupted`. */
  async cancel(threadId: string, runId: string): Promise<void> {
    const run = this.live.get(runId);
    if (run === undefined || run.record.thread_id !== threadId) {
      if (this.get(threadId, runId) === undefined) throw new ProtocolHttpError(404, 'Run not found');
      return;
    }
    if (isEnded(run.record.status)) return;
    run.cancelled = true;
    if (run.record.status === 'pending') {
      this.finish(run, 'interrupted');
      return;
    }
    if (this.context.runs.has(threadId)) await this.context.runs.stop(threadId).catch(() => undefined);
    await run.stream.finished();
  }

  /** Deletes a run; a going one is cancelled first (the reference deletes it whatever it does). */
  async delete(threadId: string, runId: string): Promise<void> {
    if (this.get(threadId, runId) === undefined) throw new ProtocolHttpError(404, 'Run not found');
    const run = this.live.get(runId);
    if (run !== undefined && !isEnded(run.record.status)) await this.cancel(threadId, runId);
    this.live.delete(runId);
    run?.stream.dispose();
    this.context.db.prepare('DELETE FROM agent_protocol_runs WHERE run_id = ?').run(runId);
  }

  status(threadId: string): ProtocolThreadStatus {
    if (this.queue(threadId).some((run) => !isEnded(run.record.status))) return 'busy';
    if (this.context.runs.has(threadId)) return this.questions(threadId).length > 0 ? 'interrupted' : 'busy';
    const last = this.context.db.prepare('SELECT status FROM agent_protocol_runs WHERE thread_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1').get(threadId) as { status: string } | undefined;
    return last?.status === 'error' ? 'error' : 'idle';
  }

  interrupts(threadId: string): ProtocolInterrupt[] {
    if (this.queue(threadId).some((run) => !isEnded(run.record.status))) return [];
    const asking = this.questions(threadId);
    return asking.length === 0 ? [] : [interruptOf(asking)];
  }

  async cancelAll(threadId: string): Promise<void> {
    for (const run of [...this.queue(threadId)].reverse()) await this.cancel(threadId, run.record.run_id);
    if (this.context.runs.has(threadId)) await this.context.runs.stop(threadId).catch(() => undefined);
  }

  /** Cancels every going run (the host stops). */
  async close(): Promise<void> {
    for (const [threadId, queue] of this.queues) for (const run of [...queue].reverse()) await this.cancel(threadId, run.record.run_id);
  }

  private questions(threadId: string): PendingQuestion[] {
    return this.context.runs.going(threadId)?.questions ?? [];
  }

  private queue(threadId: string): LiveRun[] {
    let queue = this.queues.get(threadId);
    if (queue === undefined) this.queues.set(threadId, (queue = []));
    return queue;
  }

  private startOf(request: RunRequest, subagent: SubagentSpec | undefined): NonNullable<LiveRun['start']> {
    const configurable = request.config?.configurable ?? {};
    const folder = stringField(configurable, 'folder') ?? this.context.defaultFolder;
    if (folder === undefined) throw new ProtocolHttpError(422, 'No folder to work in: pass config.configurable.folder (an absolute path), or start the host with --folder.');
    if (!isAbsolute(folder)) throw new ProtocolHttpError(422, 'config.configurable.folder must be an absolute path.');
    const refusal = this.context.folderRefusal(folder);
    if (refusal !== undefined) throw new ProtocolHttpError(403, refusal);
    // None named: the folder's saved mode, as the window and an editor follow it.
    const mode = stringField(configurable, 'mode') ?? 'saved';
    if (mode !== 'saved' && !(['ask', 'edit', 'auto', 'plan'] as const).includes(mode as ApprovalMode)) throw new ProtocolHttpError(422, 'config.configurable.mode must be ask, edit, auto or plan.');
    const model = stringField(configurable, 'model');
    if (model !== undefined && !/^[\w.-]+:.+$/.test(model)) throw new ProtocolHttpError(422, 'config.configurable.model must be provider:model.');
    const input = request.input;
    const messages = input !== null && typeof input === 'object' ? (input as { messages?: unknown }).messages : undefined;
    if (messages === undefined) throw new ProtocolHttpError(422, 'input.messages: a run needs the person\'s message (or command.resume).');
    // The last of the person's entries is the prompt: the thread already holds what came before.
    const list = Array.isArray(messages) ? messages : [messages];
    const people = list.filter(isPersonEntry);
    const { prompt } = promptFromInput(people.length > 0 ? [people.at(-1)] : list, 'input.messages');
    return { folder, prompt, mode: mode as ApprovalMode | 'saved', ...(model !== undefined ? { model } : {}), ...(subagent !== undefined ? { agent: subagent.name } : {}) };
  }

  /** Starts the thread's first pending run when nothing goes before it. */
  private next(threadId: string): void {
    const queue = this.queue(threadId);
    while (queue.length > 0 && isEnded(queue[0]!.record.status)) queue.shift();
    const first = queue[0];
    if (first === undefined) {
      this.queues.delete(threadId);
      return;
    }
    if (first.record.status !== 'pending') return;
    this.setStatus(first, 'running');
    void this.launch(first).catch((err: unknown) => this.fail(first, err instanceof Error ? err.message : String(err)));
  }

  private async launch(run: LiveRun): Promise<void> {
    const threadId = run.record.thread_id;
    const connection = this.connect(run);
    run.connection = connection;
    if (run.start !== undefined) {
      // A new message while the thread waits on an approval: that wait ends, unanswered.
      if (this.context.runs.has(threadId)) await this.context.runs.stop(threadId).catch(() => undefined);
      const before = this.threads.exists(threadId) ? this.threads.load(threadId).messages : [];
      const { folder, prompt, mode, model, agent } = run.start;
      await this.context.start(connection, {
        request: { folder, prompt, threadId, mode, ...(model !== undefined ? { model } : {}), ...(agent !== undefined ? { agent } : {}), mounts: [], mcpConfig: [], trust: false, cwd: folder, env: this.context.env },
        approve: 'ask',
        interactive: true,
        detach: true,
      });
      this.followed.set(threadId, { seq: 0, messages: [...before, { role: 'user', content: prompt }] });
    }
    const followed = this.followed.get(threadId) ?? { seq: 0, messages: this.threads.exists(threadId) ? this.threads.load(threadId).messages : [] };
    const todos = this.threads.range(threadId, undefined, 0)?.state.todos ?? [];
    const translator = new EventTranslator({ runId: run.record.run_id, threadId, modes: new Set(run.request.stream_mode), stream: run.stream, messages: followed.messages, todos });
    run.translator = translator;
    translator.begin();
    if (run.decisions !== undefined) {
      const asking = this.questions(threadId);
      if (asking.length < run.decisions.length) throw new Error('The approvals were answered elsewhere meanwhile.');
      run.decisions.forEach((decision, i) => this.context.runs.decide(threadId, asking[i]!.key, decision));
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
        if (event === 'run.event' && p.seq !== undefined && p.event !== undefined) this.onEvent(run, p.seq, p.event);
        else if (event === 'run.approval') this.onApproval(run);
        else if (event === 'run.end') this.onEnd(run, payload as RunEnd);
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
    const followed = this.followed.get(run.record.thread_id);
    if (isEnded(run.record.status) || followed === undefined || seq <= followed.seq) return;
    followed.seq = seq;
    run.translator!.event(event);
    followed.messages = run.translator!.messages;
  }

  private onApproval(run: LiveRun): void {
    if (isEnded(run.record.status)) return;
    const asking = this.questions(run.record.thread_id);
    if (asking.length === 0) return;
    run.translator!.interrupt([interruptOf(asking)]);
    // The host run waits for the answer (the window shows it too); this protocol run is over.
    this.context.runs.detach(run.connection!, run.record.thread_id);
    this.finish(run, 'success');
  }

  private onEnd(run: LiveRun, end: RunEnd): void {
    if (isEnded(run.record.status)) return;
    this.followed.delete(run.record.thread_id);
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

  private finish(run: LiveRun, status: ProtocolRunStatus): void {
    this.setStatus(run, status);
    run.connection?.close();
    run.stream.end();
    // Ended runs keep their parts for a late join, the newest few: older ones answer from their record and thread.
    const ended = [...this.live.values()].filter((r) => isEnded(r.record.status));
    for (const old of ended.slice(0, Math.max(0, ended.length - KEPT_ENDED_RUNS))) {
      this.live.delete(old.record.run_id);
      old.stream.dispose();
    }
    const threadId = run.record.thread_id;
    if (run.temporary) {
      // A stateless run's thread goes with it (the reference's `on_completion: delete`).
      void this.context.runs
        .deleteThread(threadId)
        .then(() => this.context.db.prepare('DELETE FROM agent_protocol_runs WHERE thread_id = ?').run(threadId))
        .catch((err: unknown) => this.context.log(`a stateless run's thread ${threadId} was not deleted: ${err instanceof Error ? err.message : String(err)}`));
    }
    this.next(threadId);
  }

  private setStatus(run: LiveRun, status: ProtocolRunStatus): void {
    run.record.status = status;
    run.record.updated_at = new Date().toISOString();
    this.context.db.prepare('UPDATE agent_protocol_runs SET status = ?, updated_at = ? WHERE run_id = ?').run(status, run.record.updated_at, run.record.run_id);
  }

  private insert(record: ProtocolRun): void {
    this.context.db
      .prepare('INSERT INTO agent_protocol_runs (run_id, thread_id, assistant_id, status, metadata, multitask_strategy, kwargs, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(record.run_id, record.thread_id, record.assistant_id, record.status, JSON.stringify(record.metadata), record.multitask_strategy, JSON.stringify(record.kwargs), record.created_at, record.updated_at);
  }

  private copy(record: ProtocolRun): ProtocolRun {
    return { ...record };
  }
}

interface RunRow {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  status: ProtocolRunStatus;
  metadata: string;
  multitask_strategy: MultitaskStrategy;
  kwargs: string;
  created_at: string;
  updated_at: string;
}

function fromRow(row: RunRow): ProtocolRun {
  return { ...row, metadata: JSON.parse(row.metadata) as Record<string, unknown>, kwargs: JSON.parse(row.kwargs) as Record<string, unknown> };
}

/** The run's assistant; an unknown one is a 404 worded as the reference's for a run. */
function assistantOf(context: ProtocolContext, id: string): ResolvedAssistant {
  try {
    return resolveAssistant(context, id);
  } catch (err) {
    if (err instanceof ProtocolHttpError && err.status === 404) {
      throw new ProtocolHttpError(404, `No assistant found for "${id}". Make sure the assistant ID is for a valid assistant or a valid graph ID.`);
    }
    throw err;
  }
}

function isEnded(status: ProtocolRunStatus): boolean {
  return status !== 'pending' && status !== 'running';
}

function stringField(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '') throw new ProtocolHttpError(422, `config.configurable.${key} must be a string.`);
  return value;
}

function isPersonEntry(entry: unknown): boolean {
  if (typeof entry === 'string') return true;
  if (entry === null || typeof entry !== 'object') return false;
  const e = entry as { type?: unknown; role?: unknown; id?: unknown };
  const kind = e.type === 'constructor' && Array.isArray(e.id) ? e.id.at(-1) : (e.type ?? e.role);
  return kind === 'human' || kind === 'user' || kind === 'HumanMessage';
}

/** The approvals a host run waits on as one human-in-the-loop interrupt (langchain's humanInTheLoopMiddleware value). */
function interruptOf(asking: readonly PendingQuestion[]): ProtocolInterrupt {
  return {
    id: asking[0]!.key,
    value: {
      actionRequests: asking.map(({ request }) => ({ name: request.toolName, args: request.args, description: descriptionOf(request) })),
      reviewConfigs: asking.map(({ request }) => ({ actionName: request.toolName, allowedDecisions: [...ALLOWED_DECISIONS] })),
    },
  };
}

function descriptionOf(request: ApprovalRequest): string {
  return `${request.reason}\n\nTool: ${request.toolName}\nArgs: ${JSON.stringify(request.args, null, 2)}`;
}

/** `command.resume` as the middleware reads it: `{decisions: [...]}`, one per pending question, in order. */
function decisionsOf(resume: unknown, asking: readonly PendingQuestion[]): ApprovalDecision[] {
  const list = resume !== null && typeof resume === 'object' ? (resume as { decisions?: unknown }).decisions : undefined;
  if (!Array.isArray(list)) throw new ProtocolHttpError(422, 'command.resume.decisions must be a list of decisions ({type: "approve" | "edit" | "reject"}).');
  if (list.length !== asking.length) throw new ProtocolHttpError(422, `command.resume.decisions: ${asking.length} pending, ${list.length} given.`);
  return list.map((raw, i) => {
    const at = `command.resume.decisions[${i}]`;
    const d = (raw ?? {}) as { type?: unknown; message?: unknown; editedAction?: unknown; edited_action?: unknown };
    if (d.type === 'approve') return { type: 'approve' };
    if (d.type === 'reject') {
      if (d.message !== undefined && typeof d.message !== 'string') throw new ProtocolHttpError(422, `${at}.message must be a string.`);
      return { type: 'reject', ...(typeof d.message === 'string' ? { message: d.message } : {}) };
    }
    if (d.type === 'edit') {
      const edited = (d.editedAction ?? d.edited_action) as { name?: unknown; args?: unknown } | undefined;
      if (edited === undefined || edited === null || typeof edited.args !== 'object' || edited.args === null || Array.isArray(edited.args)) {
        throw new ProtocolHttpError(422, `${at}.editedAction must be {name, args} with args an object.`);
      }
      if (edited.name !== undefined && edited.name !== asking[i]!.request.toolName) throw new ProtocolHttpError(422, `${at}.editedAction.name: an edit keeps the tool (${asking[i]!.request.toolName}).`);
      return { type: 'edit', args: edited.args as Record<string, unknown> };
    }
    throw new ProtocolHttpError(422, `${at}.type must be approve, edit or reject.`);
  });
}
