// The one app window: hardened webPreferences, restored bounds, shown when ready, loaded
// from app://deepdesk (or the dev server in development).

import { BrowserWindow, screen } from 'electron';
import { spellcheckerWanted } from './hardening';
import { appPageUrl, type AppPages } from './trusted-urls';
import { debounce, loadWindowState, MIN_HEIGHT, MIN_WIDTH, saveWindowState } from './window-state';

export interface MainWindowOptions {
  pages: AppPages;
  preload: string;
  /** JSON file for the bounds, in userData. */
  stateFile: string;
  /** False in a packaged app: no DevTools at all, whatever the menu or a shortcut asks. */
  devTools: boolean;
}

export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  const state = loadWindowState(
    options.stateFile,
    screen.getAllDisplays().map((display) => display.workArea),
  );
  const window = new BrowserWindow({
    width: state.width,
    height: state.height,
    ...(state.x !== undefined && state.y !== undefined ? { x: state.x, y: state.y } : { center: true }),
    minWidth: MIN_WIDTH,
    minHeight: MIN_HEIGHT,
    title: 'Deepdesk',
    show: false,
    backgroundColor: '#1e1e1e',
    webPreferences: {
      preload: options.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: spellcheckerWanted(),
      devTools: options.devTools,
    },
  });

  const saver = debounce(() => {
    if (window.isDestroyed()) return;
    try {
      saveWindowState(options.stateFile, { ...window.getNormalBounds(), maximized: window.isMaximized() });
    } catch (err) {
      console.warn('deepdesk: could not save the window bounds', err);
    }
  }, 500);
  window.on('move', () => saver.schedule());
  window.on('resize', () => saver.schedule());
  window.on('maximize', () => saver.schedule());
  window.on('unmaximize', () => saver.schedule());
  window.on('close', () => {
    saver.schedule();
    saver.flush();
  });

  window.once('ready-to-show', () => {
    if (state.maximized) window.maximize();
    window.show();
  });

  void window.loadURL(appPageUrl(options.pages));
  return window;
}
