// The folder-configuration registry (SPEC §9): every kind of configuration a folder or the
// person provides, one entry each. Trust, the sandbox's read-only list, the agent's asking
// writes and the watchers all read it here, so a new kind is one entry in CONFIG_KINDS.

import { join } from 'node:path';
import { agentKind } from './kinds/agents';
import { commandKind } from './kinds/commands';
import { hookKind } from './kinds/hooks';
import type { ConfigKind, ConfigPlaces, FolderEntries } from './kinds/kind';
import { mcpKind } from './kinds/mcp';
import { pluginKind } from './kinds/plugins';
import { ruleKind } from './kinds/rules';
import { skillKind } from './kinds/skills';

export type { ConfigKind } from './kinds/kind';

export const CONFIG_KINDS: readonly ConfigKind[] = [mcpKind, hookKind, skillKind, commandKind, agentKind, ruleKind, pluginKind];

/** Everything the folder's (real path) configuration would load, kind by kind; a kind that fails is one problem. */
export function folderConfiguration(folder: string, env: NodeJS.ProcessEnv, kinds: readonly ConfigKind[] = CONFIG_KINDS): FolderEntries {
  const read = kinds.map((kind): FolderEntries => {
    try {
      const read = kind.folderItems(folder, env);
      return { entries: read.items.map((item) => item.entry), problems: read.problems };
    } catch (err) {
      return { entries: [], problems: [`${folder}: the folder's ${kind.kind} configuration could not be read (${err instanceof Error ? err.message : String(err)})`] };
    }
  });
  return { entries: read.flatMap((r) => r.entries), problems: read.flatMap((r) => r.problems) };
}

/** Where a folder keeps its configuration, relative to it ('/'-separated). */
export function folderConfigPaths(kinds: readonly ConfigKind[] = CONFIG_KINDS): string[] {
  return [...new Set(kinds.flatMap((kind) => kind.projectPaths))];
}

/**
 * Whether a change at this path (virtual, in the folder: `/.claude/settings.json`) can change
 * what the folder's configuration holds: a configuration path, anything below one, or a
 * folder on the way to one (created, removed or renamed as a whole).
 */
export function isFolderConfigPath(path: string): boolean {
  const rel = path.replace(/^\/+/, '').replace(/\/+$/, '');
  if (rel === '') return false;
  return folderConfigPaths().some((place) => rel === place || rel.startsWith(`${place}/`) || place.startsWith(`${rel}/`));
}

/**
 * Whether changes the folder's watcher saw (virtual paths in the folder, real path) can change
 * what its configuration holds or runs: a configuration path, or a file an entry runs.
 */
export function changesFolderConfiguration(folder: string, paths: ReadonlyArray<{ path: string }>): boolean {
  if (paths.some((p) => isFolderConfigPath(p.path))) return true;
  const files = folderEntryFiles(folder);
  if (files.length === 0) return false;
  const changed = paths.map((p) => join(folder, p.path));
  return changed.some((path) => files.some((file) => file === path || file.startsWith(`${path}/`) || path.startsWith(`${file}/`)));
}

/** Every file inside the folder that its configuration's entries (trusted or not) run or load. */
export function folderEntryFiles(folder: string): string[] {
  return [...new Set(CONFIG_KINDS.flatMap((kind) => kind.entryFiles?.(folder) ?? []))].sort();
}

/** Every file inside the folder that the person's own configuration (their plugins' included) runs. */
export function personEntryFolderFiles(folder: string, places: ConfigPlaces): string[] {
  return [...new Set(CONFIG_KINDS.flatMap((kind) => kind.personEntryFiles?.(folder, places) ?? []))].sort();
}

/** Where the person keeps configuration (files and folders, absolute): what is watched for them. */
export function personConfigPaths(places: ConfigPlaces): string[] {
  return [...new Set(CONFIG_KINDS.flatMap((kind) => kind.userPaths(places)))];
}
