// THE approval story (SPEC §4, §22, §23): what the thread is told of a question — asked of whom,
// then who decided what — told once for every asker, Deepdesk's own calls (the approval
// middleware) and another agent's requests (app/agents) alike, with the decision on the call's
// span. `ask` (decision.ts) is the one call of a broker or a reviewer; this is its telling.

import { canonicalJson } from '../text/canonical-json';
import type { DecidedBy, ToolCallObserver } from '../telemetry/observer';
import { ask, type Answerer, type Asked } from './decision';
import type { ApprovalWhy } from './permissions/reason';
import type { AgentEventBody, ApprovalRequest } from './types';

type ApprovalEvent = Extract<AgentEventBody, { type: 'approval' }>;

/** The call a question is about, as its approval events name it. */
export type AskedCall = Pick<ApprovalEvent, 'id' | 'name' | 'reason' | 'hook'> & { args: Record<string, unknown>; why?: ApprovalWhy };

/** Where the story is told: the thread's events, and the call's span (its decision). */
export interface Telling {
  emit(event: AgentEventBody): void;
  span?: ToolCallObserver | undefined;
}

/** One approval event of a call: the only place one is made. */
export function tellApproval(tell: Telling, call: AskedCall, status: ApprovalEvent['status'], more: Partial<Omit<ApprovalEvent, 'type' | 'status'>> = {}): void {
  tell.emit({ type: 'approval', ...call, status, ...more });
}

/** A call decided without asking: by a rule (`denied`), or allowed where the asker tells that too. */
export function tellRuled(tell: Telling, call: AskedCall, status: 'denied' | 'approved', decidedBy?: DecidedBy): void {
  tell.span?.decided(status === 'denied' ? 'deny' : 'allow', decidedBy ?? 'rule');
  tellApproval(tell, call, status, decidedBy !== undefined ? { decidedBy } : {});
}

/**
 * Asks whoever answers (`ask`) and tells the thread: pending or reviewing while it waits (and
 * why the reviewer could not answer), then what was decided, by whom and where, on the events
 * and the call's span. An edit that changes no argument is an approval. `edits`: whether the
 * asker can run edited arguments (another agent cannot: an edit refuses its request).
 */
export async function askAndTell(question: ApprovalRequest, call: AskedCall, answerer: Answerer, signal: AbortSignal, tell: Telling, edits = true): Promise<Asked> {
  const asked = await ask(question, answerer, signal, (by, failed) => tellApproval(tell, call, by === 'reviewer' ? 'reviewing' : 'pending', failed !== undefined ? { reviewFailed: failed } : {}));
  const { decision, decidedBy, where, review, reviewFailed } = asked;
  const unchanged = decision.type === 'edit' && canonicalJson(decision.args) === canonicalJson(call.args);
  const answer: Asked['decision'] = unchanged ? { type: 'approve' } : decision.type === 'edit' && !edits ? { type: 'reject' } : decision;
  tell.span?.decided(answer.type, decidedBy);
  const who = { decidedBy, ...(review !== undefined ? { review } : {}), ...(reviewFailed !== undefined ? { reviewFailed } : {}), ...where };
  tellApproval(tell, call, STATUS[answer.type], { ...who, ...(answer.type === 'edit' ? { args: answer.args } : {}) });
  return { ...asked, decision: answer };
}

const STATUS = { approve: 'approved', edit: 'edited', reject: 'rejected', respond: 'responded' } as const;
