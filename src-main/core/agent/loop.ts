// The agent loop: steps of a turn source (the model and its tools, or another agent's whole turns)
// until a turn ends and no end-of-turn participant (queued input, Stop hooks, the goal's gate)
// goes on; the thread saved after every step, Stop (the AbortSignal) cutting a step short.

import type { ChatMessage } from '../models/types';
import { AbortedError, ModelError, QuotaError } from '../models/errors';
import { modelProblem, type ModelProblem } from '../models/connection-problem';
import { resetQuota } from '../models/quota-breaker';
import { BudgetExceededError } from '../spend/spend-tree';
import { runFanOut } from './fan-out';
import { runGate } from './goal-run';
import type { RunGate } from '../goals/run-gate';
import { PromptRefusedError } from './middleware';
import { quotaStopUnder, runTally, startRunTally } from './model-call';
import { ModelTurns } from './model-turns';
import { RepeatedCallsError } from './repeated-calls';
import type { RunContext } from './run-context';
import { openRun, type AgentDefinition, type RunOptions, type RunResult } from './run-options';
import { StepTools } from './tool-step';
import { agentTurns, type TurnSource } from './turn-source';
import { isShutdown, type RunStopReason, type ThreadState } from './types';

export type { AgentDefinition, QueuedInput, RunOptions, RunResult } from './run-options';
export { previewRequest, type RequestPreview } from './model-step';

const DEFAULT_MAX_STEPS = 200;

/** Runs the agent on `input` (or resumes the thread when input is null) until it answers. */
export async function runAgent(def: AgentDefinition, state: ThreadState, input: ChatMessage | null, options: RunOptions): Promise<RunResult> {
  // A call paused at a cap is told to the goal first (SPEC §26: it reads budget-limited meanwhile).
  const gate: { goal?: RunGate | undefined } = {};
  const emit: RunOptions['emit'] = (event) => {
    if (event.type === 'paused' && event.parentToolCallId === undefined) gate.goal?.budgetPause(event.line);
    options.emit(event);
  };
  const { ctx, toolObservers } = openRun(def, state, input, { ...options, emit });
  if (options.parentRun === undefined) startRunTally(ctx);
  // The person's new message is their trying again: their provider's quota breaker lets calls go (quota-breaker.ts).
  if (options.parentRun === undefined && input !== null) resetQuota(def.model);
  const tools = new StepTools(def, ctx, options, toolObservers);
  const goal = (gate.goal = runGate(ctx, options.goals, tools));
  let source: TurnSource | undefined;
  /** The run ends: the goal records how, the thread is saved (`save`), and `done` is told. */
  const end = async (reason: RunStopReason, error?: Error, save = true): Promise<RunResult> => {
    goal?.settle(reason, error?.message);
    if (save) await ctx.persist().catch(() => undefined);
    return { ...finish(ctx, source?.text ?? '', reason, error?.message), ...(error ? { error } : {}) };
  };

  try {
    await tools.resume();
    if (options.compactOnly) return await compact(def, ctx);
    source = options.turnRunner !== undefined ? agentTurns(options.turnRunner, input, goal) : new ModelTurns(def, ctx, tools, options, input, goal);
    await source.begin?.();
    let next: string | undefined;
    for (let step = 0; step < DEFAULT_MAX_STEPS; step++) {
      if (ctx.signal.aborted) return await end('aborted');
      const done = await source.step(next);
      if (done.kind === 'stopped') return await end(done.reason, done.error);
      if (done.kind === 'acted') continue;
      // The turn ended: each participant in order may put in input for another (the host, not the agent, checks the goal last).
      next = undefined;
      for (const participant of source.participants) if (next === undefined && !ctx.signal.aborted) next = await participant.turnEnded(source.text);
      if (next !== undefined) continue;
      if (ctx.signal.aborted) return await end('aborted');
      // A subagent stopped by a quota answer: the run says so, never `completed` (SPEC §26).
      const quota = options.parentRun === undefined ? quotaStopUnder(ctx) : undefined;
      if (quota !== undefined) throw quota;
      return finish(ctx, source.text, 'completed');
    }
    return await end('max_steps');
  } catch (err) {
    if (err instanceof AbortedError || ctx.signal.aborted) return await end('aborted', undefined, !isShutdown(ctx.signal));
    // The identical-call guard ends a goal as stalled (SPEC §21): the run stops, nothing more is spent.
    if (err instanceof RepeatedCallsError && goal?.stall(err.message.replace(/^Stopped: /, '').replace(/ Send a message.*$/, ''))) return await end('completed');
    const error = err instanceof Error ? err : new Error(String(err));
    const budget = err instanceof BudgetExceededError;
    const reason: RunStopReason = budget ? 'budget' : err instanceof QuotaError ? 'quota' : 'error';
    // Recorded whole: the goal's state and its evidence so far are saved with the run's end.
    goal?.settle(reason, error.message);
    ctx.emit({
      type: 'error',
      message: error.message,
      ...(budget ? { budget: true } : {}),
      ...(err instanceof ModelError && err.status !== undefined ? { status: err.status } : {}),
      ...(err instanceof PromptRefusedError ? { refused: true } : {}),
      ...problemOf(err, def.model.id),
    });
    return await end(reason, error);
  }
}

/** `/compact`: the middleware summarizes the history now; the run ends without a model call for an answer. */
async function compact(def: AgentDefinition, ctx: RunContext): Promise<RunResult> {
  let compacted = false;
  for (const m of def.middleware) if (m.compactNow && (await m.compactNow(ctx))) compacted = true;
  await ctx.persist();
  return finish(ctx, compacted ? 'The conversation was compacted.' : 'There was nothing to compact yet.', 'completed');
}

/** A failed model call's problem in plain words (server down, refused key…), when it is one. */
function problemOf(err: unknown, model: string): { problem?: ModelProblem } {
  if (!(err instanceof ModelError)) return {};
  const problem = modelProblem(err, model);
  return problem ? { problem } : {};
}

function finish(ctx: RunContext, text: string, reason: RunStopReason, error?: string): RunResult {
  ctx.observer.end({ reason, text, ...(error !== undefined ? { error } : {}) });
  const usage = runTally(ctx);
  ctx.emit({ type: 'done', text, reason, ...(usage !== undefined ? { usage } : {}), ...runFanOut(ctx) });
  return { text, reason };
}
