// The custom commands and subagents that load now (SPEC §11), looked at again at every use:
// a readdir and a stat per file (a file is parsed again only when its stat changed), so a new,
// edited or removed file, or a trust given or revoked, applies from the next message or step.

import { discoverAgents, type AgentDiscovery } from './agents';
import { discoverCommands, type CommandDiscovery } from './commands';
import { enabledPluginParts } from '../plugins/store';
import type { DefinitionPlace, MarkdownCache } from './markdown-files';
import type { DefinitionPlaces } from './project-places';
import type { IsTrusted } from '../../config/kinds/kind';

export interface DefinitionsCatalog {
  commands(): CommandDiscovery;
  agents(): AgentDiscovery;
}

export function createDefinitionsCatalog(options: DefinitionPlaces & { isTrusted: IsTrusted }): DefinitionsCatalog {
  const cache: MarkdownCache = new Map();
  // Enabled plugins' folders, named `plugin:part`, looked at again at every use.
  const plugins = (kind: 'commands' | 'agents'): DefinitionPlace[] =>
    enabledPluginParts(options.dataDir).plugins.flatMap((p) => (kind === 'commands' ? p.commandsDirs : p.agentsDirs).map((dir) => ({ dir, source: 'plugin' as const, plugin: p.name })));
  return {
    commands: () => discoverCommands({ ...options, plugins: plugins('commands') }, cache),
    agents: () => discoverAgents({ ...options, plugins: plugins('agents') }, cache),
  };
}
