// A thread whose agent is another one over ACP (SPEC §22), as a run of the run queue: each run
// is one turn of the external agent, its session updates streamed as the thread's events
// (text, tool calls with their diffs, the plan as todos, the context meter) and kept in the
// thread's history; its permission requests, writes and terminals are decided with the run's
// mode and rules as Deepdesk's own calls are, and what asks goes to the run's reviewer (SPEC §23)
// or its approval broker (the window's card, `run`'s prompt, `attach`), naming the agent. The agent
// is started ahead while the person types (`prepare`) or on the thread's first turn, and kept for
// the next; a stop (cancel, then the tree) or a budget ends it, and the next turn starts it again
// (continuing its session where it can).
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunResult } from '../../core/agent/loop';
import { contentText } from '../../core/agent/model-view';
import { ask, type Answerer, type ApprovalBroker } from '../../core/agent/decision';
import type { RunBudget } from '../../core/agent/budget';
import { runAnswerer, type ReviewSetup } from '../../core/agent/review/answerer';
import { openRun } from '../../core/agent/run-options';
import type { ToolCallInfo, ToolCallObserver } from '../../core/telemetry/observer';
import { ReadGuard } from '../../core/tools/read-guard';
import type { ApprovalMode } from '../../core/agent/permissions/modes';
import type { AgentEvent, ThreadAgentRecord, ThreadState, Todo } from '../../core/agent/types';
import type { Backend } from '../../core/backends/protocol';
import { isShellBackend } from '../../core/backends/protocol';
import type { ChatModel, ToolCall } from '../../core/models/types';
import { describeChange } from '../../core/tools/file-change';
import type { ChangeStatus } from '../../core/checkpoints/types';
import type { AgentApprovalRequest, SessionUpdate } from '../../core/acp-client/acp-client';
import { hostToVirtual } from '../../core/acp-client/paths';
import { toolOfKind } from '../../core/acp-client/permission-map';
import { startAgentThread, type AgentThread, type AgentThreadOptions } from './agent-thread';
import { installDir, knownAgent, vendorOf, type AddedAgent } from './vendors/catalog';

/** Which agent a thread runs, as the session resolved it. */
export type ExternalAgentSpec = AgentThreadOptions['agent'];

/** What the session gives the runner: the thread's place, the rules, the audit's listeners, the checkpoints, the provider's key and endpoint. */
export interface ExternalAgentContext
  extends Pick<AgentThreadOptions, 'threadId' | 'folder' | 'dataDir' | 'rules' | 'telemetry' | 'checkpoints' | 'personKey' | 'prices' | 'upstream' | 'sharedBudget'> {
  spec: ExternalAgentSpec;
  /** The thread's budget (the limit and what the thread has spent so far), read as the agent starts. */
  budget?(): AgentThreadOptions['budget'];
}

/** What one turn is given by the run queue. */
export interface ExternalTurnControls {
  state: ThreadState;
  backend: Backend;
  signal: AbortSignal;
  broker: ApprovalBroker;
  /** The run's approval mode (default `ask`) and whether its commands run in the sandbox: the agent's requests are decided with them. */
  mode?: () => ApprovalMode;
  sandboxAvailable?: () => boolean;
  /** The reviewer the run's settings name (SPEC §23), and the thread's budget its calls are held in. */
  review?: { setup: ReviewSetup; budget?: RunBudget };
  emit(event: AgentEvent): void;
  persist(state: ThreadState): void;
}

/**
 * A stand-in for the model of a thread whose agent is another: the run queue hands a run a
 * model; this one is never called (the agent calls its own, through the metering proxy).
 */
export function agentStandInModel(spec: ExternalAgentSpec): ChatModel {
  return {
    id: `agent:${vendorOf(spec).name}`,
    provider: 'openai-compatible',
    contextWindow: 200_000,
    price: null,
    // eslint-disable-next-line require-yield
    async *stream() {
      throw new Error(`this thread's agent is ${vendorOf(spec).label}: it calls its own model`);
    },
  };
}

/** How long an agent started ahead waits for its first turn before it is ended. */
const PREPARED_IDLE_MS = 10 * 60_000;

