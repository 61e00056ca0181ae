// The agent step loop: model call → tool calls (run concurrently) → repeat, with
// middleware around both, events streamed, the thread persisted after every step, and
// Stop (the AbortSignal) cutting the model call and running tools short.

import type { StepAttribution } from '../process/attribution';
import { takesMedia } from '../media/capabilities';
import type { MediaInput } from '../models/types';
import { notTakenNotice } from '../media/kinds';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Backend } from '../backends/protocol';
import { AbortedError, ContextOverflowError, ModelError } from '../models/errors';
import { modelProblem, type ModelProblem } from '../models/connection-problem';
import { ZERO_USAGE, type ChatMessage, type ChatModel, type ModelRetryNotice, type ProviderMetadata, type ReasoningBlock, type ToolCall, type ToolSpec, type Usage } from '../models/types';
import { NOOP_RUN, type RunObserver, type Telemetry, type ToolCallObserver } from '../telemetry/observer';
import { BudgetExceededError, type RunBudget } from './budget';
import { meteredStream, modelName, recordUsage, runTally, startRunTally } from './model-call';
import { isPersonMessage } from './notes';
import type { ReadGuard } from '../tools/read-guard';
import { checkToolCall, runTool, toolMap } from '../tools/run-tool';
import { resultFacts } from '../tools/result-facts';
import { errorText, isErrorOutput, type AgentTool, type ToolContext, type ToolOutput } from '../tools/tool';
import { canonicalJson } from '../text/canonical-json';
import { repairDanglingToolCalls, unresolvedToolCalls } from './dangling';
import { modelView } from './model-view';
import { appendNotes, type PendingNote } from './notes';
import { chainModelCall, chainToolCall, PromptRefusedError, type Middleware, type ModelTurn, type SystemPart } from './middleware';
import { rootRun, type ModelCallRequest, type RunContext } from './run-context';
import { RepeatedCallsError, RepeatedCallsGuard } from './repeated-calls';
import { GoalGate, type GateOutcome } from '../goals/gate';
import type { GoalPlace, StepRun } from '../goals/evidence';
import { endGoal, goalJson, verifyCallKind, type VerifyStep } from '../goals/goal';
import { graderCall, hostCallId } from './goal-run';
import { liveOutput } from './live-output';
import { countRequestTokens } from './token-count';
import { isShutdown, type AgentEvent, type AgentEventBody, type RunStopReason, type ThreadState } from './types';

export interface AgentDefinition {
  model: ChatModel;
  backend: Backend;
  /** The base tools (file tools, execute); middleware adds its own. */
  tools: AgentTool[];
  middleware: Middleware[];
  /** The base system prompt; middleware appends sections. */
  systemPrompt: string;
  maxSteps?: number;
  /** Stop when the same calls with the same results repeat this many steps in a row (0: never). */
  maxRepeatedCalls?: number;
}

/** A message the person sent while the run was going, waiting for the current step to end. */
export interface QueuedInput {
  id: string;
  text: string;
}

export interface RunOptions {
  signal?: AbortSignal;
  emit: (event: AgentEvent) => void;
  /** Saves the thread; called after every step. */
  persist: (state: ThreadState) => Promise<void>;
  guard: ReadGuard;
  parentToolCallId?: string;
  depth?: number;
  /** Inside a subagent: the run that started it. */
  parentRun?: RunContext;
  /** Tool calls that were waiting for approval when the run stopped: run them on resume instead of marking them interrupted. */
  resumableToolCalls?: ReadonlySet<string>;
  onTerminalData?: (chunk: string) => void;
  /**
   * Takes (and removes) the messages queued while the run was going; called whenever a
   * step ends. Each one is delivered as a user message before the next model call.
   */
  takeQueued?: () => QueuedInput[];
  /**
   * The thread's notes waiting for the model (e.g. a restore of files); each is put into
   * the history once, before the next model call. Saving the thread marks them delivered.
   */
  pendingNotes?: () => PendingNote[];
  /** `/compact`: summarize the history now and end, without a model call for an answer. */
  compactOnly?: boolean;
  /** Who audits the thread's turns (the usage ledger, traces). A subagent reports under its parent's task call instead. */
  telemetry?: Telemetry;
  /** The budget of this run (a subagent keeps its parent's). */
  budget?: RunBudget;
  /** The agent's name in the audit: the subagent type (default `deepdesk`). */
  agentName?: string;
  /** The project folder as the person names it, for the audit. */
  folder?: string;
  /**
   * The thread's goal (SPEC §21), when the state has one pursuing: where the gate takes the
   * folder's tree and diff, and the grader's model (default the run's). Verify steps run
   * through this run's own command path (the agent's execute, its rules and containment).
   */
  goals?: { folder: Pick<GoalPlace, 'tree' | 'diff'>; graderModel?: ChatModel };
  /**
   * The turn runner seam (SPEC §21 with §22): each step is one whole turn of another agent (over
   * ACP) instead of a model call and its tools. The turn is given the text to send (`recorded`:
   * the loop already put it in the history, as a revision of the goal is) and says how it ended;
   * the goal's gate, its verify steps (through this definition's execute path), the grader (the
   * definition's model, metered) and the revisions are this loop's, as for Deepdesk's own agent.
   * The input and every revision go to the turn as they are (no middleware changes them).
   */
  turnRunner?: (text: string, recorded: boolean) => Promise<RunResult>;
}

