// Subagents (SPEC §4): `task` starts a fresh agent with its own context on a description
// and returns only its final answer. `general-purpose` always exists; more come from
// settings. Several task calls in one turn run in parallel (the loop runs calls
// concurrently); their events stream under the parent call; they ask for approval too.
// A thread's fan-out (SPEC §26): its spawn cap and a large turn's question (fan-out-gate.ts),
// at most maxConcurrent subagents running at once, and the honest count after each step.

import { z } from 'zod';
import { costAt, modelPrice } from '../../models/model-info';
import type { ChatModel, ToolCall } from '../../models/types';
import { deepdeskToolName } from '../../tools/claude-code-names';
import { ReadGuard } from '../../tools/read-guard';
import { defineTool, errorText, text, type AgentTool, type ToolOutput } from '../../tools/tool';
import { formatUsd } from '../../spend/spend-tree';
import { countParts, DEFAULT_MAX_CONCURRENT, fanOutNote, partOf, recordFanOut, Turns, type FanOutLimits, type FanOutPart } from '../fan-out';
import { runAgent } from '../loop';
import type { Middleware } from '../middleware';
import type { RunContext } from '../run-context';
import { newThreadState, type AgentEvent } from '../types';
import { fanOutGate, type FanOutGateOptions } from './fan-out-gate';

export interface SubagentSpec {
  name: string;
  description: string;
  systemPrompt: string;
  /** Names of base tools it may use; all of them when absent. */
  tools?: string[];
  /** 'provider:model'; when absent, Settings' subagent model (SubagentOptions.defaultModel), else the parent's. */
  model?: string;
}

export interface SubagentOptions {
  subagents: SubagentSpec[];
  /** The parent's base tools (file tools, execute). */
  baseTools: AgentTool[];
  /** Middleware for subagents: the parent's, minus this one (no nested tasks). */
  childMiddleware: () => Middleware[];
  /** The base system prompt the general-purpose subagent shares. */
  basePrompt: string;
  resolveModel?: (spec: string) => ChatModel | Promise<ChatModel>;
  /** Settings' *Subagent model* ('provider:model'), read at each `task`: a subagent whose declaration names none runs on it (SPEC §26). */
  defaultModel?: () => string | undefined;
  /** Who answers a large fan-out, and what allows it unasked (the approval middleware's options). */
  approval?: FanOutGateOptions['approval'];
}

export const GENERAL_PURPOSE = 'general-purpose';

/** Only these tools are offered to the model, and a call of any other is refused before anything runs or asks. */
function toolLimit(subagent: string, allowed: ReadonlySet<string>): Middleware {
  const listed = [...allowed].join(', ');
  return {
    name: 'subagent-tools',
    wrapModelCall: (_ctx, request, next) => next({ ...request, tools: request.tools.filter((t) => allowed.has(t.name)) }),
    precheck: (_ctx, info) => (allowed.has(info.call.name) ? undefined : `${info.call.name} is not one of the tools of subagent ${subagent} (${listed})`),
  };
}

/**
 * A subagent's tools and middleware: its `tools` (Deepdesk's names or Claude Code's) limit what
 * it is offered and what it can call, whatever adds the tool. For `task`, and for a run whose
 * agent is the subagent itself (an Agent Protocol assistant).
 */
export function subagentTools(spec: SubagentSpec, baseTools: AgentTool[], middleware: Middleware[]): { tools: AgentTool[]; middleware: Middleware[] } {
  if (spec.tools === undefined) return { tools: baseTools, middleware };
  const allowed = new Set(spec.tools.map(deepdeskToolName));
  return { tools: baseTools.filter((t) => allowed.has(t.name)), middleware: [...middleware, toolLimit(spec.name, allowed)] };
}

/** The calls of the subagent under `callId` that were waiting for approval (`callId/id` → `id`). */
function resumableUnder(parent: RunContext, callId: string): Set<string> {
  const prefix = `${callId}/`;
  return new Set([...(parent.resumableToolCalls ?? [])].filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length)));
}

const SUBAGENT_NOTE = `## You are a subagent
Another agent gave you one task. Work on it independently with your tools; you cannot ask it questions. Your final message is the only thing it will see: make it a complete, self-contained report of what you did and found (paths, results, anything it must know), without chit-chat.`;

