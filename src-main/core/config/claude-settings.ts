// Claude Code's settings files (SPEC §9, §11, §15): the person's `~/.claude/settings.json` and
// a folder's `.claude/settings.json` and `.claude/settings.local.json`. Deepdesk reads their
// `hooks` (hooks/config.ts reads that key of any hooks file), `permissions` (`allow`, `ask`,
// `deny` in Claude Code's rule syntax), `enabledPlugins` and `extraKnownMarketplaces`; their
// other keys are Claude Code's and not a problem. Read within the bounds of every
// configuration file, never throwing: what cannot be used is one line naming file and field.

import { join } from 'node:path';
import { isObject, readJsonObject } from './mcp-config';
import { problemLine } from './mcp-config-types';
import { FOLDER_CONFIG_PLACES } from './places';

export type PermissionListName = 'allow' | 'ask' | 'deny';

export interface ClaudeSettings {
  file: string;
  permissions: Record<PermissionListName, string[]>;
  /** `{"name@marketplace": true}` */
  enabledPlugins: Record<string, boolean>;
  /** `{"name": {"source": {…}}}` as written */
  extraKnownMarketplaces: Record<string, unknown>;
  problems: string[];
}

/** The person's Claude Code settings file. */
export function userClaudeSettingsFile(home: string): string {
  return join(home, '.claude', 'settings.json');
}

/** The folder's Claude Code settings files, shared and local. */
export function projectClaudeSettingsFiles(folder: string): string[] {
  return FOLDER_CONFIG_PLACES.rule.map((rel) => join(folder, rel));
}

export function readClaudeSettings(file: string): ClaudeSettings {
  const empty: ClaudeSettings = { file, permissions: { allow: [], ask: [], deny: [] }, enabledPlugins: {}, extraKnownMarketplaces: {}, problems: [] };
  const read = readJsonObject(file, 'project', '{"permissions": {"allow": […]}, "hooks": {…}}');
  if ('problem' in read) return { ...empty, problems: read.problem ? [problemLine(read.problem)] : [] };
  const settings = { ...empty, problems: [] as string[] };
  const problem = (field: string, message: string): void => void settings.problems.push(problemLine({ file, field, message }));
  const permissions = read.value.permissions;
  if (permissions !== undefined) {
    if (!isObject(permissions)) problem('permissions', 'must be an object with "allow", "ask" and "deny" lists');
    else {
      for (const list of ['allow', 'ask', 'deny'] as const) {
        const rules = permissions[list];
        if (rules === undefined) continue;
        if (!Array.isArray(rules)) {
          problem(`permissions.${list}`, 'must be a list of rules such as "Bash(npm test:*)"');
          continue;
        }
        rules.forEach((rule, i) => {
          if (typeof rule === 'string') settings.permissions[list].push(rule);
          else problem(`permissions.${list}[${i}]`, 'must be text');
        });
      }
    }
  }
  const plugins = read.value.enabledPlugins;
  if (plugins !== undefined) {
    if (!isObject(plugins)) problem('enabledPlugins', 'must be an object of "plugin@marketplace": true');
    else for (const [name, on] of Object.entries(plugins)) if (typeof on === 'boolean') settings.enabledPlugins[name] = on;
  }
  const marketplaces = read.value.extraKnownMarketplaces;
  if (marketplaces !== undefined) {
    if (!isObject(marketplaces)) problem('extraKnownMarketplaces', 'must be an object of marketplaces by name');
    else settings.extraKnownMarketplaces = marketplaces;
  }
  return settings;
}
