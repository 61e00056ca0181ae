// The desktop app's open-folder dialog, with the faked `electron` module (Electron itself cannot
// run in these tests): the folder picked, or null when the person cancels.

import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fake, FakeBrowserWindow, resetFakeElectron } from './testing/fake-electron';

vi.mock('electron', async () => (await import('./testing/fake-electron')).electron);
const { pickFolderDialog } = await import('./dialogs');

beforeEach(() => resetFakeElectron());

describe('the open-folder dialog', () => {
  it('asks for a folder (attached to the window when there is one) and gives the one picked', async () => {
    fake.dialogAnswers.push({ canceled: false, filePaths: ['/home/ann/proj'] }, { canceled: false, filePaths: ['/home/ann/proj'] });
    const window = new FakeBrowserWindow();
    expect(await pickFolderDialog(window as never)).toBe('/home/ann/proj');
    expect(fake.dialogCalls[0]).toEqual([window, expect.objectContaining({ properties: expect.arrayContaining(['openDirectory']) })]);
    expect(await pickFolderDialog(null)).toBe('/home/ann/proj');
    expect(fake.dialogCalls[1]).toEqual([expect.objectContaining({ title: 'Open a folder' })]);
  });

  it('gives null when the person cancels', async () => {
    fake.dialogAnswers.push({ canceled: true, filePaths: [] });
    expect(await pickFolderDialog(null)).toBeNull();
  });
});
