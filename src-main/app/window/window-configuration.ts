// The configuration the window follows (SPEC §9–§11, §15): the trust question over the
// session's trust store, plugins, and the person's own files (every kind's places in the data
// folder and home, and `--mcp-config` files) under one watcher. A change to any of them, or to
// the folder's own, reloads the servers and extensions and asks the trust question again.

import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { changesFolderConfiguration, personConfigPaths } from '../../core/config/registry';
import { watchPersonConfiguration } from '../../core/config/watch-person-configuration';
import type { EventName, EventPayload } from '../contract';
import { PluginsService } from '../plugins/plugins-service';
import type { FolderSession } from '../session/folder-session';
import { FolderTrustService } from '../trust/folder-trust-service';

export interface WindowConfiguration {
  folderTrust: FolderTrustService;
  plugins: PluginsService;
  /** These paths of the folder changed: what follows its own configuration reloads if it is among them. */
  filesChanged(paths: ReadonlyArray<{ path: string }>): void;
  close(): void;
}

export function followConfiguration(options: {
  session: FolderSession;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  mcpConfigFiles: readonly string[];
  send<E extends EventName>(event: E, payload: EventPayload<E>): void;
}): WindowConfiguration {
  const { dataDir, env, send } = options;
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
  return {
    folderTrust,
    plugins,
    filesChanged: (paths) => {
      if (changesFolderConfiguration(realFolder, paths)) reload();
    },
    close: () => {
      personConfiguration.close();
      plugins.close();
    },
  };
}
