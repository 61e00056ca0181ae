// Plugins (SPEC §15): the person's installed plugins (`<data-dir>/plugins/plugins.json`,
// confirmed by content when installed) and a folder's `enabledPlugins` and
// `extraKnownMarketplaces` in its Claude Code settings. A folder never installs a plugin: what
// it asks for is offered through its trust question (folderPluginRequests), each marketplace
// and each plugin installed only when the person confirms it after seeing what it would load.

import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pluginsDir, type PluginStore } from '../../extensions/plugins/store';
import { projectClaudeSettingsFiles, readClaudeSettings } from '../claude-settings';
import { problemLine } from '../mcp-config-types';
import { FOLDER_CONFIG_PLACES } from '../places';
import type { ConfigKind } from './kind';

/** A plugin a folder's settings turn on (`"name@marketplace": true`). */
export interface FolderPluginRequest {
  /** `plugin@marketplace`, as `deepdesk plugin install` takes it. */
  spec: string;
  plugin: string;
  marketplace: string;
  /** The settings file that asks for it, relative to the folder, '/'-separated. */
  file: string;
  /**
   * Where the folder's `extraKnownMarketplaces` says the marketplace is, as `deepdesk plugin
   * marketplace add` takes it (a git URL, or a folder's absolute path); absent when it says nothing.
   */
  marketplaceSource?: string;
}

const SPEC = /^([a-z0-9]+(?:-[a-z0-9]+)*)@([A-Za-z0-9][A-Za-z0-9_.-]*)$/;
const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

/** The plugins the folder's (real path) settings turn on, once each, and one line for each it names wrongly. */
export function folderPluginRequests(folder: string): { requests: FolderPluginRequest[]; problems: string[] } {
  const requests: FolderPluginRequest[] = [];
  const problems: string[] = [];
  for (const path of projectClaudeSettingsFiles(folder)) {
    const settings = readClaudeSettings(path);
    const file = relative(folder, path).split(sep).join('/');
    for (const [spec, on] of Object.entries(settings.enabledPlugins)) {
      if (!on || requests.some((r) => r.spec === spec)) continue;
      const parts = SPEC.exec(spec);
      if (parts === null) {
        problems.push(problemLine({ file: path, field: `enabledPlugins.${spec}`, message: 'must name a plugin as plugin-name@marketplace' }));
        continue;
      }
      const source = marketplaceSource(folder, settings.extraKnownMarketplaces[parts[2]!]);
      if (typeof source === 'object') problems.push(problemLine({ file: path, field: `extraKnownMarketplaces.${parts[2]!}.source`, message: source.problem }));
      requests.push({ spec, plugin: parts[1]!, marketplace: parts[2]!, file, ...(typeof source === 'string' ? { marketplaceSource: source } : {}) });
    }
  }
  return { requests, problems };
}

/** The folder's requests for plugins the person has not installed, and whether each one's marketplace is added already. */
export function pendingFolderPlugins(folder: string, store: PluginStore): Array<FolderPluginRequest & { marketplaceAdded: boolean }> {
  const installed = new Set(store.plugins().map((p) => p.name));
  const added = new Set(Object.keys(store.state().marketplaces));
  return folderPluginRequests(folder)
    .requests.filter((r) => !installed.has(r.plugin))
    .map((r) => ({ ...r, marketplaceAdded: added.has(r.marketplace) }));
}

/** Claude Code's `{"source": {"source": "github", "repo"} | {"source": "git", "url"} | {"source": "directory", "path"}}` as a marketplace SOURCE. */
function marketplaceSource(folder: string, entry: unknown): string | undefined | { problem: string } {
  if (entry === undefined) return undefined;
  const source = typeof entry === 'object' && entry !== null ? (entry as { source?: unknown }).source : undefined;
  const { source: kind, repo, url, path } = (typeof source === 'object' && source !== null ? source : {}) as Record<string, unknown>;
  if (kind === 'github' && typeof repo === 'string' && REPO.test(repo)) return `https://github.com/${repo}.git`;
  // An option-like URL is refused by the store before git sees it; this only picks the text.
  if (kind === 'git' && typeof url === 'string' && url.trim() !== '') return url.trim();
  if (kind === 'directory' && typeof path === 'string' && path.trim() !== '') return isAbsolute(path) ? path : resolve(folder, path);
  return { problem: 'must be {"source": "github", "repo": "owner/name"}, {"source": "git", "url": "…"} or {"source": "directory", "path": "…"}' };
}

export const pluginKind: ConfigKind = {
  kind: 'plugin',
  noun: 'plugins',
  projectPaths: FOLDER_CONFIG_PLACES.plugin,
  jsonKey: 'enabledPlugins',
  userPaths: ({ dataDir }) => [join(pluginsDir(dataDir), 'plugins.json')],
  // Nothing of it loads by trust: its requests are offered for the person to install.
  folderItems: (folder) => ({ items: [], problems: folderPluginRequests(folder).problems }),
};
