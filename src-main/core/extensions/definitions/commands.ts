// Custom slash commands in Claude Code's format (SPEC §11): Markdown files in
// `<data-dir>/commands/`, `~/.claude/commands/`, the folder's `.claude/commands/` and
// `.deepdesk/commands/` (after trust) and enabled plugins' `commands/`; sub-folders give
// `/folder:name`, a plugin's are `/plugin:name`. Front matter (all optional): `description`,
// `argument-hint`, `allowed-tools`, `model`. The body, with `$ARGUMENTS` and `$1`…`$9`
// replaced, becomes the message. A folder's command wins over the person's of the same name.

import type { PermissionRule } from '../../agent/permissions/types';
import { deepdeskRule } from '../../config/claude-permissions';
import type { FolderItems, IsTrusted } from '../../config/kinds/kind';
import { FOLDER_CONFIG_PLACES } from '../../config/places';
import type { MarkdownCache, MarkdownDefinition } from './markdown-files';
import { definitionItems, definitionPlaces, discoverDefinitions, type DefinitionPlaces } from './project-places';

export interface CustomCommand {
  /** Without the `/`: `review`, `frontend:component`, `plugin-name:command`. */
  name: string;
  /** The plugin whose command it is (its name starts `plugin:`). */
  plugin?: string;
  description: string;
  argumentHint?: string;
  /**
   * As written, in Claude Code's rule syntax: what runs without asking during the command's
   * own turn (commandAllowRules), after every deny and ask rule, inside the sandbox as always.
   */
  allowedTools?: string[];
  model?: string;
  source: MarkdownDefinition['place']['source'];
  file: string;
  body: string;
}

export interface CommandDiscovery {
  commands: CustomCommand[];
  /** The folder's commands that are not (or no longer) trusted. */
  untrusted: CustomCommand[];
  /** `FILE: PROBLEM` */
  problems: string[];
}

const SEGMENT = /^[A-Za-z0-9_.-]+$/;
const MAX_DESCRIPTION = 300;