export interface RunResult {
  text: string;
  reason: RunStopReason;
  error?: Error;
}

export { modelView };

const DEFAULT_MAX_STEPS = 200;
/** How many times in a row a Stop hook may make the agent go on (SPEC §11). */
export const MAX_STOP_CONTINUATIONS = 8;
const specCache = new WeakMap<AgentTool, ToolSpec>();
/** A zod schema's JSON Schema (read only once made: requests and token counts only read it). */
const parametersCache = new WeakMap<object, Record<string, unknown>>();

export function toolSpec(tool: AgentTool): ToolSpec {
  let spec = specCache.get(tool);
  if (spec === undefined) {
    if (tool.jsonSchema !== undefined) {
      spec = { name: tool.name, description: tool.description, parameters: tool.jsonSchema };
    } else {
      // A run makes its tools anew; their schemas are mostly the same objects run after run.
      let parameters = parametersCache.get(tool.schema);
      if (parameters === undefined) {
        const schema = z.toJSONSchema(tool.schema, { unrepresentable: 'any' }) as Record<string, unknown>;
        delete schema.$schema;
        parameters = stripHugeBounds(schema);
        parametersCache.set(tool.schema, parameters);
      }
      spec = { name: tool.name, description: tool.description, parameters };
    }
    specCache.set(tool, spec);
  }
  return spec;
}

/** zod writes Number.MAX_SAFE_INTEGER bounds on ints; they are noise for a model. */
function stripHugeBounds(schema: Record<string, unknown>): Record<string, unknown> {
  const props = schema.properties as Record<string, Record<string, unknown>> | undefined;
  for (const prop of Object.values(props ?? {})) {
    if (prop.maximum === Number.MAX_SAFE_INTEGER) delete prop.maximum;
  }
  return schema;
}

