// The desktop shell (`npm start`): one hardened window over the same app `deepdesk serve` serves,
// a client of the data folder's agent host (desktop-window.ts), which owns the runs; started
// with AGENT_HOST_SWITCH, this binary is that host (agent-host-entry.ts). This file only
// wires Electron to them.

import { app, dialog, Menu, protocol, session, shell, type BrowserWindow } from 'electron';
import type { AppUpdater } from 'electron-updater';
import { join } from 'node:path';
import { resolveDataDir } from '../../app/base/data-dir';
import { agentHostArgs, desktopHostLaunch } from './agent-host-entry';
import { openDesktopWindow, type DesktopWindow } from './desktop-window';
import { watchAgentNotifications } from './agent-notifications';
import { appMenuTemplate } from './app-menu';
import { APP_SCHEME_PRIVILEGES } from './app-protocol';
import { parseDesktopArgs, secondLaunchArgs, userArgs, type DesktopArgs, type LaunchData } from './args';
import { watchRendererCrashes } from './crash-recovery';
import { pickFolderDialog } from './dialogs';
import { debugSwitchGiven, hardenContents, hardenSession } from './hardening';
import { forwardEvents, registerCallHandler } from './ipc';
import { createMainWindow } from './main-window';
import { safeStorageCipher } from './secrets';
import { quitChoice, quitQuestion } from './quit-prompt';
import type { AppPages } from './trusted-urls';
import { createElectronUpdates, updateTarget, type UpdaterLike } from './updates';
import { messageOf } from '../../core/fs/errno';
import { isDirectory } from '../../core/fs/file-checks';

const pages: AppPages = {
  rendererDir: join(import.meta.dirname, '../renderer'),
  // Only an unpackaged app may load the electron-vite dev server.
  devServerUrl: !app.isPackaged && process.env.ELECTRON_RENDERER_URL ? process.env.ELECTRON_RENDERER_URL : undefined,
};
const preload = join(import.meta.dirname, '../preload/index.cjs');
const launch: LaunchData = { args: userArgs(process.argv, process.defaultApp === true), cwd: process.cwd() };

function fail(title: string, err: unknown): void {
  console.error(`deepdesk: ${title}: ${messageOf(err)}`);
  if (app.isReady()) dialog.showErrorBox(title, messageOf(err));
  app.exit(1);
}

/** electron-updater, loaded only when updates are on (its module is CommonJS with a lazy getter). */
async function loadAutoUpdater(): Promise<UpdaterLike> {
  const mod = (await import('electron-updater')) as { autoUpdater?: AppUpdater; default?: { autoUpdater?: AppUpdater } };
  const updater = mod.autoUpdater ?? mod.default?.autoUpdater;
  if (updater === undefined) throw new Error('electron-updater has no autoUpdater');
  return updater;
}

/** Opens the window (at start, and again on a launch or a notification's click while running in the background). */
let openWindow: () => BrowserWindow | null = () => null;
/** The person chose to keep runs going without a window. */
let inBackground = false;

