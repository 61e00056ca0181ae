// Drafting a goal (SPEC §21): the thread's agent proposes criteria and verify steps from the
// objective and the folder, reading with read-only tools; the person accepts or edits the draft.

import { DRAFT_SYSTEM, DRAFT_TOOL, DRAFT_TOOL_SPEC, draftPrompt, readDraft } from '../goals/draft';
import type { GoalDraft } from '../goals/goal';
import type { ToolSpec } from '../models/types';
import { ReadGuard } from '../tools/read-guard';
import { runTool, toolMap } from '../tools/run-tool';
import { READ_ONLY_TOOLS, structuredCall } from './goal-run';
import { toolSpec } from './model-step';
import { openRun, type AgentDefinition, type RunOptions } from './run-options';
import type { ThreadState } from './types';

/** The thread's audit (`telemetry`, `budget`, `folder`): the drafting call is a ledger row of purpose `goal-draft`, held in the budget. */
export interface DraftGoalOptions extends Pick<RunOptions, 'signal' | 'telemetry' | 'budget' | 'folder'> {
  /** The agent whose model and read-only tools draft the goal (the thread's own). */
  def: Pick<AgentDefinition, 'model' | 'backend' | 'tools'>;
  state: ThreadState;
  objective: string;
}

/**
 * The agent drafts a goal's criteria and verify steps from the objective and the folder (SPEC
 * §21): one model call (or a few, reading with read-only tools) answered through `propose_goal`.
 */
export async function draftGoal(options: DraftGoalOptions): Promise<GoalDraft> {
  const { def, state } = options;
  const guard = new ReadGuard();
  const { ctx } = openRun(def, state, null, { ...options, agentName: 'goal-draft', emit: () => undefined, persist: async () => undefined, guard });
  const tools = def.tools.filter((tool) => READ_ONLY_TOOLS.has(tool.name));
  const byName = toolMap(tools);
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
    ctx.observer.end({ reason: 'completed', text });
  }
}
