// The app as the Electron shell starts it: a folder from the command line or the
// open-folder dialog, keys in the OS keychain (the SecretStore the shell passes in).

import { createApp, type App } from './app';
import type { SecretStore } from './secret-store';

export interface DesktopAppOptions {
  folder: string | null;
  dataDir: string;
  secrets: SecretStore;
  pickFolder: () => Promise<string | null>;
  /** Reopens the app on another folder (the shell relaunches itself). */
  openFolder?: (folder: string) => void;
  version?: string;
}

export class NoFolderChosenError extends Error {}

export async function createDesktopApp(options: DesktopAppOptions): Promise<App> {
  const folder = options.folder ?? (await options.pickFolder());
  if (folder === null) throw new NoFolderChosenError('no project folder was chosen');
  return createApp({
    folder,
    dataDir: options.dataDir,
    secrets: options.secrets,
    transport: 'electron',
    pickFolder: options.pickFolder,
    ...(options.openFolder ? { openFolder: options.openFolder } : {}),
    ...(options.version ? { version: options.version } : {}),
  });
}
