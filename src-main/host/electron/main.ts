// The desktop shell (`npm start`): one hardened window over the same app `deepdesk serve` serves.
// The app itself comes from createDesktopApp; this file only wires Electron to it.

import { app, dialog, session, shell, type BrowserWindow } from 'electron';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { createDesktopApp } from '../../app/desktop';
import { resolveDataDir } from '../../app/data-dir';
import type { AppHostApi } from '../../app/host-api';
import { parseDesktopArgs, userArgs } from './args';
import { pickFolderDialog } from './dialogs';
import { hardenContents, hardenSession } from './hardening';
import { forwardEvents, registerCallHandler } from './ipc';
import { createMainWindow } from './main-window';
import { createSafeStorageSecretStore } from './secrets';
import type { AppPages } from './trusted-urls';

const pages: AppPages = {
  indexFile: join(import.meta.dirname, '../renderer/index.html'),
  // Only an unpackaged app may load the electron-vite dev server.
  devServerUrl: !app.isPackaged && process.env.ELECTRON_RENDERER_URL ? process.env.ELECTRON_RENDERER_URL : undefined,
};
const preload = join(import.meta.dirname, '../preload/index.cjs');

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function fail(title: string, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  console.error(`deepdesk: ${title}: ${message}`);
  if (app.isReady()) dialog.showErrorBox(title, message);
  app.exit(1);
}

async function start(): Promise<void> {
  const args = parseDesktopArgs(userArgs(process.argv, process.defaultApp === true), process.cwd());
  let mainWindow: BrowserWindow | null = null;
  const currentWindow = (): BrowserWindow | null => mainWindow;

  app.on('second-instance', () => {
    if (mainWindow === null || mainWindow.isDestroyed()) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });
  app.on('web-contents-created', (_event, contents) => hardenContents(contents, pages));
  app.on('window-all-closed', () => app.quit());

  await app.whenReady();
  hardenSession(session.defaultSession, pages);

  // Without a folder the window opens on `Open folder` (the recent folders and the native dialog).
  let folder = args.folder;
  if (folder !== null && !isDirectory(folder)) {
    dialog.showErrorBox('Folder not found', `${folder} is not a folder. Open one in the window.`);
    folder = null;
  }

  // The window loads while the app starts; its calls wait for the app.
  let apiResolved!: (api: AppHostApi) => void;
  const apiReady = new Promise<AppHostApi>((resolve) => (apiResolved = resolve));
  registerCallHandler(apiReady, currentWindow, pages);
  mainWindow = createMainWindow({ pages, preload, stateFile: join(app.getPath('userData'), 'window-state.json') });
  mainWindow.on('closed', () => {
    mainWindow = null;
  });

  let desktopApp: AppHostApi & { close(): Promise<void> };
  try {
    desktopApp = await createDesktopApp({
      folder,
      dataDir: resolveDataDir(args.dataDir),
      secrets: createSafeStorageSecretStore(join(app.getPath('userData'), 'secrets.json')),
      pickFolder: () => pickFolderDialog(currentWindow()),
      openExternal: (url) => (/^https?:\/\//i.test(url) ? shell.openExternal(url) : Promise.reject(new Error(`not a web address: ${url}`))),
      version: app.getVersion(),
    });
  } catch (err) {
    fail('Deepdesk could not start', err);
    return;
  }
  apiResolved(desktopApp);
  const stopEvents = forwardEvents(desktopApp, currentWindow);

  let closed = false;
  app.on('will-quit', (event) => {
    if (closed) return;
    event.preventDefault();
    closed = true;
    stopEvents();
    desktopApp
      .close()
      .catch((err: unknown) => console.error('deepdesk: closing the app failed', err))
      .finally(() => app.quit());
  });
}

app.enableSandbox();
if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  start().catch((err: unknown) => fail('Deepdesk could not start', err));
}
