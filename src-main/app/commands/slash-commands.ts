// Slash commands (SPEC §11): one table of what `/name` means in a message, for the window
// and `deepdesk run` alike. Built-ins first, then the skills (`/name [args]`: the skill's
// body and the args become the message), then the custom commands (Claude Code's Markdown
// commands: their body with the arguments put in), then the MCP servers' prompts
// (`/mcp__server__prompt`); on a name clash the earlier wins. A plugin's command is also
// reachable by its own name (`/changelog` for `/release-kit:changelog`), as in Claude Code,
// when nothing else has that name and no other plugin's command has it too (then the short
// name is refused, naming the full ones). A message whose first word is not a command of this
// table is one clear error and never reaches the model; a path such as `/etc/hosts …` is no command.

import { APPROVAL_MODES, isApprovalMode, type ApprovalMode } from '../../core/agent/permissions/modes';
import type { McpHubApi, McpPromptInfo } from '../../core/extensions/mcp/types';
import type { PermissionRule } from '../../core/agent/permissions/types';
import { commandAllowRules, commandMessage, commandShellLines, shellLineMessage, shellLines, type CustomCommand } from '../../core/extensions/definitions/commands';
import type { SkillShellLine } from '../../core/extensions/hooks/types';
import { parseSlash } from '../contract/commands';

export { parseSlash };

export interface CommandSkill {
  name: string;
  description: string;
  /** The SKILL.md's text after its front matter. */
  body(): Promise<string>;
}

export interface SlashCommandInfo {
  /** Without the `/`. */
  name: string;
  /** A plugin's command's name without its plugin (`changelog` of `release-kit:changelog`): the `/` list matches it too. */
  shortName?: string;
  source: 'built-in' | 'skill' | 'command' | 'mcp';
  description: string;
  /** e.g. `/mode ask|edit|auto|plan`. */
  usage: string;
}

/** What a command asks for; the caller (the app, `run`) carries it out. */
export type SlashOutcome =
  /**
   * `text` for the model; `personText` the part of it the person typed (a skill's arguments; none
   * of a prompt's text); `commandText` a trusted command file's own text, whose `@path` mentions
   * attach files as Claude Code's commands do; `allow` the rules of its `allowed-tools`, for its turn;
   * `shell` the skill's or command's `` !`…` `` lines the text asks the agent to run, which
   * PreSkillShellCommand hooks decide on (invoked by the person).
   */
  | { kind: 'send'; text: string; personText: string; commandText?: string; allow?: TurnRules; shell?: readonly SkillShellLine[] }
  | { kind: 'compact' }
  | { kind: 'clear' }
  | { kind: 'model'; model: string }
  | { kind: 'mode'; mode: ApprovalMode }
  /** `/goal TEXT` (SPEC §21): the agent drafts the goal's criteria and verify steps for the person to accept. */
  | { kind: 'goal'; objective: string };

/** The allow rules a message's turn adds (a command's `allowed-tools`), read at each call: empty once the command no longer loads. */
export type TurnRules = () => readonly PermissionRule[];

/** What a command gives the turn of the message it sent: its `allowed-tools`, and its shell lines (for PreSkillShellCommand). */
export interface Turn {
  allow?: TurnRules;
  shell?: readonly SkillShellLine[];
}

/** The turn a `send` outcome's message starts, or undefined when it gives none. */
export function turnOf(outcome: { allow?: TurnRules; shell?: readonly SkillShellLine[] }): Turn | undefined {
  if (outcome.allow === undefined && outcome.shell === undefined) return undefined;
  return { ...(outcome.allow ? { allow: outcome.allow } : {}), ...(outcome.shell ? { shell: outcome.shell } : {}) };
}

export class SlashCommandError extends Error {}

export interface CommandSources {
  skills?: () => readonly CommandSkill[];
  commands?: () => readonly CustomCommand[];
  mcp?: McpHubApi;
}

const BUILT_INS: readonly SlashCommandInfo[] = [
  { name: 'compact', source: 'built-in', description: 'Summarize the conversation so far now, keeping the latest exchange', usage: '/compact' },
  { name: 'model', source: 'built-in', description: 'Use another model', usage: '/model PROVIDER:MODEL' },
  { name: 'mode', source: 'built-in', description: 'Change what needs approval', usage: `/mode ${APPROVAL_MODES.join('|')}` },
  { name: 'clear', source: 'built-in', description: 'Start a new thread', usage: '/clear' },
  { name: 'goal', source: 'built-in', description: 'Pursue a goal the host checks: the agent drafts criteria and verify steps to accept', usage: '/goal OBJECTIVE' },
];

/** Every command there is now, built-ins first, for the `/` list. */
export function listCommands(sources: CommandSources): SlashCommandInfo[] {
  const taken = new Set(BUILT_INS.map((c) => c.name));
  const skills = (sources.skills?.() ?? [])
    .filter((s) => !taken.has(s.name))
    .map((s): SlashCommandInfo => ({ name: s.name, source: 'skill', description: s.description, usage: `/${s.name} [args]` }));
  for (const s of skills) taken.add(s.name);
  const commands = (sources.commands?.() ?? [])
    .filter((c) => !taken.has(c.name))
    .map((c): SlashCommandInfo => ({
      name: c.name,
      ...(c.plugin !== undefined ? { shortName: c.name.slice(c.plugin.length + 1) } : {}),
      source: 'command',
      description: c.description,
      usage: `/${c.name}${c.argumentHint !== undefined ? ` ${c.argumentHint}` : ''}`,
    }));
  const prompts = (sources.mcp?.prompts() ?? []).map(
    (p): SlashCommandInfo => ({
      name: p.qualifiedName,
      source: 'mcp',
      description: p.description ?? `The ${p.name} prompt of MCP server ${p.server}`,
      usage: `/${p.qualifiedName}${p.arguments.map((a) => (a.required ? ` <${a.name}>` : ` [${a.name}]`)).join('')}`,
    }),
  );
  return [...BUILT_INS, ...skills, ...commands, ...prompts];
}

