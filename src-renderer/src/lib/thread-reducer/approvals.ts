// Approvals: a call waiting for the person, then who decided it and how (SPEC §11, §23).

import { approvalWhySchema, reviewVerdictSchema, type ApprovalWhyDto } from '../../../../src-main/app/contract';
import { str, type RawAgentEvent } from '../agent-event';
import type { ApprovalStatus, DecidedBy, ToolItem } from '../thread-reducer';
import { updateTool, type EventFamily } from './items';
import { withTool } from './tools';

const APPROVAL_STATUSES: ReadonlySet<string> = new Set<ApprovalStatus>(['pending', 'reviewing', 'approved', 'edited', 'rejected', 'responded', 'denied']);
const DECIDED_BY: ReadonlySet<string> = new Set<DecidedBy>(['rule', 'mode', 'sandbox', 'hook', 'reviewer', 'person']);

export const approvalEvents = {
  approval(state, event, parent) {
    const status = APPROVAL_STATUSES.has(str(event.status)) ? (event.status as ApprovalStatus) : 'pending';
    const reason = str(event.reason);
    // A hook's decision (SPEC §11): its `updatedInput` is an edit of its own; its deny names it.
    const command = (event.hook as { command?: unknown } | null | undefined)?.command;
    const hook = typeof command === 'string' ? command : undefined;
    return updateTool(withTool(state, event, parent, event.args), str(event.id), parent, (tool) => ({
      ...withApproval(tool, status, event.args),
      approvalReason: reason || tool.approvalReason,
      ...whyOf(event.why, reason, tool),
      ...(hook !== undefined && status === 'edited' ? { editedByHook: true } : {}),
      ...(hook !== undefined && status === 'denied' ? { blockedByHook: hook } : {}),
      ...reviewOf(event),
      ...(event.answeredIn === 'terminal' ? { answeredInTerminal: true } : {}),
      ...(event.answeredIn === 'protocol' ? { answeredOverProtocol: str(event.answeredBy) } : {}),
    }));
  },
} satisfies EventFamily;

/**
 * A decision on the card; a call let through starts running now. An "edited" decision: the
 * card shows the arguments that run, and keeps what the agent proposed.
 */
export function withApproval(tool: ToolItem, status: ApprovalStatus, args: unknown): ToolItem {
  const decided = { ...tool, approval: status, ...(status === 'approved' || status === 'edited' ? { startedAt: Date.now() } : {}) };
  if (status !== 'edited' || args === undefined) return decided;
  return { ...decided, edited: true, originalArgs: tool.edited ? tool.originalArgs : tool.args, args };
}

/** An approval's reason as data, kept with its words: a new reason without valid data leaves none (its words are shown as written). */
function whyOf(value: unknown, reason: string, tool: ToolItem): { approvalWhy: ApprovalWhyDto | undefined } {
  const why = approvalWhySchema.safeParse(value);
  return { approvalWhy: why.success ? why.data : reason === '' ? tool.approvalWhy : undefined };
}

/** Who decided, the reviewer's verdict and why it could not answer, as far as they are well formed. */
function reviewOf(event: RawAgentEvent): Pick<ToolItem, 'decidedBy' | 'review' | 'reviewFailed'> {
  const decidedBy = str(event.decidedBy);
  const review = reviewVerdictSchema.safeParse(event.review);
  return {
    ...(DECIDED_BY.has(decidedBy) ? { decidedBy: decidedBy as DecidedBy } : {}),
    ...(review.success ? { review: review.data } : {}),
    ...(typeof event.reviewFailed === 'string' && event.reviewFailed !== '' ? { reviewFailed: event.reviewFailed } : {}),
  };
}
