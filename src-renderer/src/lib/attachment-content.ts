// An attachment of a sent message as the file viewer shows it (as files.read would give it).

import type { FileContent } from '../../../src-main/app/contract';
import { isImageFile } from './pending-files';

const MEDIA: ReadonlyArray<[RegExp, 'audio' | 'video' | 'document']> = [
  [/^audio\//, 'audio'],
  [/^video\//, 'video'],
  [/^application\/pdf$/, 'document'],
];

export function attachmentContent(path: string, mimeType: string, data: string): FileContent {
  if (isImageFile({ mimeType })) return { kind: 'image', path, mimeType, data };
  const media = MEDIA.find(([pattern]) => pattern.test(mimeType))?.[1];
  if (media !== undefined) return { kind: 'media', path, media, mimeType, data };
  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  if (!bytes.includes(0)) {
    try {
      return { kind: 'text', path, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), truncated: false };
    } catch {
      // Not UTF-8: described as binary below.
    }
  }
  return { kind: 'binary', path, mimeType, size: bytes.length };
}
