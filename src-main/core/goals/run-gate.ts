// The gate in a run (SPEC §21), the loop's last end-of-turn participant: it checks the goal when a
// turn ends (one trace span each) and puts a revision in the history as the next turn's input,
// stops a stalled goal between steps, and records how the run ended. No I/O of its own: it is
// handed the gate (the thread's command path, the grader call) and the thread.

import { randomUUID } from 'node:crypto';
import type { ChatMessage } from '../models/types';
import type { GoalGateInfo, GoalGateObserver } from '../telemetry/observer';
import type { GateOutcome, GoalGate, ObservedCall } from './gate';
import { endGoal, goalJson, resumeGoal, type GoalJson } from './goal';

export type GateEvent = { type: 'goal'; goal: GoalJson } | { type: 'note'; id: string; kind: 'hook'; text: string } | { type: 'error'; message: string };

export interface GateThread {
  readonly state: { messages: ChatMessage[] };
  emit(event: GateEvent): void;
  persist(): Promise<void>;
}

export type RunEnd = 'completed' | 'aborted' | 'error' | 'max_steps' | 'budget' | 'quota';

export class RunGate {
  constructor(
    private readonly gate: GoalGate,
    private readonly thread: GateThread,
    private readonly shuttingDown: () => boolean,
    private readonly span: (info: GoalGateInfo) => GoalGateObserver | undefined,
  ) {}

  /** The goal reads `budget-limited` because a call waits at a cap (it is pursued again when it goes on). */
  private heldAtCap = false;

  private get pursuing(): boolean {
    return this.gate.goal.state === 'pursuing';
  }

  /** The agent ended a turn: the host, not the agent, checks the goal; a revision (now in the history) is the next turn's input. */
  async turnEnded(text: string): Promise<string | undefined> {
    if (!this.pursuing) return undefined;
    const outcome = await this.evaluate(text);
    this.thread.emit({ type: 'goal', goal: goalJson(this.gate.goal) });
    await this.thread.persist();
    if (outcome.kind === 'end') return undefined;
    const id = `goal-${randomUUID()}`;
    this.thread.state.messages.push({ role: 'user', content: outcome.message, note: { id, kind: 'hook', display: outcome.message } });
    this.thread.emit({ type: 'note', id, kind: 'hook', text: outcome.message });
    await this.thread.persist();
    return outcome.message;
  }

  /** One step of the agent ran: true when the stall detector ended the goal (the run stops). */
  async afterStep(calls: readonly ObservedCall[]): Promise<boolean> {
    if (!this.pursuing || (await this.gate.afterStep(calls)) === undefined) return false;
    this.tellStopped();
    return true;
  }

  /** The identical-call guard stopped the run: the goal (when pursuing) is stalled; true when it was. */
  stall(why: string): boolean {
    if (!this.pursuing) return false;
    this.gate.stall(why);
    this.tellStopped();
    return true;
  }

  /**
   * A call of the run paused at a cap (SPEC §26, `line`) or went on (undefined): meanwhile the
   * goal is `budget-limited` with the paused line (nothing runs), and pursued again after.
   */
  budgetPause(line: string | undefined): void {
    const goal = this.gate.goal;
    if (line !== undefined && this.pursuing) {
      endGoal(goal, 'budget-limited', line);
      this.heldAtCap = true;
    } else if (line === undefined && this.heldAtCap) {
      this.heldAtCap = false;
      resumeGoal(goal);
    } else return;
    this.thread.emit({ type: 'goal', goal: goalJson(goal) });
    void this.thread.persist();
  }

  /** How the run ended, as the goal records it: never left `pursuing` when nothing runs. */
  settle(end: RunEnd, message: string | undefined): void {
    const goal = this.gate.goal;
    if (!this.pursuing || end === 'completed') return;
    if (end === 'budget') endGoal(goal, 'budget-limited', message ?? 'the budget stopped the run');
    else if (end === 'quota') endGoal(goal, 'paused', message ?? 'the model provider is out of quota');
    else endGoal(goal, 'paused', end === 'aborted' ? (this.shuttingDown() ? 'the agent host stopped while the goal was pursued' : 'the run was stopped') : end === 'max_steps' ? 'the run reached its step limit' : `the run failed: ${message ?? end}`);
    this.thread.emit({ type: 'goal', goal: goalJson(goal) });
  }

  /** One evaluation, traced as one span with its verdict. */
  private async evaluate(text: string): Promise<GateOutcome> {
    const { goal } = this.gate;
    const span = this.span({ round: goal.rounds, steps: goal.verify.length });
    const started = performance.now();
    try {
      const { outcome, evaluation, evidence } = await this.gate.evaluate(text);
      const passed = evidence.steps.filter((s) => s.passed).length;
      span?.end({ verdict: evaluation.verdict, state: goal.state, stepsPassed: passed, stepsFailed: evidence.steps.length - passed, durationMs: performance.now() - started });
      return outcome;
    } catch (err) {
      span?.end({ verdict: 'error', state: goal.state, stepsPassed: 0, stepsFailed: 0, durationMs: performance.now() - started, error: err instanceof Error ? err.message : String(err) });
      throw err;
    }
  }

  private tellStopped(): void {
    this.thread.emit({ type: 'goal', goal: goalJson(this.gate.goal) });
    this.thread.emit({ type: 'error', message: `The goal stopped: ${this.gate.goal.reason ?? 'stalled'}` });
  }
}
