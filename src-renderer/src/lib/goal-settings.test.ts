import { describe, expect, it } from 'vitest';
import { goalsDraft, goalsFromDraft } from './goal-settings';

describe('Settings › Goals as typed', () => {
  it('empty fields save nothing: the thread’s model grades, the default rounds apply', () => {
    expect(goalsFromDraft('  ', '')).toEqual({ goals: {} });
  });
  it('a PROVIDER:MODEL grader and 1–10 rounds are saved as typed', () => {
    expect(goalsFromDraft(' anthropic:claude-haiku-4-5 ', '1')).toEqual({ goals: { graderModel: 'anthropic:claude-haiku-4-5', maxRounds: 1 } });
    expect(goalsFromDraft('', '10')).toEqual({ goals: { maxRounds: 10 } });
  });
  it('refuses rounds outside 1–10 or not whole, and a model without a known provider', () => {
    for (const rounds of ['0', '11', '2.5', 'three']) expect(goalsFromDraft('', rounds)).toHaveProperty('error');
    expect(goalsFromDraft('haiku', '')).toHaveProperty('error');
    expect(goalsFromDraft('anthropic:', '')).toHaveProperty('error');
  });
  it('a set of candidates’ budget: an amount above 0, or empty for none', () => {
    expect(goalsFromDraft('', '', ' 0.75 ')).toEqual({ goals: { candidatesBudgetUsd: 0.75 } });
    expect(goalsFromDraft('', '', '')).toEqual({ goals: {} });
    for (const budget of ['0', '-1', 'lots', 'Infinity']) expect(goalsFromDraft('', '', budget)).toHaveProperty('error');
  });
  it('shows what is saved', () => {
    expect(goalsDraft({ graderModel: 'openai:gpt-5-mini', maxRounds: 2, candidatesBudgetUsd: 1.5 })).toEqual({ graderModelText: 'openai:gpt-5-mini', maxRoundsText: '2', candidatesBudgetText: '1.5' });
    expect(goalsDraft(undefined)).toEqual({ graderModelText: '', maxRoundsText: '', candidatesBudgetText: '' });
  });
});
