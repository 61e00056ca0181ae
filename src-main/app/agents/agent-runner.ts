// A thread whose agent is another one over ACP (SPEC §22), as a run of the run queue: each run
// is one turn of the external agent (agent-turn.ts translates its session updates into the
// thread's events and history, and asks its questions as Deepdesk's own); its permission
// requests, writes and terminals are decided with the run's mode and rules, and what asks goes
// to the run's reviewer (SPEC §23) or its approval broker (the window's card, `run`'s prompt,
// `attach`), naming the agent. The agent is started ahead while the person types (`prepare`) or
// on the thread's first turn, and kept for the next; a stop (cancel, then the tree) or a budget
// ends it, and the next turn starts it again (continuing its session where it can).
import type { RunResult } from '../../core/agent/loop';
import { contentText } from '../../core/agent/model-view';
import type { ApprovalBroker } from '../../core/agent/decision';
import type { SpendNode } from '../../core/spend/spend-tree';
import type { ReviewSetup } from '../../core/agent/review/answerer';
import type { ApprovalMode } from '../../core/agent/permissions/modes';
import type { AgentEvent, AgentEventBody, ThreadAgentRecord, ThreadState } from '../../core/agent/types';
import type { AgentTurnBinding } from '../../core/acp-client/acp-client';
import { isShellBackend, type Backend } from '../../core/backends/protocol';
import type { ChatModel } from '../../core/models/types';
import { CheckpointHistory } from '../../core/checkpoints/history';
import type { Change, Checkpoint } from '../../core/checkpoints/types';
import { keepReport } from './agent-report';
import { askRequest, closeOpenCalls, flush, lastAnswer, layerReview, newTurn, ownChanges, reviewOwnChanges, STAND_IN_CONTEXT_WINDOW, tellRuledRequest, translate, type AgentTurn } from './agent-turn';
import { startAgentThread, type AgentThread, type AgentThreadOptions } from './agent-thread';
import { installDir, knownAgent, vendorOf, type AddedAgent } from './vendors/catalog';

/** Which agent a thread runs, as the session resolved it. */
export type ExternalAgentSpec = AgentThreadOptions['agent'];

