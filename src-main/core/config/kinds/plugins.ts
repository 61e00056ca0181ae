// Plugins (SPEC §15): the person's installed plugins (`<data-dir>/plugins/plugins.json`,
// confirmed by content when installed) and a folder's `enabledPlugins` and
// `extraKnownMarketplaces` in its Claude Code settings. A folder never installs a plugin: what
// it asks for and is not installed is one line saying how the person can install it.

import { join } from 'node:path';
import { pluginsDir } from '../../extensions/plugins/store';
import { projectClaudeSettingsFiles, readClaudeSettings } from '../claude-settings';
import { FOLDER_CONFIG_PLACES } from '../places';
import type { ConfigKind } from './kind';

export const pluginKind: ConfigKind = {
  kind: 'plugin',
  noun: 'plugins',
  projectPaths: FOLDER_CONFIG_PLACES.plugin,
  jsonKey: 'enabledPlugins',
  userPaths: ({ dataDir }) => [join(pluginsDir(dataDir), 'plugins.json')],
  folderItems(folder) {
    const problems: string[] = [];
    for (const file of projectClaudeSettingsFiles(folder)) {
      const settings = readClaudeSettings(file);
      for (const [spec, on] of Object.entries(settings.enabledPlugins)) {
        if (!on) continue;
        const markets = Object.keys(settings.extraKnownMarketplaces);
        problems.push(
          `${file}: enabledPlugins: the folder asks for the plugin ${spec}; Deepdesk does not install plugins for a folder: to use it, run ${markets.length > 0 ? `deepdesk plugin marketplace add SOURCE (the folder names ${markets.join(', ')}), then ` : ''}deepdesk plugin install ${spec}`,
        );
      }
    }
    return { items: [], problems };
  },
};
