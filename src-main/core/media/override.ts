// The media input a person sets for a model in Settings (SPEC §12: "overridable per model"),
// for the providers whose models differ from one another (local and compatible servers);
// the big providers' tables are known per model. Read by createChatModel and the window.

import type { ProviderName } from '../models/types';
import type { MediaKind } from './kinds';

/** Kinds taken, by `provider:model`. */
export type MediaInputOverrides = Readonly<Record<string, readonly MediaKind[]>>;

export const MEDIA_OVERRIDE_PROVIDERS: readonly ProviderName[] = ['openai-compatible', 'ollama'];

export function mediaOverrideKey(provider: ProviderName, model: string): string {
  return `${provider}:${model}`;
}

/** The kinds set for this model, or undefined when it takes its provider's default. */
export function mediaInputOverride(overrides: MediaInputOverrides | undefined, provider: ProviderName, model: string): readonly MediaKind[] | undefined {
  if (overrides === undefined || !MEDIA_OVERRIDE_PROVIDERS.includes(provider)) return undefined;
  const key = mediaOverrideKey(provider, model);
  return Object.hasOwn(overrides, key) ? overrides[key] : undefined;
}