/** What the message's command asks for, or null when the message is no command. Throws SlashCommandError for a bad one. */
export async function resolveSlash(text: string, sources: CommandSources, signal?: AbortSignal): Promise<SlashOutcome | null> {
  const parsed = parseSlash(text);
  if (parsed === null) return null;
  const { name, args } = parsed;
  switch (name) {
    case 'compact':
    case 'clear':
      if (args !== '') throw new SlashCommandError(`/${name} takes no arguments`);
      return { kind: name };
    case 'model':
      if (!/^[a-z-]+:\S+$/.test(args)) throw new SlashCommandError('/model needs PROVIDER:MODEL, e.g. /model anthropic:claude-sonnet-4-5');
      return { kind: 'model', model: args };
    case 'goal':
      if (args === '') throw new SlashCommandError('/goal needs the objective, e.g. /goal make the tests in test/parser pass');
      return { kind: 'goal', objective: args };
    case 'mode':
      if (!isApprovalMode(args)) throw new SlashCommandError(`/mode needs one of ${APPROVAL_MODES.join(', ')}`);
      return { kind: 'mode', mode: args };
  }
  const skill = sources.skills?.().find((s) => s.name === name);
  if (skill) {
    const body = (await skill.body()).trim();
    // Its `` !`…` `` lines are run with execute, as a command's are (Claude Code runs them for skills too).
    const message = shellLineMessage(body);
    const shell = shellLines(body).map((command): SkillShellLine => ({ command, skillName: skill.name, invokedBy: 'user' }));
    return { kind: 'send', text: args === '' ? message : `${message}\n\n${args}`, personText: args, ...(shell.length > 0 ? { shell } : {}) };
  }
  const command = findCommand(name, sources);
  if (command) {
    const rules = commandAllowRules(command);
    // Only while the command still loads as it was: a trust revoked or a file changed mid-turn takes its rules away.
    const allow = (): readonly PermissionRule[] => (sources.commands?.().some((c) => c.file === command.file && c.body === command.body && c.name === command.name) ? rules : []);
    const words = splitWords(args);
    const shell = commandShellLines(command, args, words).map((line): SkillShellLine => ({ command: line, commandName: command.name, invokedBy: 'user' }));
    return {
      kind: 'send',
      text: commandMessage(command, args, words),
      personText: args,
      commandText: command.body,
      ...(rules.length > 0 ? { allow } : {}),
      ...(shell.length > 0 ? { shell } : {}),
    };
  }
  const prompt = sources.mcp?.prompts().find((p) => p.qualifiedName === name);
  // The person's arguments went into the prompt; its text is the server's.
  if (prompt && sources.mcp) return { kind: 'send', text: await sources.mcp.getPrompt(name, promptArguments(prompt, splitWords(args)), signal), personText: '' };
  if (name.startsWith('mcp__')) throw new SlashCommandError(`/${name} is not a prompt of a connected MCP server`);
  throw new SlashCommandError(`unknown command /${name}: type / to see the commands`);
}

/** The command of this name, else the one plugin's command of this short name; a short name two plugins share is an error naming both. */
function findCommand(name: string, sources: CommandSources): CustomCommand | undefined {
  const commands = sources.commands?.() ?? [];
  const exact = commands.find((c) => c.name === name);
  if (exact !== undefined) return exact;
  // An MCP prompt of this full name wins over a plugin's short name, as every full name does.
  if (sources.mcp?.prompts().some((p) => p.qualifiedName === name)) return undefined;
  const byShortName = commands.filter((c) => c.plugin !== undefined && c.name === `${c.plugin}:${name}`);
  if (byShortName.length > 1) throw new SlashCommandError(`/${name} is a command of more than one plugin: use ${byShortName.map((c) => `/${c.name}`).join(' or ')}`);
  return byShortName[0];
}

/** `key=value` words name an argument; the other words fill the prompt's arguments in order (the last takes the rest). */
export function promptArguments(prompt: McpPromptInfo, words: string[]): Record<string, string> {
  const args: Record<string, string> = {};
  const positional: string[] = [];
  const known = new Set(prompt.arguments.map((a) => a.name));
  for (const word of words) {
    const eq = word.indexOf('=');
    if (eq > 0 && known.has(word.slice(0, eq))) args[word.slice(0, eq)] = word.slice(eq + 1);
    else positional.push(word);
  }
  const open = prompt.arguments.filter((a) => !(a.name in args));
  open.forEach((argument, i) => {
    if (i >= positional.length) return;
    args[argument.name] = i === open.length - 1 ? positional.slice(i).join(' ') : positional[i]!;
  });
  if (positional.length > 0 && open.length === 0) throw new SlashCommandError(`/${prompt.qualifiedName} takes no more arguments (got '${positional.join(' ')}')`);
  const missing = prompt.arguments.filter((a) => a.required && !(a.name in args)).map((a) => a.name);
  if (missing.length > 0) {
    throw new SlashCommandError(`/${prompt.qualifiedName} needs ${missing.join(', ')}: /${prompt.qualifiedName} ${prompt.arguments.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(' ')}`);
  }
  return args;
}

/** Words split at blanks; "double" or 'single' quotes keep blanks in a word. */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)) {
    words.push(match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : (match[2] ?? match[3]!));
  }
  return words;
}
