// A headless run's goal (SPEC §21): started on the thread before its first turn, from the verify
// steps given or from a draft the person accepts.

import { randomUUID } from 'node:crypto';
import { ask, type ApprovalBroker } from '../../core/agent/decision';
import { givenDraft } from '../../core/goals/draft';
import { goalDraftSchema, type Goal, type GoalDraft } from '../../core/goals/goal';
import type { ChatModel } from '../../core/models/types';
import { ContractError } from '../contract';
import { draftLines } from './goal-start';
import type { HeadlessRunIo, HeadlessRunRequest } from './run-request';
import type { ThreadService } from './thread-service';

/**
 * `run --goal TEXT [--verify CMD]…` (SPEC §21): the goal starts on the thread before its first
 * turn, with the folder's tree as its base. Verify steps given are taken as given; otherwise
 * the thread's agent drafts criteria and steps, shown to the person, who accepts them (asked
 * as an approval of `start_goal`, which may edit them) unless `acceptDraft`.
 */
export async function startRunGoal(threads: ThreadService, threadId: string, model: ChatModel, request: HeadlessRunRequest, io: HeadlessRunIo): Promise<Goal> {
  const objective = request.goal!.trim();
  if (objective === '') throw new ContractError('--goal needs the objective as its text', 'bad_request');
  if (threads.goal(threadId)?.state === 'pursuing') throw new ContractError(`thread ${threadId} already pursues a goal`, 'bad_request');
  let draft: GoalDraft;
  if ((request.verify ?? []).length > 0) draft = givenDraft(objective, request.verify!);
  else {
    io.say('goal: drafting criteria and verify steps from the folder…');
    draft = await threads.draftGoal(threadId, objective, model);
    for (const line of draftLines(draft)) io.say(line);
    if (request.acceptDraft !== true) draft = await draftAccepted(threadId, draft, io.broker);
  }
  const goal = await threads.startGoal(threadId, draft);
  io.say(`goal: pursuing — the host will run ${goal.verify.length === 0 ? 'no verify step' : goal.verify.map((s) => s.command).join('; ')}`);
  return goal;
}

/** The person accepts the draft (as given or edited) or refuses it; refused, no goal starts. */
async function draftAccepted(threadId: string, draft: GoalDraft, broker: ApprovalBroker): Promise<GoalDraft> {
  const { decision } = await ask(
    { threadId, toolCallId: `goal-draft-${randomUUID()}`, toolName: 'start_goal', args: { ...draft }, reason: 'Start this goal: the host runs these verify steps when the agent ends a turn.' },
    { kind: 'person', broker },
    new AbortController().signal,
  );
  if (decision.type === 'approve') return draft;
  if (decision.type === 'edit') {
    const edited = goalDraftSchema.safeParse({ ...draft, ...(decision.args as object) });
    if (edited.success) return edited.data;
    throw new ContractError(`the edited goal is not valid: ${edited.error.issues[0]?.message ?? 'invalid'}`, 'bad_request');
  }
  throw new ContractError('the drafted goal was not accepted: no goal was started', 'bad_request');
}