export class ExternalAgentRunner {
  private thread: AgentThread | undefined;
  private starting: Promise<AgentThread> | undefined;
  /** Turns begun: an agent started ahead is ended only when none began since. */
  private turns = 0;
  private turnUpdates: ((update: SessionUpdate) => void) | undefined;
  private turnAsk: ((request: AgentApprovalRequest, signal: AbortSignal) => Promise<boolean | string>) | undefined;
  private turnRuled: ((request: AgentApprovalRequest, answer: 'allow' | 'deny') => void) | undefined;
  private turnControls: ExternalTurnControls | undefined;
  /** The agent's process whose new session the person was told of (once each). */
  private toldAfresh: AgentThread | undefined;
  private closed = false;
  readonly spec: ExternalAgentSpec;
  readonly label: string;
  readonly name: string;

  constructor(private readonly context: ExternalAgentContext) {
    this.spec = context.spec;
    ({ label: this.label, name: this.name } = vendorOf(context.spec));
  }

  /**
   * One turn: the person's message to the agent, its updates as the thread's events and history.
   * `inLoop`: the agent loop drives the turns (a goal's gate between them, core/agent/loop.ts):
   * it ends the run (its own `done`), and a revision it sent is already in the history (`recorded`).
   * `text` null: a retry, the person's last message sent again (to a fresh process after a failure).
   */
  async turn(text: string | null, controls: ExternalTurnControls, inLoop?: { recorded: boolean }): Promise<RunResult> {
    const { state, signal } = controls;
    this.turns++;
    const threadId = state.id;
    const emit = (event: AgentEvent): void => {
      if (inLoop === undefined || event.type !== 'done') controls.emit(event);
    };
    const ev = (body: Record<string, unknown>): void => emit({ threadId, ...body } as AgentEvent);
    const record: ThreadAgentRecord = { ...state.externalAgent, name: this.name, label: this.label };
    state.externalAgent = record;
    if (text !== null && inLoop?.recorded !== true) state.messages.push({ role: 'user', content: text });
    const asked = state.messages.findLastIndex((m) => m.role === 'user' && m.note === undefined);
    const message = state.messages[asked];
    if (message?.role !== 'user') throw new Error(`${this.label} has no message of the person's to answer`);
    controls.persist(state);
    if (signal.aborted) return this.aborted(ev);
    const turnId = randomUUID().slice(0, 8);
    const idOf = (acpId: string): string => `${this.name}-${turnId}-${acpId}`;
    let answer = '';
    const calls = new Map<string, KnownCall>();
    /** The calls the person refused (by the agent's id): one it leaves open ends refused, not stopped. */
    const refused = new Set<string>();
    const flush = (): void => {
      if (answer !== '') state.messages.push({ role: 'assistant', content: answer });
      answer = '';
    };
    this.turnControls = controls;
    this.turnUpdates = (update) => {
      switch (update.sessionUpdate) {
        case 'agent_message_chunk':
          if (update.content.type === 'text') {
            answer += update.content.text;
            ev({ type: 'text', text: update.content.text });
          }
          break;
        case 'tool_call':
        case 'tool_call_update': {
          let known = calls.get(update.toolCallId);
          // A read or write served to it is recorded, unless it is of a call it told that is going on (recorded as that one).
          const served = update.toolCallId.startsWith('fs_read_') ? 'read_file' : update.toolCallId.startsWith('fs_write_') ? 'edit_file' : undefined;
          if (served !== undefined && [...calls.values()].some((c) => !c.done && c.call.name === served)) break;
          if (known === undefined && update.sessionUpdate === 'tool_call') {
            known = { call: { id: idOf(update.toolCallId), name: '', args: {}, argsText: '{}' }, done: false, at: state.messages.push({ role: 'assistant', content: answer }) - 1, title: '', rawInput: undefined };
            calls.set(update.toolCallId, known);
            answer = '';
          }
          if (known === undefined) break;
          if (update.sessionUpdate === 'tool_call' || update.title != null || update.rawInput != null) this.told(state, ev, known, update);
          if (!known.done && (update.status === 'completed' || update.status === 'failed')) this.finishCall(state, ev, known, update);
          controls.persist(state);
          break;
        }
        case 'plan': {
          const todos: Todo[] = update.entries.map((e) => ({ content: e.content, status: e.status }));
          state.todos = todos;
          ev({ type: 'todos', todos });
          break;
        }
        case 'usage_update':
          // The context meter only: what it costs is the metering proxy's (the ledger).
          state.contextTokens = update.used;
          ev({ type: 'usage', usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, total: state.usage, contextTokens: update.used, contextWindow: update.size });
          break;
        default:
          break;
      }
    };
    /** The call a terminal is opened for, when the agent told it and it goes on (Claude Code's Bash): the terminal's question is that call's card, not a second one. */
    const ownerOf = (request: AgentApprovalRequest): [string, KnownCall] | undefined =>
      request.operation.tool !== 'execute' || (request.toolCallId !== undefined && calls.has(request.toolCallId))
        ? undefined
        : [...calls].find(([, c]) => !c.done && c.call.name === 'execute' && (c.call.args as { command?: unknown }).command === request.operation.command);
    this.turnAsk = async (request, askSignal) => {
      const owner = ownerOf(request);
      const id = owner?.[1].call.id ?? idOf(request.toolCallId ?? randomUUID());
      const why = request.why !== undefined ? { why: request.why } : {};
      const base = { id, name: request.operation.tool, args: argsOf(request), reason: `${request.agent} asks: ${request.reason}`, ...why };
      const { answerer, span } = this.answerer(controls, base);
      try {
        const question = { threadId, toolCallId: id, toolName: base.name, args: base.args, reason: request.reason, ...why, agent: request.agent, ...(request.diff !== undefined ? { diff: request.diff } : {}) };
        const { decision, decidedBy, where, review, reviewFailed } = await ask(question, answerer, AbortSignal.any([askSignal, signal]), (by, failed) =>
          ev({ type: 'approval', ...base, status: by === 'reviewer' ? 'reviewing' : 'pending', ...(failed !== undefined ? { reviewFailed: failed } : {}) }),
        );
        span?.decided(decision.type, decidedBy);
        const who = { decidedBy, ...(review !== undefined ? { review } : {}), ...(reviewFailed !== undefined ? { reviewFailed } : {}), ...where };
        ev({ type: 'approval', ...base, status: decision.type === 'approve' ? 'approved' : 'rejected', ...who });
        const acpId = owner?.[0] ?? request.toolCallId;
        if (decision.type !== 'approve' && acpId !== undefined) refused.add(acpId);
        return decision.type === 'approve' || (review !== undefined && `denied by the reviewer: ${review.rationale}`);
      } catch (err) {
        ev({ type: 'approval', ...base, status: 'rejected' });
        throw err;
      } finally {
        span?.end({ output: '', isError: false });
      }
    };
    this.turnRuled = (request, ruled) => {
      const id = ownerOf(request)?.[1].call.id ?? idOf(request.toolCallId ?? randomUUID());
      ev({ type: 'approval', id, name: request.operation.tool, args: argsOf(request), status: ruled === 'deny' ? 'denied' : 'approved', reason: `${request.agent} asked: ${request.reason}`, ...(request.why !== undefined ? { why: request.why } : {}) });
    };
    let thread: AgentThread;
    // A stop while the agent starts ends what has started (cancel, then the tree) and the turn at once.
    const starting = this.started(record);
    const stopStarting = (): void => {
      this.forget();
      void starting.then((t) => t.stop()).catch(() => undefined);
    };
    signal.addEventListener('abort', stopStarting, { once: true });
    try {
      thread = await Promise.race([
        starting,
        new Promise<never>((_, reject) => {
          if (signal.aborted) reject(new Error('stopped'));
          signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
        }),
      ]);
    } catch (err) {
      this.clearTurn();
      if (signal.aborted) return this.aborted(ev, state, controls);
      throw err;
    } finally {
      signal.removeEventListener('abort', stopStarting);
    }
    if (thread.continuation !== undefined && thread.continuation !== 'continued' && this.toldAfresh !== thread) {
      this.toldAfresh = thread;
      const why = thread.continuation === 'refused' ? 'it refused to continue it' : 'it offers neither session/load nor session/resume';
      const note = { id: `resume-${turnId}`, kind: 'resume' as const, display: `${this.label} cannot resume its earlier session (${why}): it starts afresh; this thread keeps its history.` };
      state.messages.push({ role: 'user', content: note.display, note });
      ev({ type: 'note', id: note.id, kind: note.kind, text: note.display });
    }
    record.sessionId = thread.sessionId;
    controls.persist(state);
    const onAbort = (): void => void thread.stop();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal.aborted) return this.aborted(ev);
      const turn = await thread.prompt(text ?? contentText(message.content), asked);
      flush();
      this.closeOpenCalls(state, ev, calls, signal.aborted || turn.stopReason === 'cancelled', refused);
      if (thread.budgetReached()) return this.budgetStopped(state, ev, controls, thread);
      // Only a stop of ours is a stop: an agent that ends its turn itself (Codex, after a refusal) answered.
      if (signal.aborted) return this.aborted(ev, state, controls);
      const reason: RunResult['reason'] = turn.stopReason === 'max_tokens' || turn.stopReason === 'max_turn_requests' ? 'max_steps' : 'completed';
      if (turn.checkpoint) {
        this.ownChanges(state, ev, asked, turn.files ?? [], idOf);
        ev({ type: 'checkpoint', id: turn.checkpoint.id, files: turn.files ?? [] });
      }
      const final = lastAnswer(state);
      controls.persist(state);
      ev({ type: 'done', text: final, reason });
      return { text: final, reason };
    } catch (err) {
      flush();
      this.closeOpenCalls(state, ev, calls, true, refused);
      if (thread.budgetReached()) return this.budgetStopped(state, ev, controls, thread);
      if (signal.aborted) return this.aborted(ev, state, controls);
      this.forget();
      controls.persist(state);
      throw err;
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.clearTurn();
      // A stopped or budget-ended agent is gone: the next turn starts it again.
      if (signal.aborted || thread.budgetReached()) this.forget();
    }
  }

  /**
   * Starts the agent ahead of its turn (the person is typing), as the turn would, so the turn
   * finds it ready; records nothing in the thread. A start that fails is left to the turn, which
   * starts it again and reports what failed. One no turn uses is ended after PREPARED_IDLE_MS.
   */
  prepare(stored: ThreadAgentRecord | undefined): void {
    if (this.closed || this.thread || this.starting) return;
    const turns = this.turns;
    this.started({ ...stored, name: this.name, label: this.label }).then((thread) => {
      setTimeout(() => {
        if (this.thread !== thread || this.turns !== turns) return;
        this.forget();
        void thread.stop();
      }, PREPARED_IDLE_MS).unref();
    }, () => undefined);
  }

  /** Ends the agent (cancel, then its process tree). */
  async close(): Promise<void> {
    this.closed = true;
    const thread = this.thread ?? (await this.starting?.catch(() => undefined));
    this.forget();
    await thread?.stop();
  }

  /**
   * Who answers the agent's request: the run's reviewer while the thread's breaker holds, its calls the thread's as a Deepdesk
   * run's (metered under the agent's turn: a `reviewer` ledger row in the thread's budget, a review span under the request's).
   */
  private answerer(controls: ExternalTurnControls, call: ToolCallInfo): { answerer: Answerer; span?: ToolCallObserver } {
    const review = controls.review;
    if (review === undefined) return { answerer: { kind: 'person', broker: controls.broker } };
    const observer = this.thread?.observer();
    const { ctx, toolObservers } = openRun({ model: agentStandInModel(this.spec), backend: controls.backend }, controls.state, null, {
      signal: controls.signal,
      emit: (event) => controls.emit(event),
      persist: async (state) => controls.persist(state),
      guard: new ReadGuard(),
      ...(observer ? { telemetry: { turn: () => observer } } : {}),
      ...(review.budget ? { budget: review.budget } : {}),
    });
    const span = ctx.observer.toolCall(call);
    toolObservers.set(call.id, span);
    return { answerer: runAnswerer(ctx, controls.broker, review.setup, { mode: controls.mode?.() ?? 'ask', rules: this.context.rules() }), span };
  }

  private forget(): void {
    this.thread = undefined;
    this.starting = undefined;
  }

  private clearTurn(): void {
    this.turnUpdates = undefined;
    this.turnAsk = undefined;
    this.turnRuled = undefined;
  }

  private started(record: ThreadAgentRecord): Promise<AgentThread> {
    if (this.closed) return Promise.reject(new Error(`${this.label} was closed`));
    if (this.thread) return Promise.resolve(this.thread);
    // What the session gave is passed as it is; the thread's budget is read as the agent starts.
    const { spec, budget: budgetNow, ...given } = this.context;
    const budget = budgetNow?.();
    if (this.starting) return this.starting;
    const promise: Promise<AgentThread> = startAgentThread({
      ...given,
      agent: spec,
      // The turn's backend (the thread's mounts: `/` is the folder), its mode and its sandbox.
      backend: new Proxy({} as Backend, { get: (_, key) => this.member(key) }),
      execute: (command, options) => {
        const backend = this.backend();
        return isShellBackend(backend) ? backend.execute(command, options) : Promise.reject(new Error('this folder runs no commands'));
      },
      mode: () => this.turnControls?.mode?.() ?? 'ask',
      sandboxAvailable: () => this.turnControls?.sandboxAvailable?.() ?? false,
      reviewing: () => this.turnControls?.review !== undefined,
      ask: (request, signal) => this.turnAsk?.(request, signal) ?? Promise.resolve(false),
      onRuled: (request, answer) => this.turnRuled?.(request, answer),
      onUpdate: (update) => this.turnUpdates?.(update),
      ...(budget ? { budget } : {}),
      ...(record.sessionId !== undefined ? { continueSessionId: record.sessionId } : {}),
    }).then(
      (thread) => {
        keepReport(given.dataDir, this.name, thread);
        // Kept only while it is still the one starting (a stop meanwhile forgot it, and stops it).
        if (this.starting === promise) this.thread = thread;
        return thread;
      },
      (err: unknown) => {
        if (this.starting === promise) this.starting = undefined;
        throw err;
      },
    );
    this.starting = promise;
    return promise;
  }

  private backend(): Backend {
    if (!this.turnControls) throw new Error('no turn is going');
    return this.turnControls.backend;
  }

  /** A member of the turn's backend, a method bound to it. */
  private member(key: string | symbol): unknown {
    const backend = this.backend();
    const value: unknown = Reflect.get(backend, key);
    return typeof value === 'function' ? value.bind(backend) : value;
  }

  /** A call told, or told again with more of it (its input, its command): a new history message each time, so the thread saves it again. */
  private told(state: ThreadState, ev: (body: Record<string, unknown>) => void, known: KnownCall, update: Extract<SessionUpdate, { sessionUpdate: 'tool_call' | 'tool_call_update' }>): void {
    known.title = update.title ?? known.title;
    known.rawInput = update.rawInput ?? known.rawInput;
    const name = update.sessionUpdate === 'tool_call' ? toolOfKind(update.kind) : known.call.name;
    const args = argsOfCall(name, known.title, known.rawInput);
    known.call = { ...known.call, name, args, argsText: JSON.stringify(args) };
    state.messages[known.at] = { role: 'assistant', content: state.messages[known.at]!.content as string, toolCalls: [known.call] };
    ev({ type: 'tool_call', id: known.call.id, name, args });
  }

  private finishCall(state: ThreadState, ev: (body: Record<string, unknown>) => void, known: KnownCall, update: { status?: string | null; content?: Array<Record<string, unknown>> | null; rawOutput?: unknown }): void {
    known.done = true;
    const isError = update.status === 'failed';
    const parts: string[] = [];
    let change;
    for (const item of update.content ?? []) {
      if (item.type === 'content') {
        const block = item.content as { type?: string; text?: string } | undefined;
        if (block?.type === 'text' && typeof block.text === 'string') parts.push(block.text);
      } else if (item.type === 'diff' && typeof item.path === 'string' && typeof item.newText === 'string') {
        const path = hostToVirtual(this.context.folder, item.path) ?? item.path;
        const oldText = typeof item.oldText === 'string' ? item.oldText : undefined;
        change ??= describeChange(path, oldText === undefined ? { exists: false } : { exists: true, text: oldText }, { exists: true, text: item.newText }) ?? undefined;
        parts.push(`${oldText === undefined ? 'Wrote' : 'Edited'} ${path}`);
      } else if (item.type === 'terminal') parts.push('(ran in the Terminal)');
    }
    if (parts.length === 0) parts.push(...outputOf(update.rawOutput));
    const output = parts.join('\n') || (isError ? 'failed' : 'done');
    state.messages.push({ role: 'tool', toolCallId: known.call.id, toolName: known.call.name, content: output, ...(isError ? { isError } : {}), ...(change ? { change } : {}) });
    ev({ type: 'tool_result', id: known.call.id, name: known.call.name, output, isError, ...(change ? { change } : {}) });
  }

  /** The turn's changes no call of it names (made in the agent's own process), each recorded as a call of its own: the audit record says what it changed. */
  private ownChanges(state: ThreadState, ev: (body: Record<string, unknown>) => void, from: number, files: ReadonlyArray<{ path: string; status: ChangeStatus }>, idOf: (acpId: string) => string): void {
    const named = new Set<string>();
    for (const m of state.messages.slice(from)) {
      if (m.role === 'tool' && m.change) named.add(m.change.path);
      for (const call of m.role === 'assistant' ? (m.toolCalls ?? []) : []) {
        const path = (call.args as { file_path?: unknown } | null)?.file_path;
        if (typeof path === 'string' && Object.values(OWN_CHANGE_TOOLS).includes(call.name)) named.add(hostToVirtual(this.context.folder, path) ?? path);
      }
    }
    for (const [i, file] of files.filter((f) => !named.has(f.path)).entries()) {
      const name = OWN_CHANGE_TOOLS[file.status];
      const args = { file_path: file.path, title: `${file.status} in its own process` };
      const call: ToolCall = { id: idOf(`own-${i}`), name, args, argsText: JSON.stringify(args) };
      const output = `${file.status[0]!.toUpperCase()}${file.status.slice(1)} by ${this.label} in its own process`;
      state.messages.push({ role: 'assistant', content: '', toolCalls: [call] }, { role: 'tool', toolCallId: call.id, toolName: name, content: output });
      ev({ type: 'tool_call', id: call.id, name, args });
      ev({ type: 'tool_result', id: call.id, name, output, isError: false });
    }
  }

  /** Calls the agent never reported the end of: closed in the history so it reads whole (`stopped`: cut short, not done). */
  private closeOpenCalls(state: ThreadState, ev: (body: Record<string, unknown>) => void, calls: Map<string, KnownCall>, stopped: boolean, refused: ReadonlySet<string>): void {
    const failed = (text: string) => ({ status: 'failed', content: [{ type: 'content', content: { type: 'text', text } }] });
    const end = stopped ? failed('Stopped before it finished.') : { status: 'completed', content: [] };
    for (const [acpId, known] of calls) if (!known.done) this.finishCall(state, ev, known, refused.has(acpId) ? failed(`Error: the person rejected this ${known.call.name} call; it was not run.`) : end);
  }

  private aborted(ev: (body: Record<string, unknown>) => void, state?: ThreadState, controls?: ExternalTurnControls): RunResult {
    if (state && controls) controls.persist(state);
    ev({ type: 'done', text: '', reason: 'aborted' });
    return { text: '', reason: 'aborted' };
  }

  private budgetStopped(state: ThreadState, ev: (body: Record<string, unknown>) => void, controls: ExternalTurnControls, thread: AgentThread): RunResult {
    const why = thread.budgetRefusal();
    const refused = 'its model calls were refused, the session cancelled and its processes ended';
    const message = why !== undefined ? `${this.label}: ${why} So ${refused}` : `${this.label} was stopped at the thread's budget: ${refused}`;
    controls.persist(state);
    ev({ type: 'error', message, budget: true });
    ev({ type: 'done', text: '', reason: 'budget' });
    return { text: '', reason: 'budget', error: new Error(message) };
  }
}

