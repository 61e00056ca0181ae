// Files pasted, dropped or picked into the message box, waiting to be sent with the message
// (contract/attachments.ts has the limits the app holds them to).

import { MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS, MAX_MESSAGE_ATTACHMENT_BYTES } from '../../../src-main/app/contract';
import { formatBytes } from './format';
import type { ShownAttachment } from './thread-reducer';

export interface PendingFile {
  id: string;
  name: string;
  /** As the browser named it; may be '' (the app then goes by the name's extension). */
  mimeType: string;
  /** The bytes, base64. */
  data: string;
  bytes: number;
}

const MB = 1024 * 1024;

function base64Of(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => reject(reader.error ?? new Error(`could not read ${file.name}`));
    reader.readAsDataURL(file);
  });
}

/** A pasted image has no useful name ("image.png"): it gets one that says when. */
function nameOf(file: File, index: number): string {
  if (file.name !== '' && file.name !== 'image.png') return file.name;
  const ext = file.type.startsWith('image/') ? `.${file.type.slice(6).replace('jpeg', 'jpg').replace(/\+.*/, '')}` : '';
  const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
  return `pasted-${stamp}${index > 0 ? `-${index + 1}` : ''}${ext}`;
}

/**
 * Reads `files` to join `current`: what fits is added; each that does not is named in
 * `problems` (too large, too many) and left out, nothing else lost.
 */
export async function addFiles(current: readonly PendingFile[], files: readonly File[]): Promise<{ files: PendingFile[]; problems: string[] }> {
  const next = [...current];
  const problems: string[] = [];
  let total = current.reduce((sum, f) => sum + f.bytes, 0);
  for (const [i, file] of files.entries()) {
    const name = nameOf(file, i);
    if (file.size > MAX_ATTACHMENT_BYTES) {
      problems.push(`${name} is ${file.size.toLocaleString('en-US')} bytes (${formatBytes(file.size)}): a file may be at most ${MAX_ATTACHMENT_BYTES / MB} MB.`);
      continue;
    }
    if (next.length >= MAX_ATTACHMENTS) {
      problems.push(`${name} was not attached: a message takes at most ${MAX_ATTACHMENTS} files.`);
      continue;
    }
    if (total + file.size > MAX_MESSAGE_ATTACHMENT_BYTES) {
      problems.push(`${name} was not attached: a message's files may be at most ${MAX_MESSAGE_ATTACHMENT_BYTES / MB} MB in all.`);
      continue;
    }
    try {
      next.push({ id: `${Date.now()}-${Math.random().toString(36).slice(2)}`, name, mimeType: file.type, data: await base64Of(file), bytes: file.size });
      total += file.size;
    } catch (err) {
      problems.push(`${name} could not be read: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { files: next, problems };
}

/** An image the window can show (a thumbnail, the viewer). */
export function isImageFile(file: { mimeType: string }): boolean {
  return /^image\/(png|jpeg|gif|webp|avif|bmp)$/.test(file.mimeType);
}

/** How the sent message shows a file while the window still has its bytes (it opens from them). */
export function shownAttachment(file: PendingFile): ShownAttachment {
  return { name: file.name, mimeType: file.mimeType || 'application/octet-stream', size: formatBytes(file.bytes), data: file.data };
}
