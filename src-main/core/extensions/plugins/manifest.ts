// A plugin folder in Claude Code's layout (SPEC §15): `.claude-plugin/plugin.json` (`name`
// required, kebab-case; `version`, `description`, `author`; paths for `commands`, `agents`,
// `skills`, `hooks`, `mcpServers` that replace the defaults) and the default folders
// `skills/<name>/SKILL.md`, `commands/*.md`, `agents/*.md`, `hooks/hooks.json`, `.mcp.json`.
// Every path stays inside the plugin: one that leads out is refused with a line.

import { existsSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { readJsonObject } from '../../config/mcp-config';
import { problemLine } from '../../config/mcp-config-types';
import { isPathInside } from '../../fs/path-inside';

export const MANIFEST = join('.claude-plugin', 'plugin.json');
const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export interface PluginParts {
  name: string;
  /** The plugin's folder (real path): `${CLAUDE_PLUGIN_ROOT}`. */
  root: string;
  version?: string;
  description?: string;
  skillsDirs: string[];
  commandsDirs: string[];
  agentsDirs: string[];
  hooksFiles: string[];
  /** `.mcp.json`-shaped files (servers under `mcpServers` or at the top level). */
  mcpFiles: string[];
}

const paths = z.union([z.string(), z.array(z.string())]).optional();
const manifestSchema = z.looseObject({
  name: z.string().regex(NAME, 'must be kebab-case (lowercase letters, digits and hyphens)'),
  version: z.string().optional(),
  description: z.string().optional(),
  author: z.union([z.string(), z.looseObject({ name: z.string().optional() })]).optional(),
  commands: paths,
  agents: paths,
  skills: paths,
  hooks: z.union([z.string(), z.array(z.string()), z.record(z.string(), z.unknown())]).optional(),
  mcpServers: z.union([z.string(), z.array(z.string()), z.record(z.string(), z.unknown())]).optional(),
});

/** The plugin at `root`, or the one line that says what is wrong with it. */
export function readPlugin(root: string): PluginParts | { problem: string } {
  let real: string;
  try {
    real = realpathSync(root);
  } catch {
    return { problem: `${root}: no such folder` };
  }
  const file = join(real, MANIFEST);
  const read = readJsonObject(file, 'cli', '{"name": "my-plugin"}');
  if ('problem' in read) return { problem: read.problem ? problemLine(read.problem) : `${file}: no such file (a plugin needs .claude-plugin/plugin.json)` };
  const checked = manifestSchema.safeParse(read.value);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    return { problem: `${file}: ${issue.path.join('.') || 'plugin.json'}: ${issue.message}` };
  }
  const m = checked.data;
  const inside = (value: string | string[] | undefined, fallback: string, field: string): string[] | { problem: string } => {
    const list = value === undefined ? [fallback] : Array.isArray(value) ? value : [value];
    const out: string[] = [];
    for (const rel of list) {
      const path = resolve(real, rel);
      let target: string;
      try {
        target = realpathSync(path);
      } catch {
        if (value !== undefined) return { problem: `${file}: ${field}: ${rel} does not exist` };
        continue;
      }
      if (!isPathInside(real, target)) return { problem: `${file}: ${field}: ${rel} leads outside the plugin` };
      out.push(target);
    }
    return out;
  };
  const fields = {
    skillsDirs: inside(m.skills, 'skills', 'skills'),
    commandsDirs: inside(m.commands, 'commands', 'commands'),
    agentsDirs: inside(m.agents, 'agents', 'agents'),
    hooksFiles: typeof m.hooks === 'object' && !Array.isArray(m.hooks) ? { problem: `${file}: hooks: inline hooks are not read yet; put them in hooks/hooks.json` } : inside(m.hooks, join('hooks', 'hooks.json'), 'hooks'),
    mcpFiles: typeof m.mcpServers === 'object' && !Array.isArray(m.mcpServers) ? { problem: `${file}: mcpServers: inline servers are not read yet; put them in .mcp.json` } : inside(m.mcpServers, '.mcp.json', 'mcpServers'),
  };
  for (const value of Object.values(fields)) if ('problem' in value) return value;
  return {
    name: m.name,
    root: real,
    ...(m.version !== undefined ? { version: m.version } : {}),
    ...(m.description !== undefined ? { description: m.description } : {}),
    skillsDirs: fields.skillsDirs as string[],
    commandsDirs: fields.commandsDirs as string[],
    agentsDirs: fields.agentsDirs as string[],
    hooksFiles: (fields.hooksFiles as string[]).filter((f) => existsSync(f)),
    mcpFiles: (fields.mcpFiles as string[]).filter((f) => existsSync(f)),
  };
}
