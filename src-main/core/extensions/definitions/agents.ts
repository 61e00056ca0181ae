// Custom subagents in Claude Code's format (SPEC §11): Markdown files in `<data-dir>/agents/`,
// `~/.claude/agents/`, the folder's `.claude/agents/` and `.deepdesk/agents/` (after trust)
// and enabled plugins' `agents/`. Front matter `name` and `description` (required), `tools`
// (Deepdesk's or Claude Code's names, a comma-separated list or a YAML list; absent: all),
// `model` (`inherit` or `PROVIDER:MODEL`); the body is the system prompt. They are `task`'s
// subagent types beside those in Settings; a folder's wins over the person's of the same name.

import type { SubagentSpec } from '../../agent/middleware/subagents';
import type { FolderItems, IsTrusted } from '../../config/kinds/kind';
import { FOLDER_CONFIG_PLACES } from '../../config/places';
import type { MarkdownCache, MarkdownDefinition } from './markdown-files';
import { definitionItems, definitionPlaces, discoverDefinitions, type DefinitionPlaces } from './project-places';

export interface CustomAgent extends SubagentSpec {
  source: MarkdownDefinition['place']['source'];
  file: string;
  /** What was read but not used, for Settings (e.g. a Claude model alias taken as `inherit`). */
  note?: string;
}

export interface AgentDiscovery {
  agents: CustomAgent[];
  untrusted: CustomAgent[];
  /** `FILE: PROBLEM` */
  problems: string[];
}

const NAME = /^[a-z0-9][a-z0-9_-]*$/i;
const CLAUDE_MODEL_ALIASES = new Set(['sonnet', 'opus', 'haiku', 'opusplan']);

/** A definition as a subagent, or what is wrong with it (an error of its author's). */
export function checkAgent(definition: MarkdownDefinition): CustomAgent | { problem: string } {
  const { fields } = definition;
  const name = fields.name;
  if (name === undefined) return { problem: 'name: missing (a subagent needs a name in its front matter)' };
  if (typeof name !== 'string' || !NAME.test(name)) return { problem: `name: '${String(name)}' may hold only letters, digits, - and _` };
  const description = fields.description;
  if (typeof description !== 'string' || description.trim() === '') return { problem: 'description: missing (it tells the agent when to use this subagent)' };
  const rawTools = fields.tools;
  let tools: string[] | undefined;
  if (typeof rawTools === 'string') tools = rawTools.split(',').map((t) => t.trim()).filter(Boolean);
  else if (Array.isArray(rawTools) && rawTools.every((t) => typeof t === 'string')) tools = rawTools.map((t) => t.trim()).filter(Boolean);
  else if (rawTools !== undefined && rawTools !== null) return { problem: 'tools: must be a list of tool names' };
  const rawModel = fields.model;
  if (rawModel !== undefined && typeof rawModel !== 'string') return { problem: 'model: must be inherit or PROVIDER:MODEL' };
  let model: string | undefined;
  let note: string | undefined;
  if (rawModel !== undefined && rawModel !== 'inherit') {
    if (/^[a-z-]+:\S+$/.test(rawModel)) model = rawModel;
    // A model named another way (Claude Code's aliases, a name of its own) still leaves a usable subagent: on the thread's model.
    else note = CLAUDE_MODEL_ALIASES.has(rawModel) ? `model '${rawModel}' is Claude Code's alias: this subagent uses the thread's model` : `model '${rawModel}' is not PROVIDER:MODEL: this subagent uses the thread's model`;
  }
  const systemPrompt = definition.body.trim();
  return {
    name: definition.place.plugin !== undefined ? `${definition.place.plugin}:${name}` : name,
    description: description.trim(),
    systemPrompt: systemPrompt === '' ? description.trim() : systemPrompt,
    ...(tools && tools.length > 0 ? { tools } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(note !== undefined ? { note } : {}),
    source: definition.place.source,
    file: definition.file,
  };
}

/** A subagent as the trust question and a plugin's install list name it, with the tools it may use. */
export function agentLabel(agent: Pick<CustomAgent, 'name' | 'tools'>): string {
  return `Subagent ${agent.name}${agent.tools ? ` (tools: ${agent.tools.join(', ')})` : ''}`;
}

/** The folder's (real path) subagents as trust items: `Subagent NAME: .claude/agents/x.md`. */
export function agentItems(folder: string, cache?: MarkdownCache): FolderItems<MarkdownDefinition> {
  const label = (d: MarkdownDefinition): string | { problem: string } => {
    const agent = checkAgent(d);
    return 'problem' in agent ? agent : agentLabel(agent);
  };
  return definitionItems('agent', folder, FOLDER_CONFIG_PLACES.agent, label, false, cache);
}

/** The subagents that load: the folder's trusted ones first (they win on a name), then the person's and the plugins'. */
export function discoverAgents(options: DefinitionPlaces & { isTrusted: IsTrusted }, cache?: MarkdownCache): AgentDiscovery {
  const project = options.folder !== undefined ? agentItems(options.folder, cache) : { items: [], problems: [] };
  const found = discoverDefinitions(definitionPlaces('agents', options), project, { isTrusted: options.isTrusted, recursive: false }, checkAgent, cache);
  return { agents: found.found, untrusted: found.untrusted, problems: found.problems };
}
