// Settings › Goals as typed (SPEC §21): the grader's model (empty: the thread's), the
// revision rounds before a goal ends `unmet` (empty: the default, 3) and the budget of a set
// of candidates (empty: none).

import type { Settings } from '../../../src-main/app/contract';
import { parseModel } from './providers';

export const MAX_ROUNDS_MIN = 1;
export const MAX_ROUNDS_MAX = 10;
export const MAX_ROUNDS_DEFAULT = 3;

export function goalsDraft(goals: Settings['goals']): { graderModelText: string; maxRoundsText: string; candidatesBudgetText: string } {
  return {
    graderModelText: goals?.graderModel ?? '',
    maxRoundsText: goals?.maxRounds !== undefined ? String(goals.maxRounds) : '',
    candidatesBudgetText: goals?.candidatesBudgetUsd !== undefined ? String(goals.candidatesBudgetUsd) : '',
  };
}

/** The `goals` setting from what was typed, or what is wrong with it. */
export function goalsFromDraft(graderModelText: string, maxRoundsText: string, candidatesBudgetText = ''): { goals: NonNullable<Settings['goals']> } | { error: string } {
  const graderModel = graderModelText.trim();
  const parsed = parseModel(graderModel);
  if (graderModel !== '' && (parsed.provider === null || parsed.model.trim() === '')) return { error: 'The grader model must be PROVIDER:MODEL (e.g. anthropic:claude-haiku-4-5), or empty for the thread’s model.' };
  const roundsText = maxRoundsText.trim();
  const rounds = Number(roundsText);
  if (roundsText !== '' && (!Number.isInteger(rounds) || rounds < MAX_ROUNDS_MIN || rounds > MAX_ROUNDS_MAX)) {
    return { error: `The revision rounds must be a whole number from ${MAX_ROUNDS_MIN} to ${MAX_ROUNDS_MAX}.` };
  }
  const budgetText = candidatesBudgetText.trim();
  const budget = Number(budgetText);
  if (budgetText !== '' && !(Number.isFinite(budget) && budget > 0)) return { error: 'The budget for a set of candidates is an amount in US dollars above 0, or empty for none.' };
  return { goals: { ...(graderModel !== '' ? { graderModel } : {}), ...(roundsText !== '' ? { maxRounds: rounds } : {}), ...(budgetText !== '' ? { candidatesBudgetUsd: budget } : {}) } };
}