/** Runs the agent on `input` (or resumes the thread when input is null) until it answers. */
export async function runAgent(def: AgentDefinition, state: ThreadState, input: ChatMessage | null, options: RunOptions): Promise<RunResult> {
  const controller = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
  const parentRun = options.parentRun;
  const turn = parentRun?.turn ?? state.messages.filter(isPersonMessage).length + (input !== null && isPersonMessage(input) ? 1 : 0);
  const runInfo = {
    threadId: parentRun ? rootRun(parentRun).threadId : state.id,
    turn: Math.max(1, turn),
    agentName: options.agentName ?? 'deepdesk',
    depth: options.depth ?? 0,
    provider: def.model.provider,
    model: modelName(def.model.id),
    ...(options.parentToolCallId ? { parentToolCallId: options.parentToolCallId } : {}),
    ...(input !== null ? { input } : {}),
    ...(options.folder !== undefined ? { folder: options.folder } : {}),
  };
  const observer: RunObserver =
    (parentRun && options.parentToolCallId ? parentRun.toolObserver?.(options.parentToolCallId)?.subagent(runInfo) : options.telemetry?.turn(runInfo)) ?? NOOP_RUN;
  const toolObservers = new Map<string, ToolCallObserver>();
  const budget = options.budget ?? parentRun?.budget;
  const ctx: RunContext = {
    threadId: state.id,
    state,
    backend: def.backend,
    model: def.model,
    signal,
    depth: options.depth ?? 0,
    ...(options.parentRun ? { parent: options.parentRun } : {}),
    ...(options.parentToolCallId ? { parentToolCallId: options.parentToolCallId } : {}),
    ...(options.resumableToolCalls ? { resumableToolCalls: options.resumableToolCalls } : {}),
    emit: (event: AgentEventBody) =>
      options.emit({ ...event, threadId: state.id, ...(options.parentToolCallId ? { parentToolCallId: options.parentToolCallId } : {}) } as AgentEvent),
    persist: () => options.persist(state),
    // By the model's provider: what a media block costs depends on who reads it.
    countRequestTokens: (request) => countRequestTokens(request, def.model),
    turn: runInfo.turn,
    observer,
    toolObserver: (callId) => toolObservers.get(callId),
    stepAttributions: new Map(),
    ...(budget ? { budget } : {}),
  };
  if (parentRun === undefined) startRunTally(ctx);
  // Middleware tools can change between steps (an MCP server's list_changed, tool_search
  // loading a tool): read again before every model call; rebuilt only when they changed.
  let tools: AgentTool[] = [];
  let byName = new Map<string, AgentTool>();
  let specs: ToolSpec[] = [];
  const refreshTools = (): void => {
    const next = stepTools(def, ctx);
    if (next.length === tools.length && next.every((tool, i) => tool === tools[i])) return;
    tools = next;
    byName = toolMap(next);
    specs = offeredSpecs(next);
  };
  refreshTools();
  const maxSteps = def.maxSteps ?? DEFAULT_MAX_STEPS;
  const repeats = new RepeatedCallsGuard(def.maxRepeatedCalls);
  let lastText = '';
  let gate: GoalGate | undefined;
  let stopContinuations = 0;

  const toolContext = (call: ToolCall): ToolContext => ({
    backend: def.backend,
    guard: options.guard,
    toolCallId: call.id,
    signal,
    ...(options.onTerminalData ? { onTerminalData: options.onTerminalData } : {}),
    run: ctx,
    ...(def.model.mediaInput !== undefined ? { mediaInput: def.model.mediaInput } : {}),
    ...traceparentOf(toolObservers.get(call.id)),
    ...attributionOf(ctx.stepAttributions?.get(call.id)),
  });

  /** Runs the tool; a command's output also streams to its card as it runs. */
  const runWithLiveOutput = async (call: ToolCall): Promise<ToolOutput> => {
    const live = call.name === 'execute' ? liveOutput((chunk) => ctx.emit({ type: 'tool_output', id: call.id, chunk })) : null;
    if (live === null) return runTool(byName, call.name, call.args, toolContext(call));
    const context = toolContext(call);
    try {
      return await runTool(byName, call.name, call.args, {
        ...context,
        onTerminalData: (chunk: string) => {
          options.onTerminalData?.(chunk);
          live.push(chunk);
        },
      });
    } finally {
      live.close();
    }
  };

  /** Every check that needs no person; a refused call is answered without asking anyone. */
  const precheck = async (call: ToolCall, turnCalls: readonly ToolCall[]): Promise<ToolOutput | undefined> => {
    if (call.parseError !== undefined) {
      return errorText(`the arguments of this ${call.name} call were not valid JSON (${call.parseError}); call the tool again with a JSON object of arguments.`);
    }
    const checked = await checkToolCall(byName, call.name, call.args, toolContext(call));
    if ('refusal' in checked) return checked.refusal;
    return middlewarePrecheck(call, turnCalls);
  };

  const middlewarePrecheck = async (call: ToolCall, turnCalls: readonly ToolCall[]): Promise<ToolOutput | undefined> => {
    for (const m of def.middleware) {
      const reason = await m.precheck?.(ctx, { call, turnCalls });
      if (reason !== undefined) return errorText(reason);
    }
    return undefined;
  };

  /** `resumed`: calls the person was already asked about before a restart; they go straight to their decision. */
  const runToolCalls = async (calls: ToolCall[], resumed = false): Promise<ToolOutput[]> => {
    /** The call each id actually ran as (the person may have edited it). */
    const ran = new Map<string, ToolCall>();
    const execute = chainToolCall(def.middleware, ctx, calls, async (call) => {
      ran.set(call.id, call);
      // Checked again now (runTool repeats the tool's own checks): the person may have
      // edited the call, or the file or the mode changed while they decided.
      return (await middlewarePrecheck(call, calls)) ?? runWithLiveOutput(call);
    });
    const emitResult = (call: ToolCall, output: ToolOutput): void => {
      ctx.emit({
        type: 'tool_result',
        id: call.id,
        name: call.name,
        output: output.text,
        isError: isErrorOutput(output),
        ...(output.media?.kind === 'image' ? { image: { mimeType: output.media.mimeType } } : {}),
        ...(output.change ? { change: output.change } : {}),
        ...resultFacts(output),
      });
      for (const event of output.followUp ?? []) ctx.emit(event);
    };
    for (const call of calls) if (!toolObservers.has(call.id)) toolObservers.set(call.id, observer.toolCall({ id: call.id, name: call.name, args: call.args }));
    const endObserved = (call: ToolCall, output: ToolOutput): void => {
      toolObservers.get(call.id)?.end({ output: output.text, isError: isErrorOutput(output) });
      toolObservers.delete(call.id);
    };
    /** Results emitted as their call ended; the others wait for the afterToolCalls hooks. */
    const emitted = new Map<string, ToolOutput>();
    let results = await Promise.all(
      calls.map(async (call) => {
        const refused = resumed ? undefined : await precheck(call, calls).catch((err: unknown) => errorText(`${call.name} failed: ${errorMessage(err)}`));
        const output = refused ?? (await execute(call).catch((err: unknown) => errorText(`${call.name} failed: ${errorMessage(err)}`)));
        if (!def.middleware.some((m) => m.holdsToolResult?.(ctx, call, output) === true)) {
          emitted.set(call.id, output);
          emitResult(call, output);
        }
        return { call, output };
      }),
    );
    // On shutdown the calls stay unanswered: approvals resume after the restart, the rest are repaired then.
    if (isShutdown(signal)) {
      for (const { call, output } of results) endObserved(call, output);
      return results.map((r) => r.output);
    }
    // The step boundary: hooks may replace outputs before anything is recorded (SPEC §13: a git mount pushes here).
    for (const m of def.middleware) {
      if (!m.afterToolCalls) continue;
      // A hook that throws fails the calls it held (their outcome is unknown), not the others.
      const replaced = await m
        .afterToolCalls(ctx, results)
        .catch((err: unknown) => results.map((r) => (emitted.has(r.call.id) ? r.output : errorText(`${r.call.name} failed: ${errorMessage(err)}`))));
      if (replaced !== undefined) results = results.map((r, i) => ({ call: r.call, output: replaced[i] ?? r.output }));
    }
    // Held results go out now, once; one already shown that a hook changed is shown again.
    for (const { call, output } of results) if (emitted.get(call.id) !== output) emitResult(call, output);
    for (const { call, output } of results) endObserved(call, output);
    recordRanCalls(state, ran);
    for (const { call, output } of results) state.messages.push(toolMessage(call, output, def.model.mediaInput));
    state.guard = options.guard.toJSON();
    await ctx.persist();
    return results.map((r) => r.output);
  };

  /** Delivers the messages queued during the run; true if there were any. */
  const deliverQueued = async (): Promise<boolean> => {
    const queued = options.takeQueued?.() ?? [];
    let delivered = 0;
    for (const input of queued) {
      let message: ChatMessage = { role: 'user', content: input.text };
      try {
        for (const m of def.middleware) if (m.onUserMessage) message = await m.onUserMessage(ctx, message);
      } catch (err) {
        // Refused (a hook): the person is told; the run goes on without it.
        if (!(err instanceof PromptRefusedError)) throw err;
        ctx.emit({ type: 'error', message: err.message });
        continue;
      }
      state.messages.push(message);
      ctx.emit({ type: 'user_message', text: input.text, queuedId: input.id });
      delivered++;
    }
    if (delivered === 0) return false;
    repeats.reset();
    stopContinuations = 0;
    await ctx.persist();
    return true;
  };

  /** Puts the notes waiting for the model into the history, before the next model call. */
  const deliverNotes = async (): Promise<void> => {
    const fresh = appendNotes(state.messages, options.pendingNotes?.() ?? []);
    if (fresh.length === 0) return;
    for (const note of fresh) ctx.emit({ type: 'note', id: note.id, kind: note.kind, text: note.display, ...(note.checkpointId !== undefined ? { checkpointId: note.checkpointId } : {}) });
    await ctx.persist();
  };

  /** A Stop hook's instruction, put into the history as a note: true when the agent goes on. */
  const goOnAfterStop = async (text: string): Promise<boolean> => {
    if (stopContinuations >= MAX_STOP_CONTINUATIONS) return false;
    for (const m of def.middleware) {
      const instruction = await m.onStop?.(ctx, { text, continued: stopContinuations });
      if (instruction === undefined) continue;
      stopContinuations++;
      const id = `stop-hook-${randomUUID()}`;
      const display = `A Stop hook made the agent go on (${stopContinuations} of at most ${MAX_STOP_CONTINUATIONS} in a row): ${instruction}`;
      state.messages.push({ role: 'user', content: instruction, note: { id, kind: 'hook', display } });
      ctx.emit({ type: 'note', id, kind: 'hook', text: display });
      await ctx.persist();
      return true;
    }
    return false;
  };

  /** A verify step, run as the agent's own execute would be: checked, asked about by the rules, contained. */
  const runVerifyStep = async (step: VerifyStep): Promise<StepRun> => {
    const call: ToolCall = { id: hostCallId(verifyCallKind(gate?.goal, step)), name: 'execute', args: { command: step.command }, argsText: JSON.stringify({ command: step.command }) };
    ctx.emit({ type: 'tool_call', id: call.id, name: call.name, args: call.args });
    const refused = await precheck(call, [call]);
    const output =
      refused ??
      (await chainToolCall(def.middleware, ctx, [call], async (c) => (await middlewarePrecheck(c, [c])) ?? runWithLiveOutput(c))(call).catch((err: unknown) =>
        errorText(`execute failed: ${errorMessage(err)}`),
      ));
    ctx.emit({ type: 'tool_result', id: call.id, name: call.name, output: output.text, isError: isErrorOutput(output), ...resultFacts(output) });
    if (refused !== undefined || output.rejected !== undefined || output.exitCode === undefined) {
      return { exitCode: null, output: output.text, refused: output.rejected?.message ?? output.text };
    }
    return { exitCode: output.exitCode, output: output.text };
  };

  const goalOptions = options.goals;
  const startGate = (): GoalGate | undefined => {
    const goal = state.goal;
    if (goal?.state !== 'pursuing' || goalOptions === undefined || parentRun !== undefined) return undefined;
    const place: GoalPlace = { runStep: runVerifyStep, tree: () => goalOptions.folder.tree(), diff: (base) => goalOptions.folder.diff(base) };
    return new GoalGate(goal, place, (request) =>
      graderCall({
        ctx,
        model: goalOptions.graderModel ?? def.model,
        request,
        tools: specs,
        runTool: (call) => runTool(byName, call.name, call.args, toolContext(call)),
      }),
    );
  };
  const tellGoal = async (): Promise<void> => {
    if (state.goal === undefined) return;
    ctx.emit({ type: 'goal', goal: goalJson(state.goal) });
    await ctx.persist();
  };
  /** The gate's outcome: true when the agent goes on with the revision as its next turn. */
  const afterGate = async (outcome: GateOutcome): Promise<boolean> => {
    await tellGoal();
    if (outcome.kind === 'end') return false;
    const id = `goal-${randomUUID()}`;
    state.messages.push({ role: 'user', content: outcome.message, note: { id, kind: 'hook', display: outcome.message } });
    ctx.emit({ type: 'note', id, kind: 'hook', text: outcome.message });
    await ctx.persist();
    return true;
  };
  /** The agent ended a turn: the host checks the goal (one trace span per evaluation). */
  const checkGoal = async (text: string): Promise<GateOutcome | undefined> => {
    if (gate === undefined || gate.goal.state !== 'pursuing') return undefined;
    const span = observer.goalGate?.({ round: gate.goal.rounds, steps: gate.goal.verify.length });
    const started = performance.now();
    try {
      const { outcome, evaluation, evidence } = await gate.evaluate(text);
      const passed = evidence.steps.filter((s) => s.passed).length;
      span?.end({ verdict: evaluation.verdict, state: gate.goal.state, stepsPassed: passed, stepsFailed: evidence.steps.length - passed, durationMs: performance.now() - started });
      return outcome;
    } catch (err) {
      span?.end({ verdict: 'error', state: gate.goal.state, stepsPassed: 0, stepsFailed: 0, durationMs: performance.now() - started, error: errorMessage(err) });
      throw err;
    }
  };
  /** How the run ended, as the goal records it: never left `pursuing` when nothing runs. */
  const settleGoal = async (reason: RunStopReason, message: string | undefined): Promise<void> => {
    const goal = gate?.goal;
    if (goal === undefined || goal.state !== 'pursuing') return;
    if (reason === 'budget') endGoal(goal, 'budget-limited', message ?? 'the budget stopped the run');
    else if (reason === 'completed') return;
    else endGoal(goal, 'paused', reason === 'aborted' ? (isShutdown(signal) ? 'the agent host stopped while the goal was pursued' : 'the run was stopped') : reason === 'max_steps' ? 'the run reached its step limit' : `the run failed: ${message ?? reason}`);
    ctx.emit({ type: 'goal', goal: goalJson(goal) });
  };

  try {
    gate = startGate();
    // A thread that stopped mid-step: re-run calls that were only waiting for approval,
    // and close the others with an "interrupted" result so the history stays valid.
    const unresolved = unresolvedToolCalls(state.messages);
    if (unresolved.length > 0) {
      const resumable = unresolved.filter((c) => options.resumableToolCalls?.has(c.id));
      if (resumable.length > 0) await runToolCalls(resumable, true);
      if (resumable.length !== unresolved.length) {
        state.messages = repairDanglingToolCalls(state.messages);
        await ctx.persist();
      }
    }

    if (options.compactOnly) {
      let compacted = false;
      for (const m of def.middleware) if (m.compactNow && (await m.compactNow(ctx))) compacted = true;
      await ctx.persist();
      return finish(ctx, compacted ? 'The conversation was compacted.' : 'There was nothing to compact yet.', 'completed');
    }

    if (options.turnRunner !== undefined) return await otherAgentTurns(options.turnRunner);

    // News from before this message (a restore, say) comes before it.
    await deliverNotes();
    if (input !== null) {
      let message = input;
      for (const m of def.middleware) if (m.onUserMessage) message = await m.onUserMessage(ctx, message);
      state.messages.push(message);
      await ctx.persist();
    }
    // Messages queued before this run could take them (or while resumed calls ran) go first.
    await deliverQueued();

    for (let step = 0; step < maxSteps; step++) {
      if (signal.aborted) return finish(ctx, lastText, 'aborted');
      await deliverNotes();
      refreshTools();
      const turn = await callModel(def, ctx, specs);
      lastText = turn.text;
      state.messages.push(assistantMessage(ctx.model, turn.text, turn));
      await ctx.persist();
      if (turn.toolCalls.length === 0) {
        // A message that arrived during the answer starts the next turn of this same run.
        if (!signal.aborted && (await deliverQueued())) continue;
        if (!signal.aborted && (await goOnAfterStop(turn.text))) continue;
        // The host, not the model, checks the goal before the turn may end.
        const checked = signal.aborted ? undefined : await checkGoal(turn.text);
        if (checked !== undefined && (await afterGate(checked))) continue;
        if (signal.aborted) return await ended(lastText, 'aborted');
        return finish(ctx, turn.text, 'completed');
      }
      const outputs = await runToolCalls(turn.toolCalls);
      if (signal.aborted) return await ended(lastText, 'aborted');
      if (gate !== undefined && gate.goal.state === 'pursuing') {
        const stalled = await gate.afterStep(turn.toolCalls.map((call, i) => ({ name: call.name, args: call.args, output: outputs[i]?.text ?? '', ...(outputs[i]?.exitCode !== undefined ? { exitCode: outputs[i]!.exitCode } : {}) })));
        if (stalled !== undefined) {
          await tellGoal();
          if (stalled.kind === 'end') ctx.emit({ type: 'error', message: `The goal stopped: ${stalled.reason}` });
          return finish(ctx, lastText, 'completed');
        }
      }
      repeats.record(turn.toolCalls, outputs);
      await deliverQueued();
    }
    return await ended(lastText, 'max_steps');
  } catch (err) {
    if (err instanceof AbortedError || signal.aborted) {
      await settleGoal('aborted', undefined);
      if (!isShutdown(signal)) await ctx.persist().catch(() => undefined);
      return finish(ctx, lastText, 'aborted');
    }
    if (err instanceof BudgetExceededError) {
      // Recorded whole: the goal's state and its evidence so far are saved with the run's end.
      await settleGoal('budget', err.message);
      ctx.emit({ type: 'error', message: err.message, budget: true });
      await ctx.persist().catch(() => undefined);
      return { ...finish(ctx, lastText, 'budget', err.message), error: err };
    }
    if (err instanceof RepeatedCallsError && gate !== undefined && gate.goal.state === 'pursuing') {
      // The identical-call guard ends a goal as stalled (SPEC §21): the run stops, nothing more is spent.
      gate.stall(err.message.replace(/^Stopped: /, '').replace(/ Send a message.*$/, ''));
      ctx.emit({ type: 'goal', goal: goalJson(gate.goal) });
      ctx.emit({ type: 'error', message: `The goal stopped: ${gate.goal.reason ?? 'stalled'}` });
      await ctx.persist().catch(() => undefined);
      return finish(ctx, lastText, 'completed');
    }
    await settleGoal('error', errorMessage(err));
    const error = err instanceof Error ? err : new Error(String(err));
    ctx.emit({
      type: 'error',
      message: error.message,
      ...(err instanceof ModelError && err.status !== undefined ? { status: err.status } : {}),
      ...(err instanceof PromptRefusedError ? { refused: true } : {}),
      ...problemOf(err, def.model.id),
    });
    await ctx.persist().catch(() => undefined);
    return { ...finish(ctx, lastText, 'error', error.message), error };
  }

  /** Another agent's turns (the turn runner seam): each ends at the gate, which may send it back with the host's evidence. */
  async function otherAgentTurns(turnRunner: (text: string, recorded: boolean) => Promise<RunResult>): Promise<RunResult> {
    if (input === null) throw new Error('another agent goes on only with a message');
    let text = typeof input.content === 'string' ? input.content : input.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    let recorded = false;
    for (let step = 0; step < maxSteps; step++) {
      if (signal.aborted) return await ended(lastText, 'aborted');
      const result = await turnRunner(text, recorded);
      lastText = result.text;
      if (result.reason === 'budget') {
        await settleGoal('budget', result.error?.message);
        await ctx.persist().catch(() => undefined);
        return { ...finish(ctx, lastText, 'budget', result.error?.message), ...(result.error ? { error: result.error } : {}) };
      }
      if (result.reason !== 'completed') {
        if (result.reason === 'error') {
          await settleGoal('error', result.error?.message);
          await ctx.persist().catch(() => undefined);
          return { ...finish(ctx, lastText, 'error', result.error?.message), ...(result.error ? { error: result.error } : {}) };
        }
        return await ended(lastText, result.reason);
      }
      // The agent's claim of done: the host, not the agent, checks the goal.
      const checked = signal.aborted ? undefined : await checkGoal(result.text);
      if (checked !== undefined && (await afterGate(checked))) {
        if (checked.kind === 'revise') {
          text = checked.message;
          recorded = true;
        }
        continue;
      }
      if (signal.aborted) return await ended(lastText, 'aborted');
      return finish(ctx, lastText, 'completed');
    }
    return await ended(lastText, 'max_steps');
  }

  async function ended(text: string, reason: RunStopReason): Promise<RunResult> {
    await settleGoal(reason, undefined);
    await ctx.persist().catch(() => undefined);
    return finish(ctx, text, reason);
  }
}