/** A change of the agent's own process as the file tool that would have made it. */
const OWN_CHANGE_TOOLS: Readonly<Record<ChangeStatus, string>> = { added: 'write_file', modified: 'edit_file', deleted: 'delete_file' };

/** A call of the agent's in this turn: where its message is in the history, and what it was told with. */
type KnownCall = { call: ToolCall; done: boolean; at: number; title: string; rawInput: unknown };

/**
 * A call's arguments as Deepdesk's own: a command by its line (an argv, `sh -c LINE` or `bash -lc
 * LINE`, is told as the line), the agent's title kept beside what its input says.
 */
function argsOfCall(name: string, title: string, rawInput: unknown): Record<string, unknown> {
  const input = typeof rawInput === 'object' && rawInput !== null ? (rawInput as Record<string, unknown>) : {};
  if (name !== 'execute') return { title, ...input };
  const given = input.command ?? input.cmd;
  const argv = Array.isArray(given) && given.every((w) => typeof w === 'string') ? (given as string[]) : undefined;
  const line = typeof given === 'string' ? given : argv === undefined ? undefined : argv.length === 3 && /^(ba|z)?sh$/.test(argv[0]!.split('/').at(-1)!) && /^-l?c$/.test(argv[1]!) ? argv[2] : argv.join(' ');
  const { command: _command, cmd: _cmd, ...rest } = input;
  return { ...(line !== undefined ? { command: line } : {}), title, ...rest };
}