async function start(): Promise<void> {
  const args = parseDesktopArgs(launch.args, launch.cwd);
  const dataDir = resolveDataDir(args.dataDir);
  let mainWindow: BrowserWindow | null = null;
  const currentWindow = (): BrowserWindow | null => mainWindow;

  // The window loads while the app starts; its calls (and these) wait for the app.
  let apiResolved!: (api: DesktopWindow) => void;
  const apiReady = new Promise<DesktopWindow>((resolve) => (apiResolved = resolve));

  /** A later launch (`deepdesk-desktop DIR`, a file manager's "Open with") opens its folder here, in place. */
  const openLaunchedFolder = async (next: DesktopArgs): Promise<void> => {
    const api = await apiReady;
    if (next.dataDir !== undefined && next.dataDir !== dataDir) {
      api.notice(`Deepdesk is already running with its data in ${dataDir}; the second launch's --data-dir ${next.dataDir} was not used (quit Deepdesk first to switch).`);
    }
    if (next.folder === null) return;
    try {
      await api.handle('app.openFolder', { path: next.folder });
    } catch (err) {
      dialog.showErrorBox('Folder not opened', `${next.folder}: ${messageOf(err)}`);
    }
  };

  app.on('second-instance', (_event, argv, workingDirectory, additionalData) => {
    if (mainWindow !== null && !mainWindow.isDestroyed()) {
      if (mainWindow.isMinimized()) mainWindow.restore();
      mainWindow.focus();
    } else if (app.isReady()) {
      // Running in the background (its runs going, no window): a launch shows them again.
      openWindow();
    }
    void openLaunchedFolder(secondLaunchArgs(argv, workingDirectory, additionalData, process.defaultApp === true));
  });
  app.on('web-contents-created', (_event, contents) => hardenContents(contents, pages));
  // In the background (runs going, no window) the process stays until they end.
  app.on('window-all-closed', () => {
    if (!inBackground) app.quit();
  });

  await app.whenReady();
  hardenSession(session.defaultSession, pages);
  Menu.setApplicationMenu(
    Menu.buildFromTemplate(
      appMenuTemplate({
        packaged: app.isPackaged,
        platform: process.platform,
        openFolder: () => {
          // In place, like the window's own Open folder: no relaunch.
          void apiReady.then((api) => api.handle('app.pickFolder', {})).catch((err: unknown) => dialog.showErrorBox('Folder not opened', messageOf(err)));
        },
      }),
    ),
  );

  // Without a folder the window opens on `Open folder` (the recent folders and the native dialog).
  let folder = args.folder;
  if (folder !== null && !isDirectory(folder)) {
    dialog.showErrorBox('Folder not found', `${folder} is not a folder. Open one in the window.`);
    folder = null;
  }

  registerCallHandler(apiReady, currentWindow, pages);
  openWindow = () => {
    inBackground = false;
    const window = createMainWindow({ pages, preload, stateFile: join(app.getPath('userData'), 'window-state.json'), devTools: !app.isPackaged });
    mainWindow = window;
    watchRendererCrashes(window.webContents, { notify: (message) => void apiReady.then((api) => api.notice(message)) });
    window.on('closed', () => {
      if (mainWindow === window) mainWindow = null;
    });
    return window;
  };
  openWindow();

  const updates = createElectronUpdates({
    currentVersion: app.getVersion(),
    target: updateTarget({ packaged: app.isPackaged, resourcesPath: process.resourcesPath, platform: process.platform }),
    platform: process.platform,
    loadUpdater: loadAutoUpdater,
  });

  let desktopApp: DesktopWindow;
  try {
    desktopApp = await openDesktopWindow({
      folder,
      dataDir,
      secretsFile: join(app.getPath('userData'), 'secrets.json'),
      cipher: safeStorageCipher(),
      platform: process.platform,
      pickFolder: () => pickFolderDialog(currentWindow()),
      openExternal: (url) => (/^https?:\/\//i.test(url) ? shell.openExternal(url) : Promise.reject(new Error(`not a web address: ${url}`))),
      updates,
      launch: desktopHostLaunch({ packaged: app.isPackaged, electron: process.versions.electron !== undefined, execPath: process.execPath, dataDir, env: process.env }),
      env: process.env,
      cwd: launch.cwd,
    });
  } catch (err) {
    fail('Deepdesk could not start', err);
    return;
  }
  apiResolved(desktopApp);
  const stopEvents = forwardEvents(desktopApp, currentWindow);
  // A thread that needs the person or finished while the window is not in front: an OS notification (SPEC §16).
  const agentNotifications = watchAgentNotifications({ api: desktopApp, window: currentWindow, openWindow: () => openWindow() });
  // A configured build checks once at start; Settings › Updates shows what it found.
  if (updates.status().canCheck) void updates.check();

  // Quitting with threads working asks first (SPEC §16). Their runs are the agent host's, so they
  // go on whatever this process does; kept in the background, it stays without a window (to
  // tell what they need) and quits when they end.
  let quitDecided = false;
  let asking = false;
  const working = () => desktopApp.workingThreads().catch(() => [] as string[]);
  app.on('before-quit', (event) => {
    if (quitDecided) return;
    event.preventDefault();
    if (asking) return;
    asking = true;
    void (async () => {
      const threads = await working();
      if (threads.length > 0) {
        const { response } = await dialog.showMessageBox(quitQuestion());
        if (quitChoice(response) === 'background') {
          inBackground = true;
          mainWindow?.close();
          while (inBackground && (await working()).length > 0) await new Promise((resolve) => setTimeout(resolve, 1_000));
          // Opened again meanwhile (a launch, a notification): the person is back, nothing quits.
          if (!inBackground) return;
        } else {
          await desktopApp.stopRuns(threads);
        }
      }
      quitDecided = true;
      app.quit();
    })().finally(() => (asking = false));
  });

  let closed = false;
  app.on('will-quit', (event) => {
    if (closed) return;
    event.preventDefault();
    closed = true;
    stopEvents();
    agentNotifications.stop();
    desktopApp
      .close()
      .catch((err: unknown) => console.error('deepdesk: closing the app failed', err))
      .finally(() => app.quit());
  });
}

/**
 * Starts the desktop app: the window, or with AGENT_HOST_SWITCH the agent host, run by
 * `runHost` (the CLI's `deepdesk host`, handed in by the entry above both: src-main/desktop-main.ts).
 */
export function startDesktop(options: { runHost: (args: string[]) => Promise<number> }): void {
  const debugSwitch = app.isPackaged ? debugSwitchGiven((name) => app.commandLine.hasSwitch(name)) : undefined;
  const hostArgs = agentHostArgs(process.argv);
  if (debugSwitch !== undefined) {
    // A debugger port is a way into the window (or the host, and the keys it holds) for any process of this user.
    console.error(`deepdesk: the installed app does not run with --${debugSwitch}`);
    app.exit(1);
  } else if (hostArgs !== undefined) {
    // The agent host: no window, no dock icon, no single-instance lock (the desktop app is its client).
    app.dock?.hide();
    options.runHost(hostArgs).then(
      (code) => app.exit(code),
      (err: unknown) => {
        console.error(`deepdesk host: ${messageOf(err)}`);
        app.exit(1);
      },
    );
  } else if (!app.requestSingleInstanceLock(launch)) {
    // The first instance hears this launch's arguments and working directory ('second-instance').
    app.quit();
  } else {
    // Before 'ready': app://deepdesk is a standard, secure origin of its own.
    protocol.registerSchemesAsPrivileged([APP_SCHEME_PRIVILEGES]);
    app.enableSandbox();
    start().catch((err: unknown) => fail('Deepdesk could not start', err));
  }
}