/** A failed model call's problem in plain words (server down, refused key…), when it is one. */
function problemOf(err: unknown, model: string): { problem?: ModelProblem } {
  if (!(err instanceof ModelError)) return {};
  const problem = modelProblem(err, model);
  return problem ? { problem } : {};
}

/**
 * Rewrites the stored tool calls that ran with other arguments than the model proposed
 * (the person edited them), so the history shows the call that ran, marked as edited.
 * Messages are replaced, not mutated: token counts and the store key on identity.
 */
function recordRanCalls(state: ThreadState, ran: ReadonlyMap<string, ToolCall>): void {
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const message = state.messages[i]!;
    if (message.role !== 'assistant' || !message.toolCalls?.some((c) => ran.has(c.id))) continue;
    let changed = false;
    const toolCalls = message.toolCalls.map((call) => {
      const actual = ran.get(call.id);
      if (actual === undefined || canonicalJson(actual.args) === canonicalJson(call.args)) return call;
      changed = true;
      return { ...call, args: actual.args, argsText: JSON.stringify(actual.args), originalArgs: call.originalArgs ?? call.args, ...(actual.editedBy ? { editedBy: actual.editedBy } : {}) };
    });
    if (changed) state.messages[i] = { ...message, toolCalls };
    return;
  }
}

