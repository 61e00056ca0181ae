// The four kinds of media read_file hands to a model (SPEC §12), by file extension, and
// the words the fallbacks use. Pure data and functions: no I/O.

export type MediaKind = 'image' | 'audio' | 'video' | 'document';

export const MEDIA_KINDS: readonly MediaKind[] = ['image', 'audio', 'video', 'document'];

/** Refused over this many bytes (SPEC §2, §12). */
export const MAX_MEDIA_BYTES = 10 * 1024 * 1024;

export const PDF_MIME = 'application/pdf';
export const PPT_MIME = 'application/vnd.ms-powerpoint';
export const PPTX_MIME = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';

/** The media extensions of SPEC §12 and their MIME types (as the providers name them). */
const MEDIA_BY_EXTENSION: Record<string, { kind: MediaKind; mimeType: string }> = {
  png: { kind: 'image', mimeType: 'image/png' },
  jpg: { kind: 'image', mimeType: 'image/jpeg' },
  jpeg: { kind: 'image', mimeType: 'image/jpeg' },
  gif: { kind: 'image', mimeType: 'image/gif' },
  webp: { kind: 'image', mimeType: 'image/webp' },
  heic: { kind: 'image', mimeType: 'image/heic' },
  heif: { kind: 'image', mimeType: 'image/heif' },
  wav: { kind: 'audio', mimeType: 'audio/wav' },
  mp3: { kind: 'audio', mimeType: 'audio/mpeg' },
  aiff: { kind: 'audio', mimeType: 'audio/aiff' },
  aac: { kind: 'audio', mimeType: 'audio/aac' },
  ogg: { kind: 'audio', mimeType: 'audio/ogg' },
  flac: { kind: 'audio', mimeType: 'audio/flac' },
  m4a: { kind: 'audio', mimeType: 'audio/mp4' },
  mp4: { kind: 'video', mimeType: 'video/mp4' },
  mpeg: { kind: 'video', mimeType: 'video/mpeg' },
  mov: { kind: 'video', mimeType: 'video/quicktime' },
  avi: { kind: 'video', mimeType: 'video/x-msvideo' },
  flv: { kind: 'video', mimeType: 'video/x-flv' },
  webm: { kind: 'video', mimeType: 'video/webm' },
  wmv: { kind: 'video', mimeType: 'video/x-ms-wmv' },
  '3gpp': { kind: 'video', mimeType: 'video/3gpp' },
  pdf: { kind: 'document', mimeType: PDF_MIME },
  ppt: { kind: 'document', mimeType: PPT_MIME },
  pptx: { kind: 'document', mimeType: PPTX_MIME },
};

/** §12's media by MIME type. */
const MEDIA_BY_MIME: ReadonlyMap<string, MediaType> = new Map(Object.values(MEDIA_BY_EXTENSION).map((entry) => [entry.mimeType, entry]));

export interface MediaType {
  kind: MediaKind;
  mimeType: string;
}

function extensionOf(path: string): string | null {
  const dot = path.lastIndexOf('.');
  if (dot < 0 || dot < path.lastIndexOf('/')) return null;
  return path.slice(dot + 1).toLowerCase();
}

/** The media kind and MIME type of a path by its extension, or null when it is not one of §12's media files. */
export function mediaTypeOf(path: string): MediaType | null {
  const ext = extensionOf(path);
  return ext === null ? null : (MEDIA_BY_EXTENSION[ext] ?? null);
}

/**
 * The §12 media type of a MIME type (what read_file hands to a model), or null for other
 * types (`image/bmp`, `application/zip`): those are binary files, not media.
 */
export function mediaTypeOfMime(mimeType: string): MediaType | null {
  return MEDIA_BY_MIME.get(mimeType.toLowerCase().split(';')[0]!.trim()) ?? null;
}

/** The kind of a MIME type (`image/svg+xml` is text, not an image a model looks at). */
export function kindOfMime(mimeType: string): MediaKind | null {
  const mime = mimeType.toLowerCase().split(';')[0]!.trim();
  if (mime === 'image/svg+xml') return null;
  if (mime.startsWith('image/')) return 'image';
  if (mime.startsWith('audio/')) return 'audio';
  if (mime.startsWith('video/')) return 'video';
  for (const entry of Object.values(MEDIA_BY_EXTENSION)) if (entry.kind === 'document' && entry.mimeType === mime) return 'document';
  return null;
}

/** The kind of a media block: by its MIME type, else by its part type (`file` parts of unknown types as documents). */
export function mediaKindOf(part: { type: string; mimeType: string }): MediaKind {
  return kindOfMime(part.mimeType) ?? (part.type === 'image' ? 'image' : 'document');
}

/** `812 B`, `14.2 KB`, `3.1 MB` (1024-based, as file managers show). */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The text line that goes with a media block: `Image file /pic.png (image/png, 812 B)`. */
export function mediaLine(kind: MediaKind, path: string, mimeType: string, bytes: number): string {
  return `${kind[0]!.toUpperCase()}${kind.slice(1)} file ${path} (${mimeType}, ${formatSize(bytes)})`;
}

/** SPEC §12's one line for a model that does not take this kind of input. */
export function notTakenNotice(kind: MediaKind, path: string, bytes: number): string {
  return `[${kind} file ${path}, ${formatSize(bytes)}: this model does not take ${kind} input]`;
}

/** Decoded size of base64 text (without decoding it). */
export function base64Bytes(data: string): number {
  let padding = 0;
  if (data.endsWith('==')) padding = 2;
  else if (data.endsWith('=')) padding = 1;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}
