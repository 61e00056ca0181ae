// Settings › Review with a model as typed (SPEC §23): on or off, the reviewer's model
// (PROVIDER:MODEL; empty: the thread's own) and each try's timeout in seconds (empty: 30).

import type { Settings } from '../../../src-main/app/contract';
import { parseModel } from './providers';

export const REVIEW_TIMEOUT_DEFAULT = 30;
const TIMEOUT_MAX = 600;

export interface ReviewerDraft {
  reviewerOn: boolean;
  reviewerModelText: string;
  reviewerTimeoutText: string;
}

export function reviewerDraft(reviewer: Settings['reviewer']): ReviewerDraft {
  return { reviewerOn: reviewer !== undefined, reviewerModelText: reviewer?.model ?? '', reviewerTimeoutText: reviewer?.timeoutSeconds !== undefined ? String(reviewer.timeoutSeconds) : '' };
}

/** The `reviewer` setting from what was typed (null: off), or what is wrong with it. */
export function reviewerFromDraft(draft: ReviewerDraft): { reviewer: NonNullable<Settings['reviewer']> | null } | { error: string } {
  const model = draft.reviewerModelText.trim();
  const parsed = parseModel(model);
  if (model !== '' && (parsed.provider === null || parsed.model.trim() === '')) return { error: 'The reviewer’s model must be PROVIDER:MODEL (e.g. anthropic:claude-haiku-4-5), or empty for the thread’s model.' };
  const timeoutText = draft.reviewerTimeoutText.trim();
  const timeout = Number(timeoutText);
  if (timeoutText !== '' && (!Number.isInteger(timeout) || timeout < 1 || timeout > TIMEOUT_MAX)) return { error: `The reviewer’s timeout must be a whole number of seconds from 1 to ${TIMEOUT_MAX}.` };
  if (!draft.reviewerOn) return { reviewer: null };
  return { reviewer: { model, ...(timeoutText !== '' ? { timeoutSeconds: timeout } : {}) } };
}