function finish(ctx: RunContext, text: string, reason: RunStopReason, error?: string): RunResult {
  ctx.observer.end({ reason, text, ...(error !== undefined ? { error } : {}) });
  const usage = runTally(ctx);
  ctx.emit({ type: 'done', text, reason, ...(usage !== undefined ? { usage } : {}) });
  return { text, reason };
}

function attributionOf(attribution: StepAttribution | undefined): { attribution?: StepAttribution } {
  return attribution ? { attribution } : {};
}

function traceparentOf(observer: ToolCallObserver | undefined): { traceparent?: string } {
  const traceparent = observer?.traceparent();
  return traceparent !== undefined ? { traceparent } : {};
}

/** The tools of this step: the base tools and every middleware's (deferred ones are callable, not offered). */
function stepTools(def: AgentDefinition, ctx: RunContext): AgentTool[] {
  return [...def.tools, ...def.middleware.flatMap((m) => m.tools?.(ctx) ?? [])];
}

function offeredSpecs(tools: readonly AgentTool[]): ToolSpec[] {
  return tools.filter((tool) => tool.deferred !== true).map(toolSpec);
}

/** The system prompt's parts in order: the base prompt, then what each middleware adds where its feature applies. */
async function systemParts(def: AgentDefinition, ctx: RunContext): Promise<SystemPart[]> {
  const parts: SystemPart[] = [{ name: 'base', text: def.systemPrompt }];
  for (const m of def.middleware) {
    const section = await m.systemPrompt?.(ctx);
    if (typeof section === 'string') parts.push({ name: m.name, text: section });
    else if (section) parts.push(...section);
  }
  return parts.filter((part) => part.text !== '');
}

