// The files a person attached to a message (SPEC §12), made part of it: a file whose type
// the thread's model takes goes as content (a media part after a line naming it); any other
// file (or every file, for a message that waits in the queue, which holds text) is saved to
// the thread's /attachments/ folder and named in the message, for read_file.

import { ATTACHMENTS_PREFIX } from '../../core/backends/mounts/mounts';
import type { StateBackend } from '../../core/backends/store/state';
import { takesMedia } from '../../core/media/capabilities';
import type { MediaInput } from '../../core/models/types';
import { base64Bytes, formatSize, kindOfMime, mediaTypeOf } from '../../core/media/kinds';
import { base64Head, classifyContent } from '../../core/media/sniff';
import type { ContentPart } from '../../core/models/types';
import { type AttachmentInput, MAX_ATTACHMENT_BYTES, savedToFilesLine, sentAsContentLine } from '../contract/attachments';
import { ContractError } from '../contract';

const FALLBACK_MIME = 'application/octet-stream';

/** A file name safe in a path: no folders, no control characters, not `.` or `..`. */
export function safeAttachmentName(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const cleaned = base.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 200);
  return /^\.*$/.test(cleaned) ? 'attachment' : cleaned;
}

/** `name`, or `name (2).ext`, `name (3).ext`… whichever `taken` does not hold. */
function unusedName(name: string, taken: (candidate: string) => boolean): string {
  if (!taken(name)) return name;
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let n = 2; ; n++) {
    const candidate = `${stem} (${n})${ext}`;
    if (!taken(candidate)) return candidate;
  }
}

/**
 * The MIME type a browser gave, or the one of the name's extension when it gave none; for a
 * media type, what the bytes are (core/media/sniff): a file that is not the media it claims
 * is never sent as that media.
 */
function mimeTypeOf(attachment: AttachmentInput, name: string): string {
  const given = attachment.mimeType.trim().toLowerCase();
  const claimed = given !== '' && /^[\w.+-]+\/[\w.+-]+$/.test(given) ? given : (mediaTypeOf(attachment.name)?.mimeType ?? FALLBACK_MIME);
  if (kindOfMime(claimed) === null) return claimed;
  const content = classifyContent(`/${name}`, base64Head(attachment.data));
  return content.text ? 'text/plain' : content.mimeType;
}

export interface AttachOptions {
  /** What the thread's model takes (undefined: everything), or 'save-all' for a message queued as text. */
  mediaInput: MediaInput | undefined | 'save-all';
  /** The thread's /attachments/ folder. */
  files: StateBackend;
}

/** The user message's content: `text` as is when nothing is attached. */
export async function withAttachments(text: string, attachments: readonly AttachmentInput[], options: AttachOptions): Promise<string | ContentPart[]> {
  if (attachments.length === 0) return text;
  const savedLines: string[] = [];
  const parts: ContentPart[] = [];
  const namesHere = new Set<string>();
  for (const attachment of attachments) {
    const bytes = base64Bytes(attachment.data);
    const name = safeAttachmentName(attachment.name);
    if (bytes > MAX_ATTACHMENT_BYTES) {
      throw new ContractError(`${name} is ${formatSize(bytes)}; an attached file may be at most ${formatSize(MAX_ATTACHMENT_BYTES)}`, 'bad_request');
    }
    const mimeType = mimeTypeOf(attachment, name);
    const kind = kindOfMime(mimeType);
    if (options.mediaInput !== 'save-all' && kind !== null && takesMedia(options.mediaInput, mimeType)) {
      const unique = unusedName(name, (n) => namesHere.has(n));
      namesHere.add(unique);
      parts.push({ type: 'text', text: sentAsContentLine(unique, mimeType, formatSize(bytes)) });
      parts.push({ type: kind === 'image' ? 'image' : 'file', mimeType, data: attachment.data, name: unique, bytes });
      continue;
    }
    const existing = new Set(((await options.files.ls('/')).entries ?? []).map((e) => e.path.slice(1)));
    const unique = unusedName(name, (n) => existing.has(n) || namesHere.has(n));
    namesHere.add(unique);
    const [saved] = await options.files.uploadFiles([{ path: `/${unique}`, content: Buffer.from(attachment.data, 'base64') }]);
    if (saved?.error !== undefined) throw new ContractError(`could not save ${unique}: ${saved.error}`, 'failed');
    savedLines.push(savedToFilesLine(`${ATTACHMENTS_PREFIX}${unique}`, mimeType, formatSize(bytes)));
  }
  const first = [text, ...savedLines].filter((line) => line !== '').join('\n');
  if (parts.length === 0) return first;
  return first === '' ? parts : [{ type: 'text', text: first }, ...parts];
}