/** What an agent's own run of a tool printed, as text: its output's fields and exit code, never its JSON. */
function outputOf(raw: unknown): string[] {
  if (typeof raw === 'string') return raw === '' ? [] : [raw];
  if (typeof raw !== 'object' || raw === null) return [];
  const r = raw as Record<string, unknown>;
  const text = [r.formatted_output, r.aggregated_output, r.output, r.stdout].find((v): v is string => typeof v === 'string');
  const err = typeof r.stderr === 'string' && r.stderr !== '' && text !== r.stderr ? r.stderr : undefined;
  const code = r.exit_code ?? r.exitCode;
  return [...(text !== undefined && text !== '' ? [text.replace(/\n$/, '')] : []), ...(err !== undefined ? [err.replace(/\n$/, '')] : []), ...(typeof code === 'number' ? [`exit ${code}`] : [])];
}

function argsOf(request: AgentApprovalRequest): Record<string, unknown> {
  const op = request.operation;
  if (op.tool === 'execute') return { command: op.command ?? op.title };
  return { ...(op.paths[0] !== undefined ? { file_path: op.paths[0] } : op.outside[0] !== undefined ? { file_path: op.outside[0] } : {}), title: op.title };
}

function lastAnswer(state: ThreadState): string {
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const m = state.messages[i]!;
    if (m.role === 'user') return '';
    if (m.role === 'assistant' && m.content !== '' && m.toolCalls === undefined) return m.content;
  }
  return '';
}

