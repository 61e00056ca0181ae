// What a model turned out not to take, learned from its refusals (a 400 "image input is not
// supported" from a llama.cpp server without its mmproj, say). Kept for the rest of the process,
// so the next request of any thread sends that kind as SPEC §12's notice at once.

import { takesMedia } from '../media/capabilities';
import type { MediaInput } from '../media/capabilities';
import { MEDIA_KINDS, kindOfMime } from '../media/kinds';
import type { MediaKind } from '../media/kinds';
import type { ChatMessage, MediaPart } from './types';

/** Everything, as a list (a model with no declared input takes all of it). */
const ALL_MEDIA: MediaInput = ['image/*', 'audio/*', 'video/*', 'application/*'];

const refusedByEndpoint = new Map<string, Set<MediaKind>>();

/** `input` without the kinds this endpoint (model id and base URL) has refused. */
export function withoutRefused(endpoint: string, input: MediaInput | undefined): MediaInput | undefined {
  const refused = refusedByEndpoint.get(endpoint);
  if (refused === undefined || refused.size === 0) return input;
  return (input ?? ALL_MEDIA).filter((mime) => {
    const kind = kindOfMime(mime.replace('/*', '/x')) ?? (mime.startsWith('application/') ? 'document' : null);
    return kind === null || !refused.has(kind);
  });
}

export function rememberRefused(endpoint: string, kinds: readonly MediaKind[]): void {
  const refused = refusedByEndpoint.get(endpoint) ?? new Set<MediaKind>();
  for (const kind of kinds) refused.add(kind);
  refusedByEndpoint.set(endpoint, refused);
}

/** For tests: forget what every endpoint refused. */
export function forgetRefusals(): void {
  refusedByEndpoint.clear();
}

export function kindOfPart(part: MediaPart): MediaKind {
  return kindOfMime(part.mimeType) ?? (part.type === 'image' ? 'image' : 'document');
}

/**
 * The kinds a refusal was about: the ones the request sent (those the model's input takes)
 * that the error names by MIME type or by word; all of the sent ones when it names none.
 */
export function refusedKinds(errorText: string, messages: readonly ChatMessage[], input: MediaInput | undefined): MediaKind[] {
  const sent = new Set<MediaKind>();
  for (const message of messages) {
    if (message.role === 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) if (part.type !== 'text' && takesMedia(input, part.mimeType)) sent.add(kindOfPart(part));
  }
  if (sent.size === 0) return [];
  const text = errorText.toLowerCase();
  const named = new Set<MediaKind>();
  for (const mime of text.match(/\b(image|audio|video|application)\/[\w.+-]+/g) ?? []) {
    const kind = kindOfMime(mime);
    if (kind !== null) named.add(kind);
  }
  if (named.size === 0) {
    if (/image|vision/.test(text)) named.add('image');
    if (/audio/.test(text)) named.add('audio');
    if (/video/.test(text)) named.add('video');
    if (/pdf|document/.test(text)) named.add('document');
  }
  const both = MEDIA_KINDS.filter((kind) => sent.has(kind) && named.has(kind));
  return both.length > 0 ? both : MEDIA_KINDS.filter((kind) => sent.has(kind));
}
