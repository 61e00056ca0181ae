// A goal's gate inside a run (SPEC §21): the gate of core/goals handed the run's thread, the
// verify steps' path (the step's own tools: runHostCommand) and the grader call, metered like every
// model call of the run (its budget hold, a ledger row with purpose `grader`, the thread's totals),
// offered the read-only tools and the verdict tool.

import { GoalGate, type GradeAnswer, type GradeRequest } from '../goals/gate';
import type { GoalPlace } from '../goals/evidence';
import { VERDICT_TOOL, VERDICT_TOOL_SPEC } from '../goals/grader';
import { verifyCallKind } from '../goals/goal-check';
import { RunGate } from '../goals/run-gate';
import type { ChatMessage, ChatModel, ToolCall, ToolSpec } from '../models/types';
import type { ModelCallPurpose } from '../telemetry/observer';
import type { ToolOutput } from '../tools/tool';
import { meteredStream, recordUsage } from './model-call';
import type { RunContext } from './run-context';
import type { RunOptions } from './run-options';
import type { StepTools } from './tool-step';
import { isShutdown } from './types';

/** The gate of a run whose thread pursues a goal (a subagent's run checks none). */
export function runGate(ctx: RunContext, goals: RunOptions['goals'], tools: StepTools): RunGate | undefined {
  const goal = ctx.state.goal;
  if (goal?.state !== 'pursuing' || goals === undefined || ctx.parent !== undefined) return undefined;
  const place: GoalPlace = { ...goals.folder, runStep: (step) => tools.runHostCommand(step.command, verifyCallKind(goal, step)) };
  const grade = (request: GradeRequest): Promise<GradeAnswer> =>
    structuredCall({ ctx, model: goals.graderModel ?? ctx.model, purpose: 'grader', request, answer: { name: VERDICT_TOOL, spec: VERDICT_TOOL_SPEC as unknown as ToolSpec }, tools: tools.specs, runTool: (call) => tools.runTool(call) });
  return new RunGate(new GoalGate(goal, place, grade), ctx, () => isShutdown(ctx.signal), (info) => ctx.observer.goalGate?.(info));
}

/** The tools a grader (or a drafting call) may use: they read, never change anything. */
export const READ_ONLY_TOOLS: ReadonlySet<string> = new Set(['ls', 'read_file', 'glob', 'grep']);
/** Model calls a grader makes at most (reads, then its verdict). */
const GRADER_STEPS = 6;

export interface StructuredCallOptions {
  ctx: RunContext;
  /** The model to call (Settings' grader model, else the run's). */
  model: ChatModel;
  purpose: ModelCallPurpose;
  request: GradeRequest;
  /** The structured answer's tool. */
  answer: { name: string; spec: ToolSpec };
  /** The read-only tools offered, and how one runs. */
  tools: readonly ToolSpec[];
  runTool: (call: ToolCall) => Promise<ToolOutput>;
}

/**
 * A model call that answers through one tool call (`answer`), after reading with read-only tools
 * if it wants; each model call is metered (budget, ledger row of its purpose, thread totals).
 */
export async function structuredCall(options: StructuredCallOptions): Promise<GradeAnswer> {
  const { ctx, model, purpose, request } = options;
  // The call's own context: the model it goes to; the run's tally, budget and observer.
  const callCtx: RunContext = model === ctx.model ? ctx : { ...ctx, model, parent: ctx };
  const tools = [options.answer.spec, ...options.tools.filter((t) => READ_ONLY_TOOLS.has(t.name))];
  const messages: ChatMessage[] = [{ role: 'user', content: request.prompt }];
  const usage = { input: 0, output: 0 };
  for (let step = 0; step < GRADER_STEPS; step++) {
    const last = step === GRADER_STEPS - 1;
    const offered = last ? [options.answer.spec] : tools;
    let text = '';
    const calls: ToolCall[] = [];
    for await (const event of meteredStream(callCtx, { system: request.system, messages, tools: offered, signal: ctx.signal }, {
      purpose,
      promptTokens: () => ctx.countRequestTokens({ system: request.system, messages, tools: offered }),
      onUsage: (u, cost) => {
        usage.input += u.inputTokens;
        usage.output += u.outputTokens;
        recordUsage(ctx, u, cost);
      },
    })) {
      if (event.type === 'text-delta') text += event.text;
      else if (event.type === 'tool-call') calls.push(event.call);
    }
    const answer = calls.find((c) => c.name === options.answer.name);
    if (answer !== undefined) return { args: answer.args, usage };
    if (calls.length === 0) return { args: undefined, usage };
    messages.push({ role: 'assistant', content: text, toolCalls: calls, provider: model.provider });
    for (const call of calls) {
      const output = READ_ONLY_TOOLS.has(call.name) ? await options.runTool(call).catch((err: unknown) => ({ text: `Error: ${String(err)}` })) : { text: `Error: ${call.name} is not available here` };
      messages.push({ role: 'tool', toolCallId: call.id, toolName: call.name, content: output.text });
    }
  }
  return { args: undefined, usage };
}

