// One-line notices for the person about the app's own files (SPEC §6; issue 26): a settings,
// keys or folder-modes file that could not be read and was kept aside, or values in it that
// were ignored. Renderer-safe: zod only.
import { z } from 'zod';

export const noticeSchema = z.object({
  /** Stable for the life of the app: a window shows each notice once, however often it reconnects. */
  id: z.string(),
  /** One line, naming the file and, when it was moved aside, where it went. */
  message: z.string(),
  file: z.string().optional(),
  movedTo: z.string().optional(),
});
export type NoticeDto = z.infer<typeof noticeSchema>;

export const noticeMethods = {
  /** The notices so far (a window that connects after start-up still hears of them). */
  'app.notices': { params: z.object({}).strict(), result: z.array(noticeSchema) },
} as const;

export const noticeEvents = {
  'app.notice': noticeSchema,
} as const;
