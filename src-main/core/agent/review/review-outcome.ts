// The reviewer's structured answer (SPEC §23): the `review_decision` tool it must call, its
// arguments checked, and the outcome the host derives from risk × authorization (the stricter
// of that and the model's decision wins).

import { z } from 'zod';
import type { ToolSpec } from '../../models/types';
import { REVIEW_CATEGORIES, type ReviewVerdict } from '../types';

export const REVIEW_TOOL = 'review_decision';

const RATIONALE_CHARS = 512;

/** The model's answer (the contract's verdict is this, bounded). */
export const reviewAnswerSchema = z.object({
  decision: z.enum(['allow', 'deny']),
  risk: z.enum(['low', 'medium', 'high', 'critical']),
  authorization: z.enum(['none', 'low', 'medium', 'high']),
  category: z.enum(REVIEW_CATEGORIES),
  rationale: z.string(),
});

export const REVIEW_TOOL_SPEC: ToolSpec = {
  name: REVIEW_TOOL,
  description: 'Give your decision on the action under review. Call this exactly once.',
  parameters: z.toJSONSchema(reviewAnswerSchema) as ToolSpec['parameters'],
};

/** The host's verdict from the model's answer, or null when it does not parse. */
export function reviewOutcome(args: unknown): ReviewVerdict | null {
  const parsed = reviewAnswerSchema.safeParse(args);
  if (!parsed.success) return null;
  const answer = parsed.data;
  const allowed = answer.decision === 'allow' && answer.risk !== 'critical' && (answer.risk !== 'high' || answer.authorization === 'medium' || answer.authorization === 'high');
  return { ...answer, decision: allowed ? 'allow' : 'deny', rationale: answer.rationale.trim().slice(0, RATIONALE_CHARS) };
}
