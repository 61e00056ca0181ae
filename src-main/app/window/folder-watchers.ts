// What the window follows of its folder: the file tree and its watcher, whose paths tell the
// checkpoint recorder what changed (a remote folder is walked instead), then the folder's first
// checkpoint snapshot in the background; and the configuration (SPEC §9–§11, §15): the trust
// question, plugins, and the person's own files (every kind's places in the data folder and
// home, and `--mcp-config` files) under one watcher. A change to any of them, or to the
// folder's own, reloads the servers and extensions and asks the trust question again.

import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { Backend } from '../../core/backends/protocol';
import { changesFolderConfiguration, personConfigPaths } from '../../core/config/registry';
import { watchPersonConfiguration } from '../../core/config/watch-person-configuration';
import type { CheckpointsService } from '../checkpoints/checkpoints-service';
import type { EventName, EventPayload } from '../contract';
import type { RemoteAppFolder } from '../places/remote-folder';
import { PluginsService } from '../plugins/plugins-service';
import type { FolderSession } from '../session/folder-session';
import { FolderTrustService } from '../trust/folder-trust-service';
import { FolderChangeFeed } from '../workspace/folder-change-feed';
import { WorkspaceService } from '../workspace/workspace-service';
import { giveBackMemorySoon } from './give-back-memory';
import type { NoticeInput } from './window-session';

export function watchFolder(options: {
  folder: string;
  remote: RemoteAppFolder | undefined;
  session: FolderSession;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  mcpConfigFiles: readonly string[];
  /** The folder's files as the tree lists them. */
  backend: Backend;
  checkpoints: CheckpointsService;
  send<E extends EventName>(event: E, payload: EventPayload<E>): void;
  notice(problem: NoticeInput): void;
}) {
  const { dataDir, env, send, remote, checkpoints, notice } = options;
  const { mcp, extensions, trustStore } = options.session.extensions;
  // The folder's own configuration is read from the local disk; for a remote folder this looks
  // at an empty local folder instead (the person's own still load).
  const realFolder = options.session.configFolder;
  const reload = () => {
    mcp.scheduleReload();
    extensions.scheduleReload();
    // A plugin installed elsewhere (`deepdesk plugin install`) is no longer offered.
    void folderTrust.refresh();
  };
  // It offers the plugins the folder's settings ask for (SPEC §15), installed through `plugins`.
  const folderTrust = new FolderTrustService({ folder: realFolder, env, store: trustStore, onState: (state) => send('trust.changed', state), pluginRequests: () => plugins.folderRequests(realFolder) });
  const personConfiguration = watchPersonConfiguration([...personConfigPaths({ dataDir, home: homedir() }), ...options.mcpConfigFiles.map((f) => resolve(f))], reload);
  const plugins = new PluginsService(dataDir, env, () => {
    send('plugins.changed', {});
    reload();
  });
  folderTrust.onGranted(() => mcp.reload());
  folderTrust.onGranted(() => extensions.reload());
  // Trust given or revoked elsewhere (`deepdesk trust --revoke`, another window): the question
  // follows at once (the servers, hooks and skills follow in the session).
  trustStore.onChange(() => void folderTrust.refresh());

  const changeFeed = !remote ? new FolderChangeFeed(checkpoints.recorder.root, { onBlindSpot: () => workspace.watchAgain() }) : undefined;
  if (changeFeed) checkpoints.recorder.useChangeFeed(changeFeed);
  const workspace: WorkspaceService = new WorkspaceService({
    folder: options.folder,
    backend: options.backend,
    onChange: (paths) => {
      send('files.changed', { paths });
      if (changesFolderConfiguration(realFolder, paths)) reload();
    },
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
  // Servers start in parallel in the background: one that is slow or fails never holds up the window or the agent.
  const mcpStarted = Promise.all([folderTrust.refresh(), mcp.start()]);
  // Ready does not wait for the watcher: its subscription walks the folder's directories.
  const baselineAbort = new AbortController();
  const takesBaseline = !options.session.checkpointStore.hasBaseline(checkpoints.recorder.root);
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
    folderTrust,
    plugins,
    async close() {
      await mcpStarted.catch(() => undefined);
      personConfiguration.close();
      plugins.close();
      baselineAbort.abort();
      await watching;
      await workspace.dispose();
    },
  };
}