async function buildRequest(def: AgentDefinition, ctx: RunContext, specs: ToolSpec[]): Promise<{ request: ModelCallRequest; systemParts: SystemPart[] }> {
  const parts = await systemParts(def, ctx);
  return { request: { system: parts.map((part) => part.text).join('\n\n'), messages: modelView(ctx.state), tools: specs }, systemParts: parts };
}

/** What the next model call of a thread would send, and the parts of its system prompt. */
export interface RequestPreview {
  /** Joined by blank lines they are `request.system`. */
  systemParts: SystemPart[];
  /** As the model would get it: after every middleware's wrapModelCall. */
  request: ModelCallRequest;
}

/**
 * The request a run of `def` would send next with `input` added to the thread, built as the
 * run builds it (the same tools, system parts and middleware), without calling the model,
 * running anything or changing the thread. Hooks on the person's message are not run.
 */
export async function previewRequest(def: AgentDefinition, state: ThreadState, input: ChatMessage | null): Promise<RequestPreview> {
  const preview: ThreadState = { ...state, messages: input === null ? [...state.messages] : [...state.messages, input] };
  const ctx: RunContext = {
    threadId: state.id,
    state: preview,
    backend: def.backend,
    model: def.model,
    signal: new AbortController().signal,
    depth: 0,
    emit: () => undefined,
    persist: async () => undefined,
    countRequestTokens: (request) => countRequestTokens(request, def.model),
    turn: Math.max(1, preview.messages.filter(isPersonMessage).length),
    observer: NOOP_RUN,
  };
  const { request, systemParts } = await buildRequest(def, ctx, offeredSpecs(stepTools(def, ctx)));
  let sent: ModelCallRequest = request;
  await chainModelCall(def.middleware, ctx, async (final) => {
    sent = final;
    return { text: '', toolCalls: [], stopReason: 'stop', usage: ZERO_USAGE };
  })(request);
  return { systemParts, request: sent };
}

