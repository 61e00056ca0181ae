// What an installed plugin loads (SPEC §15), for the person to confirm before it does (the
// §9 list: each server, hook, skill, command and agent) and for `deepdesk plugin ls`; and
// the enabled, confirmed plugins' parts as each kind's loader takes them.

import { hookLabel } from '../hooks/config';
import { mcpServerLabel } from '../../config/kinds/mcp';
import { readServerEntries } from '../../config/mcp-config';
import { problemLine } from '../../config/mcp-config-types';
import { agentLabel, checkAgent } from '../definitions/agents';
import { checkCommand, commandLabel } from '../definitions/commands';
import { readMarkdownPlaces, type DefinitionPlace } from '../definitions/markdown-files';
import { readHooksFiles } from '../hooks/config';
import type { HookEntry } from '../hooks/types';
import { scanSkillsDir } from '../skills/discover';
import type { SkillProblem } from '../skills/types';
import type { PluginParts } from './manifest';

export interface PluginContents {
  servers: string[];
  hooks: string[];
  skills: string[];
  commands: string[];
  agents: string[];
  problems: string[];
}

export function pluginContents(parts: PluginParts): PluginContents {
  const servers = parts.mcpFiles.flatMap((file) => readServerEntries(file, 'user', 'plugin').entries.map((entry) => mcpServerLabel(entry)));
  const hooks = pluginHooks(parts).hooks.map(hookLabel);
  const skillProblems: SkillProblem[] = [];
  const skills = parts.skillsDirs.flatMap((dir) => scanSkillsDir(dir, skillProblems)).map((skill) => `Skill ${skill.name}`);
  const commands = readMarkdownPlaces(pluginPlaces(parts, 'commands'), { recursive: true }).found.flatMap((d) => {
    const command = checkCommand(d);
    return 'problem' in command ? [] : [commandLabel(command)];
  });
  const agents = readMarkdownPlaces(pluginPlaces(parts, 'agents'), { recursive: false }).found.flatMap((d) => {
    const agent = checkAgent(d);
    return 'problem' in agent ? [] : [agentLabel(agent)];
  });
  return { servers, hooks, skills, commands, agents, problems: skillProblems.map((p) => `${p.file}: ${p.message}`) };
}

/** A plugin's commands or agents folders, its parts named `plugin:part`. */
export function pluginPlaces(parts: PluginParts, kind: 'commands' | 'agents'): DefinitionPlace[] {
  return (kind === 'commands' ? parts.commandsDirs : parts.agentsDirs).map((dir) => ({ dir, source: 'plugin' as const, plugin: parts.name }));
}

/** A plugin's hooks, each knowing its plugin's folder (`CLAUDE_PLUGIN_ROOT`). */
export function pluginHooks(parts: PluginParts): { hooks: HookEntry[]; problems: string[] } {
  const read = readHooksFiles(parts.hooksFiles, 'user');
  return { hooks: read.hooks.map((hook) => ({ ...hook, pluginRoot: parts.root })), problems: read.problems.map(problemLine) };
}

