import { describe, expect, it } from 'vitest';
import { reviewerDraft, reviewerFromDraft } from './reviewer-settings';

describe('Settings › Review with a model as typed (SPEC §23)', () => {
  it('absent is off; a saved one reads back as typed', () => {
    expect(reviewerDraft(undefined)).toEqual({ reviewerOn: false, reviewerModelText: '', reviewerTimeoutText: '' });
    expect(reviewerDraft({ model: 'anthropic:claude-haiku-4-5', timeoutSeconds: 45 })).toEqual({ reviewerOn: true, reviewerModelText: 'anthropic:claude-haiku-4-5', reviewerTimeoutText: '45' });
  });

  it('on writes the model (empty: the thread’s own) and the timeout only when given; off clears it', () => {
    expect(reviewerFromDraft({ reviewerOn: true, reviewerModelText: ' ', reviewerTimeoutText: '' })).toEqual({ reviewer: { model: '' } });
    expect(reviewerFromDraft({ reviewerOn: true, reviewerModelText: 'openai:gpt-5-mini', reviewerTimeoutText: '20' })).toEqual({ reviewer: { model: 'openai:gpt-5-mini', timeoutSeconds: 20 } });
    expect(reviewerFromDraft({ reviewerOn: false, reviewerModelText: 'openai:gpt-5-mini', reviewerTimeoutText: '' })).toEqual({ reviewer: null });
  });

  it('a model without its provider or a timeout that is no whole number of seconds is refused, said in words', () => {
    expect(reviewerFromDraft({ reviewerOn: true, reviewerModelText: 'gpt-5-mini', reviewerTimeoutText: '' })).toEqual({ error: expect.stringContaining('PROVIDER:MODEL') });
    for (const timeout of ['0', '2.5', 'soon', '601']) expect(reviewerFromDraft({ reviewerOn: true, reviewerModelText: '', reviewerTimeoutText: timeout })).toEqual({ error: expect.stringContaining('whole number of seconds') });
  });
});
