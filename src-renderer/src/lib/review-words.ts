// Who decided a call, as its card says it (SPEC §23): the reviewer's verdict with its risk and
// rationale, else the rule, mode, sandbox, hook or person. The rationale is the reviewer
// model's words: callers show it as plain text.

import type { ConvItem, ReviewVerdictDto, ToolItem } from './thread-reducer';

/** `Allowed by the reviewer — low risk: …` or `Denied by the reviewer (high, destructive_action): …`. */
export function verdictText(review: ReviewVerdictDto): string {
  return review.decision === 'allow' ? `Allowed by the reviewer — ${review.risk} risk: ${review.rationale}` : `Denied by the reviewer (${review.risk}, ${review.category}): ${review.rationale}`;
}

const ALLOWED_BY = { rule: 'Allowed by a rule', mode: 'Allowed by the approval mode', sandbox: 'Allowed: it runs inside the sandbox', hook: 'Allowed by a hook', person: 'Approved by you' } as const;

/** The card's line of who decided: the reviewer's verdict; null for the others (their words are the status's tooltip, `allowedByText`). */
export function decidedText(item: Pick<ToolItem, 'decidedBy' | 'review'>): string | null {
  return item.decidedBy === 'reviewer' && item.review !== undefined ? verdictText(item.review) : null;
}

/** Who let a call run when it was not the reviewer, in words; null when nobody said, or when the status and its reason already say it (a refusal). */
export function allowedByText(item: Pick<ToolItem, 'decidedBy' | 'approval' | 'rejected' | 'answeredInTerminal' | 'answeredOverProtocol'>): string | null {
  if (item.decidedBy === undefined || item.decidedBy === 'reviewer' || item.rejected !== undefined) return null;
  if (item.approval !== undefined && item.approval !== 'approved' && item.approval !== 'edited') return null;
  // Answered in a terminal or over the Agent Protocol: the card's badge says by whom.
  if (item.decidedBy === 'person' && (item.answeredInTerminal === true || item.answeredOverProtocol !== undefined)) return null;
  return ALLOWED_BY[item.decidedBy];
}

export type ReviewedCall = ToolItem & { review: ReviewVerdictDto };

/** The thread's calls the reviewer answered (loaded ones), in order. */
export function reviewedCalls(items: readonly ConvItem[]): ReviewedCall[] {
  return items.filter((item): item is ReviewedCall => item.kind === 'tool' && item.decidedBy === 'reviewer' && item.review !== undefined);
}
