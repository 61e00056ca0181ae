// What a model turned out not to take, learned from its refusals (a 400 "image input is not
// supported" from a llama.cpp server without its mmproj, say). Kept for the rest of the process,
// so the next request of any thread sends that kind as SPEC §12's notice at once.

import { createHash } from 'node:crypto';
import { takesMedia } from '../media/capabilities';
import type { MediaInput, ChatMessage, ContentPart, MediaPart } from './types';
import { MEDIA_KINDS, kindOfMime, mediaKindOf } from '../media/kinds';
import type { MediaKind } from '../media/kinds';
import { ContextOverflowError, ModelError, QuotaError } from './errors';

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
  rejectedByEndpoint.clear();
}

/**
 * The kinds a refusal was about: the ones the request sent (those the model's input takes)
 * that the error names by MIME type or by word; all of the sent ones when it names none.
 */
export function refusedKinds(errorText: string, messages: readonly ChatMessage[], input: MediaInput | undefined): MediaKind[] {
  const sent = new Set<MediaKind>();
  for (const message of messages) {
    if (message.role === 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) if (part.type !== 'text' && takesMedia(input, part.mimeType)) sent.add(mediaKindOf(part));
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

// One attachment a provider rejected ("Could not process image": a file that is not the image
// it claims, a corrupt PDF). Remembered by content per endpoint, so the thread that carries it
// in its history is never refused again for it: the block goes as a text stand-in.
const rejectedByEndpoint = new Map<string, Map<string, string>>();

const digestOf = (part: MediaPart): string => createHash('sha256').update(part.data).digest('hex');

/** Whether a failed request may have failed for its attachments: a client error that is not about the key, the limits or the context. */
export function mayBeAttachmentRejection(err: unknown): err is ModelError {
  if (!(err instanceof ModelError) || err instanceof ContextOverflowError || err instanceof QuotaError || err.status === undefined) return false;
  return err.status >= 400 && err.status < 500 && ![401, 402, 403, 404, 408, 409, 429].includes(err.status);
}

/** The messages with every media block (of `kinds`, among those the model takes) as a stand-in naming `reason`; and the blocks replaced. */
export function standInMedia(
  messages: readonly ChatMessage[],
  kinds: readonly MediaKind[],
  input: MediaInput | undefined,
  reason: string,
): { messages: ChatMessage[]; replaced: MediaPart[] } {
  const replaced: MediaPart[] = [];
  const out = mapMedia(messages, (part) => {
    if (!takesMedia(input, part.mimeType) || !kinds.includes(mediaKindOf(part))) return part;
    replaced.push(part);
    return standIn(part, reason);
  });
  return { messages: out, replaced };
}

export function rememberRejected(endpoint: string, parts: readonly MediaPart[], reason: string): void {
  const rejected = rejectedByEndpoint.get(endpoint) ?? new Map<string, string>();
  for (const part of parts) rejected.set(digestOf(part), reason);
  rejectedByEndpoint.set(endpoint, rejected);
}

/** The messages with the blocks this endpoint rejected before as their stand-ins (the same array when there are none). */
export function withoutRejected(endpoint: string, messages: ChatMessage[]): ChatMessage[] {
  const rejected = rejectedByEndpoint.get(endpoint);
  if (rejected === undefined || rejected.size === 0) return messages;
  return mapMedia(messages, (part) => {
    const reason = rejected.get(digestOf(part));
    return reason === undefined ? part : standIn(part, reason);
  });
}

/** The provider's own words for why it refused: the last clause of the error's one line. */
export function rejectionReason(err: ModelError): string {
  const clause = err.message.split(': ').pop()?.trim() ?? '';
  return clause.length > 200 ? `${clause.slice(0, 199)}…` : clause || 'no reason given';
}

function standIn(part: MediaPart, reason: string): ContentPart {
  const kind = mediaKindOf(part);
  return { type: 'text', text: `[${kind === 'audio' ? 'audio file' : kind} ${part.name ?? 'attachment'} was not sent: the provider refused it (${reason})]` };
}

function mapMedia(messages: readonly ChatMessage[], map: (part: MediaPart) => ContentPart): ChatMessage[] {
  return messages.map((message) => {
    if (message.role === 'assistant' || typeof message.content === 'string') return message;
    if (!message.content.some((part) => part.type !== 'text')) return message;
    return { ...message, content: message.content.map((part) => (part.type === 'text' ? part : map(part))) };
  });
}
