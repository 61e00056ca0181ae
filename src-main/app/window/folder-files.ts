// The folder's files as the window shows them: the file tree and its watcher, whose paths tell
// the checkpoint recorder what changed (a remote folder is walked instead), and the folder's
// first checkpoint snapshot, taken in the background (in slices) once the watcher is ready.

import type { Backend } from '../../core/backends/protocol';
import type { CheckpointStore } from '../../core/checkpoints/store';
import type { CheckpointsService } from '../checkpoints/checkpoints-service';
import type { RemoteAppFolder } from '../places/remote-folder';
import { FolderChangeFeed } from '../workspace/folder-change-feed';
import { WorkspaceService, type WorkspaceOptions } from '../workspace/workspace-service';
import { giveBackMemorySoon } from './give-back-memory';
import type { NoticeInput } from './window-session';

export function watchFolderFiles(options: {
  folder: string;
  remote: RemoteAppFolder | undefined;
  backend: Backend;
  checkpoints: CheckpointsService;
  checkpointStore: CheckpointStore;
  onChange: WorkspaceOptions['onChange'];
  notice(problem: NoticeInput): void;
}): { workspace: WorkspaceService; close(): Promise<void> } {
  const { remote, checkpoints, notice } = options;
  const changeFeed = !remote ? new FolderChangeFeed(checkpoints.recorder.root, { onBlindSpot: () => workspace.watchAgain() }) : undefined;
  if (changeFeed) checkpoints.recorder.useChangeFeed(changeFeed);
  const workspace: WorkspaceService = new WorkspaceService({
    folder: options.folder,
    backend: options.backend,
    onChange: options.onChange,
    ...(changeFeed ? { feed: changeFeed } : {}),
    onWatchLimited: (message) => notice({ message }),
    ...(remote
      ? {
          remote: {
            ...(remote.pollIntervalMs !== undefined ? { pollIntervalMs: remote.pollIntervalMs } : {}),
            onError: (message: string) => notice({ message: `The file tree cannot follow ${remote.label} now: ${message}. It keeps trying.`, folder: options.folder }),
          },
        }
      : {}),
  });
  // Ready does not wait for the watcher: its subscription walks the folder's directories.
  const baselineAbort = new AbortController();
  const takesBaseline = !options.checkpointStore.hasBaseline(checkpoints.recorder.root);
  const watching = workspace.start().then(() =>
    checkpoints.recorder.prepareBaseline(baselineAbort.signal).then(
      // The snapshot's garbage (a big folder's is tens of MB) is given back once it is taken.
      () => {
        if (takesBaseline) giveBackMemorySoon();
      },
      () => {
        // Stopped at close, or failed: the first step takes it instead.
      },
    ),
  );
  return {
    workspace,
    async close() {
      baselineAbort.abort();
      await watching;
      await workspace.dispose();
    },
  };
}
