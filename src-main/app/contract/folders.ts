// The contract's folder shapes (issue 16): which folder the window works on, the folders
// opened before, and opening another. `deepdesk serve` and the desktop app started without a
// folder answer these with no folder open; the window then offers `Open folder`.
// A folder is a local path or, on another machine, an `ssh://[USER@]HOST[:PORT]/ABS/PATH`
// URL (SPEC §13): `Open folder` → `Remote (SSH)…` lists the Host aliases of the person's
// ~/.ssh/config and opens a host and path.
// Renderer-safe: zod only.
import { z } from 'zod';
import { sandboxPlaceSchema } from './sandboxes';

export const appInfoSchema = z.object({
  /** The open project folder (a path, or the `ssh://` URL of a remote one); null until the person opens one. */
  folder: z.string().nullable(),
  folderName: z.string(),
  version: z.string(),
  transport: z.enum(['electron', 'web']),
  /** A native folder dialog is available (the desktop app): app.pickFolder opens it. */
  canPickFolder: z.boolean(),
  /** A remote folder's `[USER@]HOST[:PORT]`; absent for a local folder. */
  host: z.string().optional(),
  /** The open folder's threads run in a provider's sandbox (SPEC §18): `Runs in Daytona · sandbox ID`. */
  sandbox: sandboxPlaceSchema.optional(),
});
export type AppInfo = z.infer<typeof appInfoSchema>;

export const recentFolderSchema = z.object({
  /** The local path, or the `ssh://` URL of a remote folder. */
  path: z.string(),
  name: z.string(),
  openedAt: z.string(),
  /** It is no longer there (deleted, or on a drive that is not mounted): shown, not openable. */
  missing: z.boolean(),
  /** A remote folder's `[USER@]HOST[:PORT]` (its `path` is the URL); absent for a local folder. Remote ones are never marked missing: that is known on connecting. */
  host: z.string().optional(),
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
   * `reopen`: made anew even when it is the open one (its place changed: Continue in a sandbox…).
   */
  'app.openFolder': { params: z.object({ path: z.string().min(1).max(4096), reopen: z.boolean().optional() }), result: appInfoSchema },
  /** The Host aliases of the person's ~/.ssh/config (Include followed, wildcard patterns left out), in file order. */
  'app.sshHosts': { params: z.object({}).strict(), result: z.object({ hosts: z.array(z.string()) }) },
  /**
   * Opens a folder on another machine over the system ssh in place of the open one: `host` is
   * a ~/.ssh/config alias or `[USER@]HOST[:PORT]`, `path` absolute there. Fails with a readable
   * message for a malformed host or path (bad_request), a folder not there (not_found), or a
   * host that cannot be reached or whose key does not match (failed, naming the host).
   */
  'app.openRemoteFolder': { params: z.object({ host: z.string().max(300), path: z.string().max(4096) }).strict(), result: appInfoSchema },
} as const;

/** The methods answered by the window's folders, not by the app of one folder. */
export type FolderMethodName = keyof typeof folderMethods;
/** The folder methods the window's folders answers itself (the rest, app.info, the app of the folder answers too). */
export type WindowFoldersMethodName = Exclude<FolderMethodName, 'app.info'>;

export const folderEvents = {
  /** Another folder was opened (by this window or another one): reload everything. */
  'app.folderChanged': appInfoSchema,
} as const;
