import { openFolderBackend, RemoteFolderError, type FolderBackendOptions, type OpenedFolderBackend } from '../app/places/folder-backend';
import type { FolderLocation } from '../app/places/folder-location';
import { UsageError } from './usage';

/**
 * The folder's backend for a command (see openFolderBackend); a remote folder that is not
 * there, or is a file, is bad usage as a local one is. Connection failures reject as they are
 * (one line naming the host, exit 1).
 */
export async function openCommandFolder(location: FolderLocation, options: FolderBackendOptions): Promise<OpenedFolderBackend> {
  try {
    return await openFolderBackend(location, options);
  } catch (err) {
    if (err instanceof RemoteFolderError && err.code !== 'failed') throw new UsageError(err.message);
    throw err;
  }
}
