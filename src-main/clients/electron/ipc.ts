// The Electron transport: one IPC channel for calls, one for events, to the main window only.

import { ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import type { ResponseFrame } from '../../app/contract';
import type { WindowApi } from '../../app/base/window-api';
import { handleRequestFrame } from '../web/handle-frame';
import { CALL_CHANNEL, EVENT_CHANNEL } from './bridge-api';
import { isAppPageUrl, type AppPages } from './trusted-urls';

/** The main window's own top frame on the app's page (app://deepdesk/index.html): nothing else may call. */
function trustedSender(event: IpcMainInvokeEvent, window: BrowserWindow | null, pages: AppPages): boolean {
  const frame = event.senderFrame;
  return window !== null && !window.isDestroyed() && event.sender === window.webContents && frame !== null && frame.parent === null && isAppPageUrl(frame.url, pages);
}

/**
 * Answers `deepdesk:call` from the main window's own page; anything else is refused.
 * `api` may still be starting: calls wait for it. Returns a function that removes the handler.
 */
export function registerCallHandler(api: Promise<WindowApi>, mainWindow: () => BrowserWindow | null, pages: AppPages): () => void {
  ipcMain.handle(CALL_CHANNEL, async (event, frame: unknown): Promise<ResponseFrame> => {
    if (!trustedSender(event, mainWindow(), pages)) throw new Error('deepdesk: refused a call from a frame that is not the app');
    return handleRequestFrame(await api, frame);
  });
  return () => ipcMain.removeHandler(CALL_CHANNEL);
}

/** Sends every app event to the main window; returns the unsubscribe function. */
export function forwardEvents(api: WindowApi, mainWindow: () => BrowserWindow | null): () => void {
  return api.onEvent((frame) => {
    const window = mainWindow();
    if (window !== null && !window.isDestroyed()) window.webContents.send(EVENT_CHANNEL, frame);
  });
}