/** A definition as a command, or what is wrong with it. */
export function checkCommand(definition: MarkdownDefinition): CustomCommand | { problem: string } {
  const segments = definition.relName.split('/');
  const bad = segments.find((s) => !SEGMENT.test(s));
  if (bad !== undefined) return { problem: `'${bad}' cannot be part of a command's name (letters, digits, '.', '-' and '_')` };
  const name = [...(definition.place.plugin !== undefined ? [definition.place.plugin] : []), ...segments].join(':');
  const { fields } = definition;
  const text = (key: string): string | undefined | { problem: string } => {
    const value = fields[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string' || typeof value === 'number') return String(value);
    // `argument-hint: [message]` is a YAML list: it is the hint as written.
    if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number')) return value.map((v) => `[${String(v)}]`).join(' ');
    return { problem: `${key}: must be text` };
  };
  const description = text('description');
  const hint = text('argument-hint');
  const model = text('model');
  for (const value of [description, hint, model]) if (typeof value === 'object') return value;
  const tools = fields['allowed-tools'];
  const allowedTools = typeof tools === 'string' ? tools.split(',').map((t) => t.trim()).filter(Boolean) : Array.isArray(tools) ? tools.map(String) : undefined;
  const firstLine = definition.body.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
  return {
    name,
    ...(definition.place.plugin !== undefined ? { plugin: definition.place.plugin } : {}),
    description: ((description as string | undefined) ?? firstLine.replace(/^#+\s*/, '')).slice(0, MAX_DESCRIPTION),
    ...(typeof hint === 'string' ? { argumentHint: hint } : {}),
    ...(allowedTools ? { allowedTools } : {}),
    ...(typeof model === 'string' ? { model } : {}),
    source: definition.place.source,
    file: definition.file,
    body: definition.body,
  };
}

/** The command's `allowed-tools` as allow rules for its turn; a tool Deepdesk has no meaning for allows nothing. */
export function commandAllowRules(command: Pick<CustomCommand, 'name' | 'allowedTools'>): PermissionRule[] {
  return (command.allowedTools ?? []).flatMap((text) => {
    const rule = deepdeskRule(text, 'allow', `/${command.name}`);
    return 'problem' in rule ? [] : [rule];
  });
}

/** A command as the trust question and a plugin's install list name it, with what it lets run unasked. */
export function commandLabel(command: Pick<CustomCommand, 'name' | 'allowedTools'>): string {
  return `Command /${command.name}${command.allowedTools?.length ? ` (allowed-tools: ${command.allowedTools.join(', ')})` : ''}`;
}

/** The folder's (real path) commands as trust items: `Command /name: .claude/commands/name.md`. */
export function commandItems(folder: string, cache?: MarkdownCache): FolderItems<MarkdownDefinition> {
  const label = (d: MarkdownDefinition): string | { problem: string } => {
    const command = checkCommand(d);
    return 'problem' in command ? command : commandLabel(command);
  };
  return definitionItems('command', folder, FOLDER_CONFIG_PLACES.command, label, true, cache);
}

/** The commands that load: the folder's trusted ones first (they win on a name), then the person's and the plugins'. */
export function discoverCommands(options: DefinitionPlaces & { isTrusted: IsTrusted }, cache?: MarkdownCache): CommandDiscovery {
  const project = options.folder !== undefined ? commandItems(options.folder, cache) : { items: [], problems: [] };
  const found = discoverDefinitions(definitionPlaces('commands', options), project, { isTrusted: options.isTrusted, recursive: true }, checkCommand, cache);
  return { commands: found.found, untrusted: found.untrusted, problems: found.problems };
}

/**
 * The message a command gives: its body with `$ARGUMENTS` (all the arguments) and `$1`…`$9`
 * (the words, quotes keeping blanks) replaced; a body that uses neither gets the arguments
 * after it (`ARGUMENTS: …`, as Claude Code does). A command line written `` !`git status` ``
 * is run with the agent's `execute`, asking as the mode says like any command the agent
 * runs: the message asks for it first (shellLineMessage), and PreSkillShellCommand hooks
 * decide on it before it runs (commandShellLines gives the lines they are asked about).
 */
export function commandMessage(command: Pick<CustomCommand, 'body'>, args: string, words: readonly string[]): string {
  return shellLineMessage(commandText(command, args, words));
}

/** The shell lines of a command's message, as commandMessage asks the agent to run them. */
export function commandShellLines(command: Pick<CustomCommand, 'body'>, args: string, words: readonly string[]): string[] {
  return shellLines(commandText(command, args, words));
}

function commandText(command: Pick<CustomCommand, 'body'>, args: string, words: readonly string[]): string {
  const usesArguments = /\$ARGUMENTS\b|\$[1-9](?![0-9])/.test(command.body);
  const body = command.body
    .replace(/\$ARGUMENTS\b/g, () => args)
    .replace(/\$([1-9])(?![0-9])/g, (_m, n: string) => words[Number(n) - 1] ?? '')
    .trim();
  return !usesArguments && args !== '' ? `${body}\n\nARGUMENTS: ${args}` : body;
}

/** A shell line of a skill or a command: `` !`command` `` on one line. */
const SHELL_LINE = /!`([^`\n]+)`/g;

/** The shell lines (`` !`…` ``) of a skill's or a command's text, in order, trimmed. */
export function shellLines(text: string): string[] {
  return [...text.matchAll(SHELL_LINE)].map((m) => m[1]!.trim());
}

/** The text with its shell lines asked for first, to be run with `execute` (each named where it stood). */
export function shellLineMessage(text: string): string {
  const runs = shellLines(text);
  if (runs.length === 0) return text;
  const body = text.replace(SHELL_LINE, (_m, cmd: string) => `(the output of \`${cmd.trim()}\`)`);
  return `First run ${runs.length === 1 ? 'this command' : 'these commands'} with the execute tool, and use the output where the request below refers to it:\n${runs.map((r) => `- \`${r}\``).join('\n')}\n\n${body}`;
}
