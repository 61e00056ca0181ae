// The desktop shell's start (`npm start` with Electron), with a faked `electron` module and
// the window, keychain and IPC parts it wires stubbed (Electron itself cannot run here): with
// no folder on the command line it asks nothing at start and the window's first answer is
// `folder: null` (the window opens on Open folder); the native dialog then opens the folder
// picked in the same process and window, never by relaunching the app.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { AppHostApi } from '../../app/host-api';
import type { SecretStore } from '../../app/secret-store';

const root = mkdtempSync(join(tmpdir(), 'deepdesk-electron-main-'));
const dataDir = join(root, 'data');
const project = join(root, 'proj');
mkdirSync(project);
writeFileSync(join(project, 'main.py'), 'print("hi")\n');

const handlers = new Map<string, (...args: unknown[]) => void>();
const electronApp = {
  isPackaged: true,
  enableSandbox: vi.fn(),
  requestSingleInstanceLock: vi.fn(() => true),
  on: vi.fn((event: string, handler: (...args: unknown[]) => void) => void handlers.set(event, handler)),
  whenReady: vi.fn(() => Promise.resolve()),
  isReady: vi.fn(() => true),
  getPath: vi.fn(() => join(root, 'user-data')),
  getVersion: vi.fn(() => '1.2.3'),
  relaunch: vi.fn(),
  quit: vi.fn(),
  exit: vi.fn(),
};
const dialog = { showOpenDialog: vi.fn(), showErrorBox: vi.fn() };
vi.mock('electron', () => ({ app: electronApp, dialog, session: { defaultSession: {} } }));

const fakeWindow = { on: vi.fn(), isDestroyed: () => false, isMinimized: () => false, restore: vi.fn(), focus: vi.fn() };
vi.mock('./main-window', () => ({ createMainWindow: vi.fn(() => fakeWindow) }));
vi.mock('./hardening', () => ({ hardenSession: vi.fn(), hardenContents: vi.fn() }));
const keychain = new Map<string, string>();
vi.mock('./secrets', () => ({
  createSafeStorageSecretStore: (): SecretStore => ({
    get: async (name) => keychain.get(name),
    set: async (name, value) => void keychain.set(name, value),
    delete: async (name) => void keychain.delete(name),
  }),
}));
let served: Promise<AppHostApi> | undefined;
vi.mock('./ipc', () => ({
  registerCallHandler: vi.fn((api: Promise<AppHostApi>) => {
    served = api;
    return () => undefined;
  }),
  forwardEvents: vi.fn(() => () => undefined),
}));

// `electron <packaged app> --data-dir DIR`: no folder.
const argv = process.argv;
process.argv = ['deepdesk', '--data-dir', dataDir];
await import('./main');
process.argv = argv;

afterAll(async () => {
  // Quitting closes the app (will-quit waits for it, then quits).
  handlers.get('will-quit')?.({ preventDefault: () => undefined });
  await vi.waitFor(() => expect(electronApp.quit).toHaveBeenCalled());
  rmSync(root, { recursive: true, force: true });
});

describe('the desktop shell without a folder', () => {
  it('asks nothing at start, opens on Open folder, and opens the folder picked in place', async () => {
    await vi.waitFor(() => expect(served).toBeDefined());
    const api = await served!;
    expect(dialog.showOpenDialog).not.toHaveBeenCalled();
    expect(await api.handle('app.info', {})).toEqual({ folder: null, folderName: '', version: '1.2.3', transport: 'electron', canPickFolder: true });

    dialog.showOpenDialog.mockResolvedValueOnce({ canceled: true, filePaths: [] });
    expect(await api.handle('app.pickFolder', {})).toEqual({ folder: null });
    dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: [project] });
    expect(await api.handle('app.pickFolder', {})).toEqual({ folder: project });
    expect(await api.handle('app.info', {})).toMatchObject({ folder: project, folderName: 'proj' });
    expect(((await api.handle('files.list', { path: '/' })) as Array<{ path: string }>).map((e) => e.path)).toEqual(['/main.py']);
    expect(electronApp.relaunch).not.toHaveBeenCalled();
    expect(electronApp.exit).not.toHaveBeenCalled();
  });
});
