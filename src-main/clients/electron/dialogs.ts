import { dialog, type BrowserWindow } from 'electron';

/** Asks for a project folder; null when the person cancels. */
export async function pickFolderDialog(parent: BrowserWindow | null): Promise<string | null> {
  const options: Electron.OpenDialogOptions = { title: 'Open a folder', properties: ['openDirectory', 'createDirectory'] };
  const result = parent !== null && !parent.isDestroyed() ? await dialog.showOpenDialog(parent, options) : await dialog.showOpenDialog(options);
  return result.canceled ? null : (result.filePaths[0] ?? null);
}
