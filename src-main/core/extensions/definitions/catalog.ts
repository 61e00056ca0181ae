// The custom commands and subagents that load now (SPEC §11), looked at again at every use:
// a readdir and a stat per file (a file is parsed again only when its stat changed), so a new,
// edited or removed file, or a trust given or revoked, applies from the next message or step.

import { discoverAgents, type AgentDiscovery } from './agents';
import { discoverCommands, type CommandDiscovery } from './commands';
import type { MarkdownCache } from './markdown-files';
import type { DefinitionPlaces } from './project-places';

export interface DefinitionsCatalog {
  commands(): CommandDiscovery;
  agents(): AgentDiscovery;
}

export function createDefinitionsCatalog(options: DefinitionPlaces & { isTrusted(entry: { key: string; digest: string }): boolean }): DefinitionsCatalog {
  const cache: MarkdownCache = new Map();
  return {
    commands: () => discoverCommands(options, cache),
    agents: () => discoverAgents(options, cache),
  };
}
