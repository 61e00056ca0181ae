// What each provider takes as media input (SPEC §12), as one small table. A model's input
// is its provider's row, narrowed where a model family is known to take less, or the
// person's override for that model (Settings); read_file and the prompt builder ask here
// and never send a block the model does not take.

import type { MediaInput, ProviderName } from '../models/types';
import { kindOfMime, type MediaKind } from './kinds';

const IMAGES_EVERYONE_TAKES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

export const PROVIDER_MEDIA_INPUT: Readonly<Record<ProviderName, MediaInput>> = {
  anthropic: [...IMAGES_EVERYONE_TAKES, 'application/pdf'],
  openai: [...IMAGES_EVERYONE_TAKES, 'application/pdf', 'audio/wav', 'audio/mpeg'],
  google: ['image/*', 'audio/*', 'video/*', 'application/pdf'],
  'openai-compatible': [...IMAGES_EVERYONE_TAKES],
  ollama: [...IMAGES_EVERYONE_TAKES],
};

/** What a kind maps to when a person overrides a model's input in Settings. */
const OVERRIDE_INPUT: Readonly<Record<MediaKind, MediaInput>> = {
  image: IMAGES_EVERYONE_TAKES,
  audio: ['audio/wav', 'audio/mpeg'],
  video: ['video/mp4', 'video/webm'],
  document: ['application/pdf'],
};

/** OpenAI models that see no images and take no PDFs (text-only families). */
const OPENAI_TEXT_ONLY = /^(gpt-3\.5|gpt-4(-\d{4})?$|gpt-4-32k|o1-mini|o3-mini|davinci|babbage)/;

/**
 * The media input of `provider:model`. `override` (the kinds the person set for this model
 * in Settings) replaces the provider's row entirely; `responsesApi` drops audio, which the
 * OpenAI Responses API does not take.
 */
export function mediaInputFor(provider: ProviderName, model: string, options: { override?: readonly MediaKind[]; responsesApi?: boolean } = {}): MediaInput {
  if (options.override !== undefined) return options.override.flatMap((kind) => OVERRIDE_INPUT[kind]);
  const row = PROVIDER_MEDIA_INPUT[provider];
  if (provider !== 'openai') return row;
  const name = model.trim().toLowerCase().split('/').pop() ?? '';
  return row.filter((mime) => {
    // PDF input is pages as images plus their text: a model that sees no images takes no PDF either.
    if ((mime.startsWith('image/') || mime === 'application/pdf') && OPENAI_TEXT_ONLY.test(name)) return false;
    if (mime.startsWith('audio/') && options.responsesApi === true) return false;
    return true;
  });
}

/** Whether a model with this input takes a block of this MIME type. */
export function takesMedia(input: MediaInput | undefined, mimeType: string): boolean {
  if (input === undefined) return true;
  const mime = mimeType.toLowerCase().split(';')[0]!.trim();
  const top = `${mime.split('/')[0]}/*`;
  return input.includes(mime) || input.includes(top);
}

/** Whether a model takes any input of this kind (e.g. for the window's attach decisions). */
export function takesKind(input: MediaInput | undefined, kind: MediaKind): boolean {
  if (input === undefined) return true;
  return input.some((mime) => kindOfMime(mime.replace('/*', '/x')) === kind);
}
