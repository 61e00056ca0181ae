// The contract's folder shapes (issue 16): which folder the window works on, the folders
// opened before, and opening another. `deepdesk serve` and the desktop app started without a
// folder answer these with no folder open; the window then offers `Open folder`.
// Renderer-safe: zod only.
import { z } from 'zod';

export const appInfoSchema = z.object({
  /** The open project folder; null until the person opens one. */
  folder: z.string().nullable(),
  folderName: z.string(),
  version: z.string(),
  transport: z.enum(['electron', 'web']),
  /** A native folder dialog is available (the desktop app): app.pickFolder opens it. */
  canPickFolder: z.boolean(),
});
export type AppInfo = z.infer<typeof appInfoSchema>;

export const recentFolderSchema = z.object({
  path: z.string(),
  name: z.string(),
  openedAt: z.string(),
  /** It is no longer there (deleted, or on a drive that is not mounted): shown, not openable. */
  missing: z.boolean(),
});
export type RecentFolder = z.infer<typeof recentFolderSchema>;

export const folderMethods = {
  'app.info': { params: z.object({}).strict(), result: appInfoSchema },
  /** The native folder dialog (desktop only); opens the folder picked. `folder`: null when cancelled. */
  'app.pickFolder': { params: z.object({}).strict(), result: z.object({ folder: z.string().nullable() }) },
  /** Folders opened before, the latest first. */
  'app.recentFolders': { params: z.object({}).strict(), result: z.array(recentFolderSchema) },
  /**
   * Opens the folder at `path` (absolute, `~/…`, or relative to the home folder) in place of the
   * open one; fails with a readable message when it does not exist or is not a folder.
   */
  'app.openFolder': { params: z.object({ path: z.string().min(1).max(4096) }), result: appInfoSchema },
} as const;

/** The methods answered by the folder host, not by the app of one folder. */
export type FolderMethodName = keyof typeof folderMethods;

export const folderEvents = {
  /** Another folder was opened (by this window or another one): reload everything. */
  'app.folderChanged': appInfoSchema,
} as const;