export function subagentsMiddleware(options: SubagentOptions): Middleware {
  const specs = new Map<string, SubagentSpec>();
  specs.set(GENERAL_PURPOSE, {
    name: GENERAL_PURPOSE,
    description: 'Has your tools; for research, code searches or a self-contained multi-step task.',
    systemPrompt: options.basePrompt,
  });
  for (const s of options.subagents) specs.set(s.name, s);
  const catalogue = [...specs.values()].map((s) => `- ${s.name}: ${s.description}`).join('\n');

  const schema = z.object({
    description: z.string({ error: 'description must be a string: the full task for the subagent' }).min(1, 'description must not be empty'),
    subagent_type: z.string({ error: `subagent_type must be one of: ${[...specs.keys()].join(', ')}` }),
  });

  const task: AgentTool = defineTool({
    name: 'task',
    description: [
      'Give a self-contained task to a subagent: it works in a fresh context and returns only its final report, keeping yours small. It cannot see this conversation, so the description must say all it needs (goal, paths, what to report). Start several in one turn for independent parts.',
      `subagent_type is one of:\n${catalogue}`,
    ].join('\n'),
    schema,
    async run(args, ctx) {
      const parent = ctx.run;
      if (parent === undefined) return errorText('task is only available to the agent');
      const spec = specs.get(args.subagent_type);
      if (spec === undefined) return errorText(`unknown subagent_type '${args.subagent_type}'; use one of: ${[...specs.keys()].join(', ')}`);
      return runSubagent(parent, spec, args.description, ctx.toolCallId);
    },
  });

  // The thread's budget node's spawn and concurrency caps, the tightest from it up to the workspace (SPEC §26).
  const limits = (ctx: RunContext): FanOutLimits => ctx.budget?.fanOutLimits() ?? {};
  /** Each thread's run's subagents take turns, at most maxConcurrent at once (the depth-0 run: only it has `task`). */
  const turns = new WeakMap<RunContext, Turns>();
  /** What each started subagent came to, by its task call's id, until its step's count is made. */
  const parts = new WeakMap<RunContext, Map<string, FanOutPart>>();
  const admit = fanOutGate({ limits, ...(options.approval ? { approval: options.approval } : {}), estimate: (ctx, calls) => estimate(ctx, calls, specs) });

  const runSubagent = async (parent: RunContext, spec: SubagentSpec, description: string, callId: string): Promise<ToolOutput> => {
    let slots = turns.get(parent);
    if (slots === undefined) turns.set(parent, (slots = new Turns(() => limits(parent).maxConcurrent ?? DEFAULT_MAX_CONCURRENT)));
    return slots.run(parent.signal, () => startSubagent(parent, spec, description, callId), () => errorText(`subagent ${spec.name} was stopped before it started`));
  };

  const startSubagent = async (parent: RunContext, spec: SubagentSpec, description: string, callId: string): Promise<ToolOutput> => {
    let model = parent.model;
    const named = spec.model ?? (options.defaultModel?.() || undefined);
    if (named !== undefined && options.resolveModel) {
      try {
        model = await options.resolveModel(named);
      } catch (err) {
        return errorText(`subagent ${spec.name} has an unusable model '${named}': ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    // The card names the model it ran on (SPEC §26).
    const ranOn = { subagentModel: model.id };
    const { tools, middleware } = subagentTools(spec, options.baseTools, options.childMiddleware());
    const state = newThreadState(`${parent.threadId}.${callId}`);
    // After a restart, a subagent that was waiting for the person goes on from its saved
    // transcript, so its pending call (and the saved approval) is the same one.
    const waiting = resumableUnder(parent, callId);
    const saved = parent.state.subagentRuns?.[callId];
    const resuming = waiting.size > 0 && saved !== undefined && saved.length > 0;
    if (resuming) state.messages = [...saved];
    // Started: it counts against the thread's spawn cap from now on (fan-out-gate.ts hasStarted).
    parent.state.subagentRuns = { ...parent.state.subagentRuns, [callId]: state.messages };
    const result = await runAgent(
      {
        model,
        backend: parent.backend,
        tools,
        middleware,
        systemPrompt: `${spec.systemPrompt}\n\n${SUBAGENT_NOTE}`,
      },
      state,
      resuming ? null : { role: 'user', content: description },
      {
        signal: parent.signal,
        ...(resuming ? { resumableToolCalls: waiting } : {}),
        guard: new ReadGuard(),
        agentName: spec.name,
        parentToolCallId: callId,
        depth: parent.depth + 1,
        parentRun: parent,
        // Re-stamp the child's events into the parent's thread, under this task call.
        emit: (event: AgentEvent) => {
          const { threadId: _ignored, ...body } = event;
          parent.emit(body);
        },
        // The parent keeps the subagent's transcript, so the window can show it after a reload.
        persist: async () => {
          parent.state.subagentRuns = { ...parent.state.subagentRuns, [callId]: state.messages };
          await parent.persist();
        },
      },
    );
    parent.state.subagentRuns = { ...parent.state.subagentRuns, [callId]: state.messages };
    const total = parent.state.usage;
    total.inputTokens += state.usage.inputTokens;
    total.outputTokens += state.usage.outputTokens;
    total.cacheReadTokens += state.usage.cacheReadTokens;
    total.cacheWriteTokens += state.usage.cacheWriteTokens;
    if (state.usage.costUsd !== undefined) total.costUsd = (total.costUsd ?? 0) + state.usage.costUsd;
    let ended = parts.get(parent);
    if (ended === undefined) parts.set(parent, (ended = new Map()));
    ended.set(callId, partOf(result.reason));
    if (result.reason === 'error') return { ...errorText(`subagent ${spec.name} failed: ${result.error?.message ?? 'unknown error'}`), ...ranOn };
    if (result.reason === 'aborted') return { ...errorText(`subagent ${spec.name} was stopped`), ...ranOn };
    if (result.reason === 'quota') return { ...errorText(`subagent ${spec.name} stopped (quota): ${result.error?.message ?? 'the model provider is out of quota'}`), ...ranOn };
    return { ...text(result.text.trim() === '' ? `(subagent ${spec.name} finished without a final message)` : result.text), ...ranOn };
  };

  return {
    name: 'subagents',
    tools: (ctx) => (ctx.depth === 0 ? [task] : []),
    async wrapToolCall(ctx, info, next) {
      if (info.call.name !== 'task' || ctx.depth !== 0) return next(info.call);
      const admitted = await admit(ctx, info.call, info.turnCalls);
      return admitted.start ? next(info.call) : errorText(admitted.why);
    },
    // The step's honest count: into the run's (its `done` event), and to the model under the last task result when not every part finished.
    afterToolCalls(ctx, results) {
      const tasks = results.filter((r) => r.call.name === 'task');
      if (ctx.depth !== 0 || tasks.length === 0) return Promise.resolve(undefined);
      const ended = parts.get(ctx);
      const counted = tasks.map((r) => ended?.get(r.call.id) ?? ({ kind: 'not-started' } as const));
      for (const r of tasks) ended?.delete(r.call.id);
      recordFanOut(ctx, counted);
      const note = fanOutNote(countParts(counted));
      const last = tasks.at(-1)!;
      return Promise.resolve(note === undefined ? undefined : results.map((r) => (r === last ? { ...r.output, text: `${r.output.text}\n\n${note}` } : r.output)));
    },
  };
}

/** What starting these subagents may cost: each one's first model call (its prompt, the parent's average answer), at the parent's model's price. */
function estimate(ctx: RunContext, calls: readonly ToolCall[], specs: ReadonlyMap<string, SubagentSpec>): string {
  const price = modelPrice(ctx.model);
  if (price === null) return `cost unknown: no price for ${ctx.model.id}`;
  const answers = ctx.state.messages.filter((m) => m.role === 'assistant').length;
  const outputTokens = answers > 0 ? Math.ceil(ctx.state.usage.outputTokens / answers) : 0;
  let usd = 0;
  for (const call of calls) {
    const args = (call.args ?? {}) as { description?: unknown; subagent_type?: unknown };
    const spec = specs.get(String(args.subagent_type)) ?? specs.get(GENERAL_PURPOSE)!;
    const inputTokens = ctx.countRequestTokens({ system: `${spec.systemPrompt}\n\n${SUBAGENT_NOTE}`, messages: [{ role: 'user', content: String(args.description ?? '') }], tools: [] });
    usd += costAt(price, { inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 }) ?? 0;
  }
  return `about ${formatUsd(usd)} for their first model calls`;
}