async function callModel(def: AgentDefinition, ctx: RunContext, specs: ToolSpec[]): Promise<ModelTurn> {
  let overflowHandled = false;
  for (;;) {
    let { request } = await buildRequest(def, ctx, specs);
    for (const m of def.middleware) {
      if (m.beforeModel) {
        await m.beforeModel(ctx, request);
      }
    }
    // beforeModel hooks may have summarized: look again.
    request = { ...request, messages: modelView(ctx.state) };
    const call = chainModelCall(def.middleware, ctx, (req) => streamTurn(ctx, req));
    try {
      const turn = await call(request);
      recordUsage(ctx, turn.usage, turn.costUsd, ctx.countRequestTokens(request));
      return turn;
    } catch (err) {
      if (err instanceof ContextOverflowError && !overflowHandled) {
        overflowHandled = true;
        let shrunk = false;
        for (const m of def.middleware) if (m.onContextOverflow && (await m.onContextOverflow(ctx))) shrunk = true;
        if (shrunk) continue;
      }
      throw err;
    }
  }
}

async function streamTurn(ctx: RunContext, request: ModelCallRequest): Promise<ModelTurn> {
  let text = '';
  const toolCalls: ToolCall[] = [];
  let usage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  let costUsd: number | undefined;
  let stopReason: ModelTurn['stopReason'] = 'other';
  const reasoning: ReasoningBlock[] = [];
  let textMetadata: ProviderMetadata | undefined;
  try {
    const onRetry = (notice: ModelRetryNotice): void => ctx.emit({ type: 'retry', ...notice });
    const metered = meteredStream(ctx, { ...request, signal: ctx.signal, onRetry }, {
      purpose: 'agent',
      promptTokens: () => ctx.countRequestTokens(request),
      onUsage: (_usage, cost) => (costUsd = cost),
    });
    for await (const event of metered) {
      switch (event.type) {
        case 'text-delta':
          text += event.text;
          ctx.emit({ type: 'text', text: event.text });
          break;
        case 'tool-call':
          toolCalls.push(event.call);
          ctx.emit({ type: 'tool_call', id: event.call.id, name: event.call.name, args: event.call.args, ...(event.call.parseError ? { parseError: event.call.parseError } : {}) });
          break;
        case 'reasoning-part':
          reasoning.push(event.reasoning);
          break;
        case 'text-metadata':
          textMetadata = { ...textMetadata, ...event.providerMetadata };
          break;
        case 'finish':
          usage = event.usage;
          stopReason = event.stopReason;
          break;
        default:
          break;
      }
    }
  } catch (err) {
    // Keep what was streamed before a Stop: the person saw it, so the history has it.
    if ((err instanceof AbortedError || ctx.signal.aborted) && text !== '') {
      ctx.state.messages.push(assistantMessage(ctx.model, text, { toolCalls: [], reasoning, ...(textMetadata ? { textMetadata } : {}) }));
    }
    throw err;
  }
  return { text, toolCalls, stopReason, usage, reasoning, ...(textMetadata ? { textMetadata } : {}), ...(costUsd !== undefined ? { costUsd } : {}) };
}