/** The agent a name stands for: one the person added in Settings › Agents, or a known one (run from its installation in the data folder). */
export function resolveAgent(name: string, added: readonly AddedAgent[], dataDir: string): ExternalAgentSpec | undefined {
  const own = added.find((a) => a.name === name);
  if (own) return { added: own };
  const known = knownAgent(name);
  return known && { known, installRoot: installDir(dataDir, known) };
}

/** What an agent's `initialize` reported, as Settings › Agents shows it. */
export interface AgentReport {
  agentName?: string;
  agentVersion?: string;
  /** What it offers: load, resume, fork, close, images, audio, embedded context, MCP over http/sse, … */
  capabilities: string[];
  at: string;
}

function reportFile(dataDir: string, name: string): string {
  return join(dataDir, 'agents', 'reported', `${name}.json`);
}

/** Kept in the data folder each time the agent starts (SPEC §22: what `initialize` reports is kept and shown). */
function keepReport(dataDir: string, name: string, thread: AgentThread): void {
  const init = thread.session.initializeResponse;
  const caps = init?.agentCapabilities;
  const prompt = (caps?.promptCapabilities ?? {}) as Record<string, unknown>;
  const mcp = (caps?.mcpCapabilities ?? {}) as Record<string, unknown>;
  const offered = [
    ...(caps?.loadSession === true ? ['load'] : []),
    ...Object.entries((caps?.sessionCapabilities ?? {}) as Record<string, unknown>).flatMap(([key, value]) => (value != null ? [key] : [])),
    ...['image', 'audio', 'embeddedContext'].filter((key) => prompt[key] === true),
    ...['http', 'sse'].filter((key) => mcp[key] === true).map((key) => `mcp-${key}`),
  ];
  const report: AgentReport = {
    ...(init?.agentInfo?.name ? { agentName: init.agentInfo.name } : {}),
    ...(init?.agentInfo?.version ? { agentVersion: init.agentInfo.version } : {}),
    capabilities: offered,
    at: new Date().toISOString(),
  };
  try {
    mkdirSync(join(dataDir, 'agents', 'reported'), { recursive: true, mode: 0o700 });
    writeFileSync(reportFile(dataDir, name), JSON.stringify(report, null, 2), { mode: 0o600 });
  } catch {
    // Shown when it can be kept; the agent runs all the same.
  }
}

/** What the agent's `initialize` last reported, when it has started here. */
export function agentReport(dataDir: string, name: string): AgentReport | undefined {
  try {
    const json = JSON.parse(readFileSync(reportFile(dataDir, name), 'utf8')) as AgentReport;
    return Array.isArray(json.capabilities) && typeof json.at === 'string' ? json : undefined;
  } catch {
    return undefined;
  }
}
