// IPC trust, through the faked ipcMain: only the main window's own top frame, on the app's
// page, may call; another window, a subframe, or a page at another URL is refused.

import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { EventFrame } from '../../app/contract';
import type { WindowApi } from '../../app/base/window-api';
import { CALL_CHANNEL, EVENT_CHANNEL } from './bridge-api';
import { electron, FakeBrowserWindow, FakeFrame, resetFakeElectron } from './testing/fake-electron';

vi.mock('electron', async () => (await import('./testing/fake-electron')).electron);
const { forwardEvents, registerCallHandler } = await import('./ipc');
const { APP_PAGE_URL } = await import('./trusted-urls');

const pages = { rendererDir: '/opt/deepdesk/out/renderer' };
const listeners = new Set<(frame: EventFrame) => void>();
const api: WindowApi = {
  handle: async (method) => ({ answered: method }),
  onEvent: (listener) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

let window: FakeBrowserWindow;
beforeEach(() => {
  resetFakeElectron();
  listeners.clear();
  window = new FakeBrowserWindow();
  void window.loadURL(APP_PAGE_URL);
  registerCallHandler(Promise.resolve(api), () => window as never, pages);
});

const call = (sender: unknown, frame: FakeFrame | null) => electron.ipcMain.invoke(CALL_CHANNEL, sender as never, frame, { id: 0, method: 'threads.list', params: {} });

describe('IPC trust', () => {
  it("answers the main window's top frame on the app page", async () => {
    expect(await call(window.webContents, window.webContents.mainFrame)).toEqual({ id: 0, result: { answered: 'threads.list' } });
  });

  it('refuses another window, a subframe, another URL, a missing frame and a closed window', async () => {
    const other = new FakeBrowserWindow();
    void other.loadURL(APP_PAGE_URL);
    await expect(call(other.webContents, other.webContents.mainFrame)).rejects.toThrow('refused a call');
    await expect(call(window.webContents, new FakeFrame(APP_PAGE_URL, window.webContents.mainFrame))).rejects.toThrow('refused a call');
    for (const url of ['file:///opt/deepdesk/out/renderer/index.html', 'https://example.com/', 'app://deepdesk/other.html', 'app://evil/index.html', 'http://localhost:5173/', 'data:text/html,x']) {
      window.webContents.mainFrame.url = url;
      await expect(call(window.webContents, window.webContents.mainFrame), url).rejects.toThrow('refused a call');
    }
    window.webContents.mainFrame.url = APP_PAGE_URL;
    await expect(call(window.webContents, null)).rejects.toThrow('refused a call');
    window.close();
    await expect(call(window.webContents, window.webContents.mainFrame)).rejects.toThrow('refused a call');
  });

  it('sends events to the main window only while it is open', () => {
    const stop = forwardEvents(api, () => window as never);
    for (const listener of listeners) listener({ event: 'threads.changed', payload: {} });
    expect(window.webContents.sent).toEqual([[EVENT_CHANNEL, { event: 'threads.changed', payload: {} }]]);
    window.close();
    for (const listener of listeners) listener({ event: 'threads.changed', payload: {} });
    expect(window.webContents.sent).toHaveLength(1);
    stop();
    expect(listeners.size).toBe(0);
  });
});