/** What the session gives the runner: the thread's place, the rules, the audit's listeners, the checkpoints, the provider's key and endpoint. */
export interface ExternalAgentContext
  extends Pick<AgentThreadOptions, 'threadId' | 'folder' | 'dataDir' | 'rules' | 'telemetry' | 'checkpoints' | 'personKey' | 'prices' | 'upstream' | 'budget'> {
  spec: ExternalAgentSpec;
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
  review?: { setup: ReviewSetup; budget?: SpendNode };
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
    contextWindow: STAND_IN_CONTEXT_WINDOW,
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
  /** The agent's process whose new session the person was told of (once each). */
  private toldAfresh: AgentThread | undefined;
  private closed = false;
  /** The turn under way: a call of the agent paused at a cap is told on it. */
  private turnUnderWay: AgentTurn | undefined;
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
    const record: ThreadAgentRecord = { ...state.externalAgent, name: this.name, label: this.label };
    state.externalAgent = record;
    if (text !== null && inLoop?.recorded !== true) state.messages.push({ role: 'user', content: text });
    const asked = state.messages.findLastIndex((m) => m.role === 'user' && m.note === undefined);
    const message = state.messages[asked];
    if (message?.role !== 'user') throw new Error(`${this.label} has no message of the person's to answer`);
    const turn = newTurn({
      state,
      name: this.name,
      label: this.label,
      folder: this.context.folder,
      signal,
      answering: { broker: controls.broker, ...(controls.review ? { review: controls.review } : {}), decided: () => ({ mode: controls.mode?.() ?? 'ask', rules: this.context.rules() }), observer: () => this.thread?.observer() },
      terminalOutput: (id) => this.thread?.session.terminalOutput(id),
      emit: (event: AgentEventBody) => (inLoop === undefined || event.type !== 'done' ? controls.emit({ ...event, threadId: state.id }) : undefined),
      persist: () => controls.persist(state),
    });
    turn.persist();
    this.turnUnderWay = turn;
    if (signal.aborted) return ended(turn, 'aborted');
    const thread = await this.startedFor(record, signal);
    if (thread === undefined) return ended(turn, 'aborted', true);
    if (thread.continuation !== undefined && thread.continuation !== 'continued' && this.toldAfresh !== thread) {
      this.toldAfresh = thread;
      const why = thread.continuation === 'refused' ? 'it refused to continue it' : 'it offers neither session/load nor session/resume';
      const note = { id: `resume-${turn.idOf('note')}`, kind: 'resume' as const, display: `${this.label} cannot resume its earlier session (${why}): it starts afresh; this thread keeps its history.` };
      state.messages.push({ role: 'user', content: note.display, note });
      turn.emit({ type: 'note', id: note.id, kind: note.kind, text: note.display });
    }
    record.sessionId = thread.sessionId;
    turn.persist();
    return this.prompted(thread, turn, text ?? contentText(message.content), asked, this.binding(turn, controls));
  }

  /** The turn's prompt answered: its end told, or what stopped it (a stop of ours, the budget, a failure). */
  private async prompted(thread: AgentThread, turn: AgentTurn, text: string, asked: number, binding: AgentTurnBinding): Promise<RunResult> {
    const { signal, state } = turn;
    const onAbort = (): void => void thread.stop();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal.aborted) return ended(turn, 'aborted');
      const answer = await thread.prompt(text, asked, binding);
      flush(turn);
      closeOpenCalls(turn, signal.aborted || answer.stopReason === 'cancelled');
      if (thread.budgetReached()) return this.budgetStopped(turn, thread);
      // Only a stop of ours is a stop: an agent that ends its turn itself (Codex, after a refusal) answered.
      if (signal.aborted) return ended(turn, 'aborted', true);
      if (answer.checkpoint) {
        const refused = await this.reviewedOwnChanges(turn, asked, answer.checkpoint, answer.changes ?? []);
        ownChanges(turn, asked, answer.files ?? [], refused);
        turn.emit({ type: 'checkpoint', id: answer.checkpoint.id, files: answer.files ?? [] });
      }
      const final = lastAnswer(state);
      return ended(turn, answer.stopReason === 'max_tokens' || answer.stopReason === 'max_turn_requests' ? 'max_steps' : 'completed', true, final);
    } catch (err) {
      flush(turn);
      closeOpenCalls(turn, true);
      if (thread.budgetReached()) return this.budgetStopped(turn, thread);
      if (signal.aborted) return ended(turn, 'aborted', true);
      this.forget();
      turn.persist();
      throw err;
    } finally {
      signal.removeEventListener('abort', onAbort);
      // A stopped or budget-ended agent is gone: the next turn starts it again.
      if (signal.aborted || thread.budgetReached()) this.forget();
    }
  }

  /** The sensitive changes of the agent's own process this turn, reviewed now (with review on); those refused put back. */
  private async reviewedOwnChanges(turn: AgentTurn, asked: number, checkpoint: Checkpoint, changes: readonly Change[]): Promise<ReadonlyMap<string, string>> {
    const recorder = this.context.checkpoints;
    if (recorder === undefined || turn.answering.review === undefined) return new Map();
    const text = (state: Change['before']): string | null => (state?.type === 'f' ? (recorder.store.blob(state.hash)?.toString('utf8') ?? null) : null);
    const putBack = async (rels: string[]): Promise<void> => void (await new CheckpointHistory(recorder.store).putBack(checkpoint, rels));
    return reviewOwnChanges(turn, asked, changes, text, putBack);
  }

  /** What the agent's requests in this turn work with: the turn's backend, its mode and sandbox, its answerers and its record. */
  private binding(turn: AgentTurn, controls: ExternalTurnControls): AgentTurnBinding {
    const { backend } = controls;
    return {
      backend,
      // Its terminals' commands: with review on, their layer's sensitive writes are reviewed before it is applied.
      execute: (command, options) => {
        const review = layerReview(turn, command);
        return isShellBackend(backend) ? backend.execute(command, { ...options, ...(review ? { reviewLayer: review } : {}) }) : Promise.reject(new Error('this folder runs no commands'));
      },
      mode: () => controls.mode?.() ?? 'ask',
      sandboxAvailable: () => controls.sandboxAvailable?.() ?? false,
      reviewing: () => controls.review !== undefined,
      ask: (request, signal) => askRequest(turn, request, signal),
      onRuled: (request, answer) => tellRuledRequest(turn, request, answer),
      onUpdate: (update) => translate(turn, update),
    };
  }

  /** The agent for this turn, started if it must be; undefined when the turn was stopped meanwhile (what has started is ended: cancel, then the tree). */
  private async startedFor(record: ThreadAgentRecord, signal: AbortSignal): Promise<AgentThread | undefined> {
    const starting = this.started(record);
    const stopStarting = (): void => {
      this.forget();
      void starting.then((t) => t.stop()).catch(() => undefined);
    };
    signal.addEventListener('abort', stopStarting, { once: true });
    try {
      return await Promise.race([starting, new Promise<undefined>((resolve) => (signal.aborted ? resolve(undefined) : signal.addEventListener('abort', () => resolve(undefined), { once: true })))]);
    } catch (err) {
      if (signal.aborted) return undefined;
      throw err;
    } finally {
      signal.removeEventListener('abort', stopStarting);
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

  private forget(): void {
    this.thread = undefined;
    this.starting = undefined;
  }

  private started(record: ThreadAgentRecord): Promise<AgentThread> {
    if (this.closed) return Promise.reject(new Error(`${this.label} was closed`));
    if (this.thread) return Promise.resolve(this.thread);
    if (this.starting) return this.starting;
    // What the session gave is passed as it is; the thread's budget is read as the agent starts.
    const { spec, ...given } = this.context;
    const promise: Promise<AgentThread> = startAgentThread({
      ...given,
      agent: spec,
      onPause: (pause) => this.turnUnderWay?.emit({ type: 'paused', ...pause }),
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

  private budgetStopped(turn: AgentTurn, thread: AgentThread): RunResult {
    if (thread.quotaReached()) {
      const message = `${this.label}: its provider answered that the account is out of quota; the session was cancelled and its processes ended, and no call goes to that provider until it resets`;
      turn.persist();
      turn.emit({ type: 'error', message });
      return { ...ended(turn, 'quota'), error: new Error(message) };
    }
    const why = thread.budgetRefusal();
    const refused = 'its model calls were refused, the session cancelled and its processes ended';
    const message = why !== undefined ? `${this.label}: ${why} So ${refused}` : `${this.label} was stopped at the thread's budget: ${refused}`;
    turn.persist();
    turn.emit({ type: 'error', message, budget: true });
    return { ...ended(turn, 'budget'), error: new Error(message) };
  }
}

/** The turn's end told (`done`), the thread saved first when `save`. */
function ended(turn: AgentTurn, reason: RunResult['reason'], save = false, text = ''): RunResult {
  if (save) turn.persist();
  turn.emit({ type: 'done', text, reason });
  return { text, reason };
}

/** The agent a name stands for: one the person added in Settings › Agents, or a known one (run from its installation in the data folder). */
export function resolveAgent(name: string, added: readonly AddedAgent[], dataDir: string): ExternalAgentSpec | undefined {
  const own = added.find((a) => a.name === name);
  if (own) return { added: own };
  const known = knownAgent(name);
  return known && { known, installRoot: installDir(dataDir, known) };
}
