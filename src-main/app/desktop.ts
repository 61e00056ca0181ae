// The app as the Electron shell starts it: the folder from the command line, or none (the
// window then offers `Open folder`: the recent folders and the native dialog); keys in the OS
// keychain (the SecretStore the shell passes in). Another folder opens in place, in the same
// window: no relaunch.

import { createApp } from './app';
import { openRemoteApp } from './remote-folder';
import { createFolderHost, type FolderHost } from './folders/folder-host';
import { AppPool } from './folders/app-pool';
import type { SecretStore } from './secret-store';
import type { UpdateService } from './updates';

export interface DesktopAppOptions {
  /** From the command line; null when none was given (or it was not a folder). */
  folder: string | null;
  dataDir: string;
  secrets: SecretStore;
  /** The native open-folder dialog; null when the person cancels. */
  pickFolder: () => Promise<string | null>;
  /** Opens an MCP server's sign-in page in the person's browser (Electron's shell.openExternal). */
  openExternal?: (url: string) => Promise<void>;
  version?: string;
  /** The shell's updater (Settings › Updates). */
  updates?: UpdateService;
}

/**
 * Each folder's app is leased from a pool (as in the agent host), so opening another folder
 * leaves the runs of the one before going: they show in the Agents view, and the folder's app
 * closes once they end and no window shows it.
 */
export async function createDesktopApp(options: DesktopAppOptions): Promise<FolderHost> {
  const pool = new AppPool((line) => console.error(`deepdesk: ${line}`));
  const common = {
    dataDir: options.dataDir,
    secrets: options.secrets,
    transport: 'electron' as const,
    ...(options.version ? { version: options.version } : {}),
    ...(options.openExternal ? { openExternal: options.openExternal } : {}),
  };
  let host: FolderHost;
  try {
    host = await createFolderHost({
      dataDir: options.dataDir,
      transport: 'electron',
      folder: options.folder,
      pickFolder: options.pickFolder,
      ...(options.version ? { version: options.version } : {}),
      ...(options.updates ? { updates: options.updates } : {}),
      openApp: (folder) => pool.lease(folder, () => createApp({ folder, ...common })),
      openRemoteApp: (location) =>
        pool.lease(location.url, () => openRemoteApp(location, { dataDir: options.dataDir, env: process.env }, (remote) => createApp({ folder: location.url, remote, ...common }))),
    });
  } catch (err) {
    await pool.closeAll();
    throw err;
  }
  return {
    get folder() {
      return host.folder;
    },
    notice: (message) => host.notice(message),
    handle: (method, params) => host.handle(method, params),
    onEvent: (listener) => host.onEvent(listener),
    // Quitting asks while a run of any folder goes, not only the open one's.
    busy: () => host.busy() || pool.busy(),
    async close() {
      await host.close();
      await pool.closeAll();
    },
  };
}
