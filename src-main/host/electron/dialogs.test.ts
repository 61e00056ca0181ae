// The desktop app's open-folder dialog, with a faked `electron` module (Electron itself cannot
// run in these tests): the folder picked, or null when the person cancels.

import { beforeEach, describe, expect, it, vi } from 'vitest';

const showOpenDialog = vi.fn();
vi.mock('electron', () => ({ dialog: { showOpenDialog } }));

const { pickFolderDialog } = await import('./dialogs');

beforeEach(() => showOpenDialog.mockReset());

describe('the open-folder dialog', () => {
  it('asks for a folder (attached to the window when there is one) and gives the one picked', async () => {
    showOpenDialog.mockResolvedValue({ canceled: false, filePaths: ['/home/ann/proj'] });
    const window = { isDestroyed: () => false };
    expect(await pickFolderDialog(window as never)).toBe('/home/ann/proj');
    expect(showOpenDialog).toHaveBeenCalledWith(window, expect.objectContaining({ properties: expect.arrayContaining(['openDirectory']) }));
    expect(await pickFolderDialog(null)).toBe('/home/ann/proj');
    expect(showOpenDialog).toHaveBeenLastCalledWith(expect.objectContaining({ title: 'Open a folder' }));
  });

  it('gives null when the person cancels', async () => {
    showOpenDialog.mockResolvedValue({ canceled: true, filePaths: [] });
    expect(await pickFolderDialog(null)).toBeNull();
  });
});
