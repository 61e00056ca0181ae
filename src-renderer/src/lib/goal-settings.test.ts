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
  it('shows what is saved', () => {
    expect(goalsDraft({ graderModel: 'openai:gpt-5-mini', maxRounds: 2 })).toEqual({ graderModelText: 'openai:gpt-5-mini', maxRoundsText: '2' });
    expect(goalsDraft(undefined)).toEqual({ graderModelText: '', maxRoundsText: '' });
  });
});
