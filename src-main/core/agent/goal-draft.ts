// Drafting a goal (SPEC §21): the thread's agent proposes criteria and verify steps from the
// objective and the folder, reading with read-only tools; the person accepts or edits the draft.

import { DRAFT_SYSTEM, DRAFT_TOOL, DRAFT_TOOL_SPEC, draftPrompt, readDraft } from '../goals/draft';
import type { GoalDraft } from '../goals/goal';
import type { ToolSpec } from '../models/types';
import { NOOP_RUN, type Telemetry } from '../telemetry/observer';
import { ReadGuard } from '../tools/read-guard';
import { runTool, toolMap } from '../tools/run-tool';
import type { RunBudget } from './budget';
import { READ_ONLY_TOOLS, structuredCall } from './goal-run';
import { toolSpec, type AgentDefinition } from './loop';
import { modelName } from './model-call';
import { isPersonMessage } from './notes';
import type { RunContext } from './run-context';
import { countRequestTokens } from './token-count';
import type { ThreadState } from './types';

export interface DraftGoalOptions {
  /** The agent whose model and read-only tools draft the goal (the thread's own). */
  def: Pick<AgentDefinition, 'model' | 'backend' | 'tools'>;
  state: ThreadState;
  objective: string;
  signal?: AbortSignal;
  /** The thread's audit: the drafting call is a ledger row of purpose `goal-draft`, held in the budget. */
  telemetry?: Telemetry;
  budget?: RunBudget;
  folder?: string;
}

/**
 * The agent drafts a goal's criteria and verify steps from the objective and the folder (SPEC
 * §21): one model call (or a few, reading with read-only tools) answered through `propose_goal`.
 */
export async function draftGoal(options: DraftGoalOptions): Promise<GoalDraft> {
  const { def, state } = options;
  const observer =
    options.telemetry?.turn({
      threadId: state.id,
      turn: Math.max(1, state.messages.filter(isPersonMessage).length),
      agentName: 'goal-draft',
      depth: 0,
      provider: def.model.provider,
      model: modelName(def.model.id),
      ...(options.folder !== undefined ? { folder: options.folder } : {}),
    }) ?? NOOP_RUN;
  const ctx: RunContext = {
    threadId: state.id,
    state,
    backend: def.backend,
    model: def.model,
    signal: options.signal ?? new AbortController().signal,
    depth: 0,
    emit: () => undefined,
    persist: async () => undefined,
    countRequestTokens: (request) => countRequestTokens(request, def.model),
    turn: 1,
    observer,
    ...(options.budget ? { budget: options.budget } : {}),
  };
  const tools = def.tools.filter((tool) => READ_ONLY_TOOLS.has(tool.name));
  const byName = toolMap(tools);
  const guard = new ReadGuard();
  let text = '';
  try {
    const answer = await structuredCall({
      ctx,
      model: def.model,
      purpose: 'goal-draft',
      request: { system: DRAFT_SYSTEM, prompt: draftPrompt(options.objective) },
      answer: { name: DRAFT_TOOL, spec: DRAFT_TOOL_SPEC as unknown as ToolSpec },
      tools: tools.map(toolSpec),
      runTool: (call) => runTool(byName, call.name, call.args, { backend: def.backend, guard, toolCallId: call.id, signal: ctx.signal, run: ctx }),
    });
    const draft = readDraft(options.objective, answer.args);
    if ('problem' in draft) throw new Error(`the drafted goal was not usable: ${draft.problem}`);
    text = `${draft.criteria.length} criteria, ${draft.verify.length} verify steps`;
    return draft;
  } finally {
    observer.end({ reason: 'completed', text });
  }
}