/**
 * The answer as stored: with the provider that wrote it and what that provider needs back
 * on the next request (reasoning blocks, the text's metadata; a call's is on the call).
 */
function assistantMessage(model: ChatModel, text: string, turn: Pick<ModelTurn, 'toolCalls' | 'reasoning' | 'textMetadata'>): ChatMessage {
  return {
    role: 'assistant',
    content: text,
    ...(turn.toolCalls.length > 0 ? { toolCalls: turn.toolCalls } : {}),
    provider: model.provider,
    ...(turn.reasoning !== undefined && turn.reasoning.length > 0 ? { reasoning: turn.reasoning } : {}),
    ...(turn.textMetadata !== undefined ? { textMetadata: turn.textMetadata } : {}),
  };
}

function toolMessage(call: ToolCall, output: ToolOutput, mediaInput: MediaInput | undefined): ChatMessage {
  const isError = isErrorOutput(output);
  // What a write or edit did and the result's facts, for the window after a reload (the model never sees them).
  const change = { ...(output.change ? { change: output.change } : {}), ...resultFacts(output) };
  const media = output.media;
  if (media && !takesMedia(mediaInput, media.mimeType)) {
    const text = `${output.text}\n${notTakenNotice(media.kind, media.name ?? call.name, media.bytes)}`;
    return { role: 'tool', toolCallId: call.id, toolName: call.name, content: text, ...change };
  }
  const content = media
    ? [
        { type: 'text' as const, text: output.text },
        { type: media.kind === 'image' ? ('image' as const) : ('file' as const), mimeType: media.mimeType, data: media.data, bytes: media.bytes, ...(media.name !== undefined ? { name: media.name } : {}) },
      ]
    : output.text;
  return { role: 'tool', toolCallId: call.id, toolName: call.name, content, ...(isError ? { isError } : {}), ...change };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
