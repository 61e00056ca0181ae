// Settings › Model › Subagent model as typed (SPEC §26): the `provider:model` a subagent runs on
// unless its declaration names one; empty: the thread's model.

import type { Settings } from '../../../src-main/app/contract';
import { parseModel } from './providers';

/** The `models` setting with the subagent model typed (the others kept as saved), or what is wrong with it. */
export function modelsFromDraft(subagentModelText: string, saved: Settings['models']): { models: NonNullable<Settings['models']> } | { error: string } {
  const subagent = subagentModelText.trim();
  const parsed = parseModel(subagent);
  if (subagent !== '' && (parsed.provider === null || parsed.model.trim() === '')) return { error: 'The subagent model must be PROVIDER:MODEL (e.g. anthropic:claude-haiku-4-5), or empty for the thread’s model.' };
  const { subagent: _before, ...others } = saved ?? {};
  return { models: { ...others, ...(subagent !== '' ? { subagent } : {}) } };
}
