// Files the person pastes, drops or picks into the message box (SPEC §12): what the window
// sends with a message, the line that names each in the message, and reading those lines
// back for the window. Renderer-safe: zod only.
import { z } from 'zod';

/** One file's limit (as read_file's, SPEC §12). */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
/** What one message may carry in all (it travels in one frame of the web transport). */
export const MAX_MESSAGE_ATTACHMENT_BYTES = 20 * 1024 * 1024;
export const MAX_ATTACHMENTS = 10;

const threadRef = z.object({ threadId: z.string().min(1) });

const base64Length = (bytes: number): number => Math.ceil(bytes / 3) * 4;

export const attachmentSchema = z.object({
  name: z.string().min(1).max(255),
  mimeType: z.string().max(255),
  /** The file's bytes, base64. */
  data: z.string().max(base64Length(MAX_ATTACHMENT_BYTES)),
});
export type AttachmentInput = z.infer<typeof attachmentSchema>;

export const attachmentsSchema = z
  .array(attachmentSchema)
  .max(MAX_ATTACHMENTS)
  .refine((all) => all.reduce((sum, a) => sum + a.data.length, 0) <= base64Length(MAX_MESSAGE_ATTACHMENT_BYTES), {
    message: `the attachments of one message may not exceed ${MAX_MESSAGE_ATTACHMENT_BYTES / (1024 * 1024)} MB in all`,
  });

/** An attachment of a sent message, as the window shows it. `path` is set when it was saved to the thread's files. */
export const sentAttachmentSchema = z.object({
  name: z.string(),
  mimeType: z.string(),
  /** As `formatSize` writes it, e.g. `14.2 KB`. */
  size: z.string(),
  path: z.string().optional(),
});
export type SentAttachment = z.infer<typeof sentAttachmentSchema>;

export const attachmentMethods = {
  /** The bytes (base64) of attachment `name` of the person's message at `index` (for its thumbnail or to open it). */
  'threads.attachment': {
    params: threadRef.extend({ index: z.number().int().min(0), name: z.string() }),
    result: z.object({ mimeType: z.string(), data: z.string() }),
  },
} as const;

/** The line naming an attachment the model got as content. */
export function sentAsContentLine(name: string, mimeType: string, size: string): string {
  return `[Attached ${name} (${mimeType}, ${size})]`;
}

/** The line naming an attachment saved to the thread's files. */
export function savedToFilesLine(path: string, mimeType: string, size: string): string {
  return `[Attached ${path} (${mimeType}, ${size}): read it with read_file]`;
}

const LINE = /^\[Attached (.+) \(([^(),\s]+), (\d+(?:\.\d)? [KM]?B)\)(: read it with read_file)?\]$/;

/** A message's text split into what the person typed and the attachments its lines name. */
export function splitAttachmentLines(text: string): { text: string; attachments: SentAttachment[] } {
  if (!text.includes('[Attached ')) return { text, attachments: [] };
  const attachments: SentAttachment[] = [];
  const kept: string[] = [];
  for (const line of text.split('\n')) {
    const match = LINE.exec(line);
    if (match === null) {
      kept.push(line);
      continue;
    }
    const [, named, mimeType, size, saved] = match as unknown as [string, string, string, string, string | undefined];
    const name = saved ? named.slice(named.lastIndexOf('/') + 1) : named;
    attachments.push({ name, mimeType, size, ...(saved ? { path: named } : {}) });
  }
  if (attachments.length === 0) return { text, attachments };
  return { text: kept.join('\n').replace(/\s+$/, ''), attachments };
}
