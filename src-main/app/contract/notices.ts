// One-line notices for the person (SPEC §6; issues 26, 42): a settings, keys or folder-modes
// file that could not be read and was kept aside, or values in it that were ignored (these need
// an answer: they stay until dismissed), and notes about the open folder (information: they
// expire, and leave with the folder). Renderer-safe: zod only.
import { z } from 'zod';

export const noticeSchema = z.object({
  /** Stable for the life of the app: a window shows each notice once, however often it reconnects. */
  id: z.string(),
  /** One line, naming the file and, when it was moved aside, where it went. */
  message: z.string(),
  file: z.string().optional(),
  movedTo: z.string().optional(),
  /** How it is shown: a problem (the default) or information. */
  kind: z.enum(['error', 'info']).optional(),
  /** The person must answer it (at least by dismissing it): it stays until then. Otherwise it expires. */
  needsAnswer: z.boolean().optional(),
  /** The folder (a path or `ssh://` URL) it is about: it is not shown once another folder is open. */
  folder: z.string().optional(),
});
export type NoticeDto = z.infer<typeof noticeSchema>;

export const noticeMethods = {
  /** The notices so far (a window that connects after start-up still hears of them). */
  'app.notices': { params: z.object({}).strict(), result: z.array(noticeSchema) },
} as const;

export const noticeEvents = {
  'app.notice': noticeSchema,
} as const;
