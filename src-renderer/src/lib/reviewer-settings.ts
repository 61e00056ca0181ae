// Settings › Approvals › Review with a model as typed (SPEC §23): on or off, the reviewer's
// model (PROVIDER:MODEL; empty: the thread's own) and each try's timeout in seconds (empty:
// 30), for all folders or for the open folder alone (its entry of `reviewer.folders`, over the
// one for all; `model: "off"` turns review off there).

import type { Settings } from '../../../src-main/app/contract';
import { parseModel } from './providers';

export const REVIEW_TIMEOUT_DEFAULT = 30;
const TIMEOUT_MAX = 600;

type Reviewer = NonNullable<Settings['reviewer']>;
type Choices = Pick<Reviewer, 'model' | 'timeoutSeconds'>;

export interface ReviewerDraft {
  reviewerOn: boolean;
  reviewerModelText: string;
  reviewerTimeoutText: string;
  /** Whether these choices are the open folder's own or for all folders. */
  reviewerScope: 'all' | 'folder';
}

/** The draft of the open folder's own entry when it has one, else of the one for all. */
export function reviewerDraft(reviewer: Settings['reviewer'], folder?: string): ReviewerDraft {
  const own = folder !== undefined ? reviewer?.folders?.[folder] : undefined;
  return { ...choicesDraft(own !== undefined ? { ...reviewer, ...own } : reviewer), reviewerScope: own !== undefined ? 'folder' : 'all' };
}

/** The draft of one scope's choices as saved (switching between them shows what is saved there). */
export function choicesDraft(choices: Choices | undefined): Omit<ReviewerDraft, 'reviewerScope'> {
  const model = choices?.model;
  const on = model !== undefined && model.trim() !== 'off';
  return { reviewerOn: on, reviewerModelText: on ? model : '', reviewerTimeoutText: choices?.timeoutSeconds !== undefined ? String(choices.timeoutSeconds) : '' };
}

/** The model and timeout typed (the model absent when off), or what is wrong with them. */
export function typedReviewer(draft: Omit<ReviewerDraft, 'reviewerScope'>): { choices: Choices } | { error: string } {
  const model = draft.reviewerModelText.trim();
  const parsed = parseModel(model);
  if (model !== '' && (parsed.provider === null || parsed.model.trim() === '')) return { error: 'The reviewer’s model must be PROVIDER:MODEL (e.g. anthropic:claude-haiku-4-5), or empty for the thread’s model.' };
  const timeoutText = draft.reviewerTimeoutText.trim();
  const timeout = Number(timeoutText);
  if (timeoutText !== '' && (!Number.isInteger(timeout) || timeout < 1 || timeout > TIMEOUT_MAX)) return { error: `The reviewer’s timeout must be a whole number of seconds from 1 to ${TIMEOUT_MAX}.` };
  return { choices: { ...(draft.reviewerOn ? { model } : {}), ...(timeoutText !== '' ? { timeoutSeconds: timeout } : {}) } };
}

/** The `reviewer` setting from what was typed (null: none left), or what is wrong with it: for all folders (dropping this one's own entry), or for this one (off: `model: "off"`). */
export function reviewerFromDraft(draft: ReviewerDraft, saved: Settings['reviewer'], folder: string): { reviewer: Reviewer | null } | { error: string } {
  const typed = typedReviewer(draft);
  if ('error' in typed) return typed;
  const { folders: _folders, ...forAll }: Reviewer = draft.reviewerScope === 'all' ? typed.choices : (saved ?? {});
  const folders = Object.fromEntries(Object.entries(saved?.folders ?? {}).filter(([dir]) => dir !== folder));
  if (draft.reviewerScope === 'folder') folders[folder] = { ...typed.choices, model: typed.choices.model ?? 'off' };
  const reviewer: Reviewer = { ...forAll, ...(Object.keys(folders).length > 0 ? { folders } : {}) };
  return { reviewer: reviewer.model === undefined && reviewer.folders === undefined ? null : reviewer };
}
