// Who decided a call, as its card says it (SPEC §23): the reviewer's verdict with its risk and
// rationale, else the rule, mode, sandbox, hook or person; and what became of a call the
// reviewer denied. The rationale is the reviewer model's words: callers show it as plain text.

import type { ConvItem, ReviewVerdictDto, ToolItem } from './thread-reducer';

/** `Allowed by the reviewer — low risk: …` or `Denied by the reviewer (high, destructive_action): …`. */
export function verdictText(review: ReviewVerdictDto): string {
  return review.decision === 'allow' ? `Allowed by the reviewer — ${review.risk} risk: ${review.rationale}` : `Denied by the reviewer (${review.risk}, ${review.category}): ${review.rationale}`;
}

const ALLOWED_BY = { rule: 'Allowed by a rule', mode: 'Allowed by the approval mode', sandbox: 'Allowed: it runs inside the sandbox', hook: 'Allowed by a hook' } as const;

type Decided = Pick<ToolItem, 'decidedBy' | 'review' | 'decided' | 'approval' | 'rejected' | 'answeredInTerminal' | 'answeredOverProtocol'>;

/**
 * The card's line of who decided (SPEC §23's `decidedBy`): the reviewer's verdict, the person's
 * approval (once, after the reviewer's denial) or rejection, or the rule, mode, sandbox or hook
 * that let it run. Null when nobody said, or when the card says it otherwise: a refusal by a
 * rule, a hook or the mode (its reason), an answer given in a terminal or over the Agent
 * Protocol (its badge), an answer in place of the call (its status).
 */
export function decidedText(item: Decided): string | null {
  const { decidedBy, approval, rejected } = item;
  if (decidedBy === 'reviewer') return item.review !== undefined ? verdictText(item.review) : null;
  if (decidedBy === 'person') {
    if (item.answeredInTerminal === true || item.answeredOverProtocol !== undefined || approval === 'responded' || rejected?.answered === true) return null;
    if (approval === 'rejected' || rejected !== undefined) return 'Rejected by you';
    if (item.decided?.once !== undefined) return 'Allowed once by you, after the reviewer denied it';
    return approval === 'edited' ? 'Approved by you, with your edits' : 'Approved by you';
  }
  if (decidedBy === undefined || rejected !== undefined || (approval !== undefined && approval !== 'approved' && approval !== 'edited')) return null;
  return ALLOWED_BY[decidedBy];
}

export type ReviewedCall = ToolItem & { review: ReviewVerdictDto };

/** The thread's calls the reviewer answered (loaded ones), in order. */
export function reviewedCalls(items: readonly ConvItem[]): ReviewedCall[] {
  return items.filter((item): item is ReviewedCall => item.kind === 'tool' && item.decidedBy === 'reviewer' && item.review !== undefined);
}

/** The call the person allowed once after the reviewer denied `deniedId`, once the agent made it again. */
export function allowedOnceRun(items: readonly ConvItem[], deniedId: string): ToolItem | undefined {
  return items.find((item): item is ToolItem => item.kind === 'tool' && item.decided?.once === deniedId);
}
