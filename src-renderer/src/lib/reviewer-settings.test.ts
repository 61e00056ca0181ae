import { describe, expect, it } from 'vitest';
import type { Settings } from '../../../src-main/app/contract';
import { reviewerDraft, reviewerFromDraft } from './reviewer-settings';
import { toDraft } from './settings-draft';
import { settingsPatch } from './settings-patch';

const FOLDER = '/work/project';
const draft = (reviewerOn: boolean, reviewerModelText: string, reviewerTimeoutText = '', reviewerScope: 'all' | 'folder' = 'all') => ({ reviewerOn, reviewerModelText, reviewerTimeoutText, reviewerScope });

describe('Settings › Approvals › Review with a model as typed (SPEC §23)', () => {
  it('absent is off; a saved one reads back as typed; the open folder’s own entry over the one for all', () => {
    expect(reviewerDraft(undefined, FOLDER)).toEqual(draft(false, ''));
    expect(reviewerDraft({ model: 'anthropic:claude-haiku-4-5', timeoutSeconds: 45 }, FOLDER)).toEqual(draft(true, 'anthropic:claude-haiku-4-5', '45'));
    expect(reviewerDraft({ model: 'anthropic:claude-haiku-4-5', folders: { [FOLDER]: { model: 'off' } } }, FOLDER)).toEqual(draft(false, '', '', 'folder'));
    expect(reviewerDraft({ folders: { [FOLDER]: { model: '' } } }, FOLDER)).toEqual(draft(true, '', '', 'folder'));
    expect(reviewerDraft({ folders: { '/elsewhere': { model: '' } } }, FOLDER)).toEqual(draft(false, ''));
  });

  it('on writes the model (empty: the thread’s own) and the timeout only when given; off clears it', () => {
    expect(reviewerFromDraft(draft(true, ' '), undefined, FOLDER)).toEqual({ reviewer: { model: '' } });
    expect(reviewerFromDraft(draft(true, 'openai:gpt-5-mini', '20'), undefined, FOLDER)).toEqual({ reviewer: { model: 'openai:gpt-5-mini', timeoutSeconds: 20 } });
    expect(reviewerFromDraft(draft(false, 'openai:gpt-5-mini'), { model: '' }, FOLDER)).toEqual({ reviewer: null });
  });

  it('for this folder alone: its own entry (off is model "off"), the one for all and other folders’ kept; for all drops the folder’s own', () => {
    const saved = { model: 'openai:gpt-5-mini', folders: { '/other': { model: 'off' }, [FOLDER]: { model: 'off' } } };
    expect(reviewerFromDraft(draft(true, '', '10', 'folder'), saved, FOLDER)).toEqual({ reviewer: { model: 'openai:gpt-5-mini', folders: { '/other': { model: 'off' }, [FOLDER]: { model: '', timeoutSeconds: 10 } } } });
    expect(reviewerFromDraft(draft(false, '', '', 'folder'), undefined, FOLDER)).toEqual({ reviewer: { folders: { [FOLDER]: { model: 'off' } } } });
    expect(reviewerFromDraft(draft(true, 'anthropic:claude-haiku-4-5'), saved, FOLDER)).toEqual({ reviewer: { model: 'anthropic:claude-haiku-4-5', folders: { '/other': { model: 'off' } } } });
  });

  it('a model without its provider or a timeout that is no whole number of seconds is refused, said in words', () => {
    expect(reviewerFromDraft(draft(true, 'gpt-5-mini'), undefined, FOLDER)).toEqual({ error: expect.stringContaining('PROVIDER:MODEL') });
    for (const timeout of ['0', '2.5', 'soon', '601']) expect(reviewerFromDraft(draft(true, '', timeout), undefined, FOLDER)).toEqual({ error: expect.stringContaining('whole number of seconds') });
  });

  it('Save with review on sends it even unchanged (it resumes review where the breaker tripped); off and untouched, nothing of it', () => {
    const base: Settings = { model: 'anthropic:claude-sonnet-4-5', baseUrl: '', rules: [], subagents: [], theme: 'system', apiKeys: {}, mounts: [], memoriesStore: 'sqlite' };
    const untouched = (settings: Settings) => settingsPatch(toDraft(settings, FOLDER), toDraft(settings, FOLDER), settings, FOLDER);
    expect(untouched({ ...base, reviewer: { model: '', timeoutSeconds: 20 } })).toEqual({ reviewer: { model: '', timeoutSeconds: 20 } });
    expect(untouched({ ...base, reviewer: { model: 'off', folders: { [FOLDER]: { model: 'openai:gpt-5-mini' } } } })).toEqual({ reviewer: { model: 'off', folders: { [FOLDER]: { model: 'openai:gpt-5-mini' } } } });
    expect(untouched(base)).toEqual({});
    expect(untouched({ ...base, reviewer: { model: 'off' } })).toEqual({});
    // Set by --reviewer for this session: never the person's to save.
    expect(untouched({ ...base, reviewer: { model: '' }, overridden: { reviewerChoice: true } })).toEqual({});
  });
});

