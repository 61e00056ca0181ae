import { describe, expect, it } from 'vitest';
import type { Settings } from '../../../src-main/app/contract';
import { toDraft } from './settings-draft';
import { settingsPatch } from './settings-patch';

const SAVED: Settings = { model: 'anthropic:claude-sonnet-4-5', baseUrl: '', rules: [], subagents: [], theme: 'system', apiKeys: {}, mounts: [], memoriesStore: 'sqlite' };

/** What Save settings sends after the person typed `text` in Settings › Model › Subagent model. */
function saved(text: string, settings: Settings = SAVED) {
  const from = toDraft(settings);
  return settingsPatch({ ...from, subagentModelText: text }, from, settings, '/work');
}

describe('Settings › Model › Subagent model as typed', () => {
  it('shows what is saved; untouched, a save sends nothing of it', () => {
    expect(toDraft({ ...SAVED, models: { subagent: 'anthropic:claude-haiku-4-5' } }).subagentModelText).toBe('anthropic:claude-haiku-4-5');
    expect(toDraft(SAVED).subagentModelText).toBe('');
    expect(saved('')).toEqual({});
  });

  it('a PROVIDER:MODEL is saved as typed; emptied, subagents run on the thread’s model again', () => {
    expect(saved(' anthropic:claude-haiku-4-5 ')).toEqual({ models: { subagent: 'anthropic:claude-haiku-4-5' } });
    expect(saved('', { ...SAVED, models: { subagent: 'anthropic:claude-haiku-4-5' } })).toEqual({ models: {} });
  });

  it('refuses a model without a known provider, and saves nothing then', () => {
    expect(saved('haiku')).toEqual({ error: 'The subagent model must be PROVIDER:MODEL (e.g. anthropic:claude-haiku-4-5), or empty for the thread’s model.' });
    expect(saved('anthropic:')).toHaveProperty('error');
  });
});
