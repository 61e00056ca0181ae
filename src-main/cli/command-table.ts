// The CLI's one table of commands: the options each command's parser accepts and the
// subcommands it takes. main.ts dispatches on these names and every command parses with its
// row, so the docs test (scripts/docs.test.ts) checks README and docs/ against what the CLI
// really accepts. Kept free of the commands' own imports: loading it costs nothing.

import type { ParseArgsConfig } from 'node:util';
import { sessionFlagOptions } from '../app/base/session-flags';
import { COMMON_OPTIONS } from './usage';

type Options = NonNullable<ParseArgsConfig['options']>;

/** `--folder DIR`: only for the commands that work in a folder (a command refuses a flag it would not apply). */
const FOLDER = { folder: { type: 'string' } } as const;

/**
 * A command's options: the common ones, its session flags (THE table, app/base/session-flags.ts)
 * and its own. The session flags are typed loosely here (their values are read through the
 * table's readSessionFlags, which checks them), so only the command's own are typed.
 */
function withSessionFlags<const O extends Options>(command: string, own: O): typeof COMMON_OPTIONS & Record<string, Options[string]> & O {
  return { ...COMMON_OPTIONS, ...sessionFlagOptions(command), ...own };
}

export const COMMAND_OPTIONS = {
  tools: withSessionFlags('tools', {
    ...FOLDER,}),
  memories: withSessionFlags('memories', {
    ...FOLDER,
    proposed: { type: 'boolean' },
    json: { type: 'boolean' },
    version: { type: 'string' },
    from: { type: 'string' },
    'dry-run': { type: 'boolean' },
  }),
  run: withSessionFlags('run', {
    ...FOLDER,
    thread: { type: 'string' },
    approve: { type: 'string' },
    mode: { type: 'string' },
    json: { type: 'boolean' },
    'max-cost': { type: 'string' },
    detach: { type: 'boolean' },
    // `--worktree [NAME]`: run-command.ts reads the optional NAME before parsing (parseArgs has no optional values).
    worktree: { type: 'string' },
    'carry-changes': { type: 'boolean' },
    'print-request': { type: 'boolean' },
    // With --goal: accept the drafted criteria and verify steps without asking (SPEC §21).
    yes: { type: 'boolean' },
  }),
  serve: withSessionFlags('serve', {
    ...FOLDER, port: { type: 'string' }, 'print-url': { type: 'boolean' } }),
  checkpoints: withSessionFlags('checkpoints', {
    ...FOLDER, thread: { type: 'string' }, force: { type: 'boolean' } }),
  blame: withSessionFlags('blame', { ...FOLDER, json: { type: 'boolean' } }),
  mcp: withSessionFlags('mcp', {
    ...FOLDER,
    project: { type: 'boolean' },
    url: { type: 'string' },
    header: { type: 'string', multiple: true },
    env: { type: 'string', short: 'e', multiple: true },
    credential: { type: 'string', multiple: true },
    transport: { type: 'string' },
    'no-sandbox': { type: 'boolean' },
  }),
  trust: withSessionFlags('trust', {
    ...FOLDER, revoke: { type: 'boolean' } }),
  skills: withSessionFlags('skills', {
    ...FOLDER,}),
  plugin: withSessionFlags('plugin', { yes: { type: 'boolean' } }),
  acp: withSessionFlags('acp', {
    ...FOLDER,}),
  usage: withSessionFlags('usage', { since: { type: 'string' }, by: { type: 'string' }, json: { type: 'boolean' } }),
  budget: withSessionFlags('budget', { ...FOLDER, json: { type: 'boolean' } }),
  threads: withSessionFlags('threads', { format: { type: 'string' }, output: { type: 'string' }, 'no-media': { type: 'boolean' } }),
  host: withSessionFlags('host', {
    ...FOLDER,
    'idle-seconds': { type: 'string' },
    listen: { type: 'string' },
    'allow-remote': { type: 'boolean' },
    'cors-origin': { type: 'string', multiple: true },
    'print-key': { type: 'boolean' },
    'rotate-key': { type: 'boolean' },
  }),
  // `agents install NAME --yes`: confirmed without asking.
  agents: withSessionFlags('agents', { json: { type: 'boolean' }, yes: { type: 'boolean' } }),
  attach: withSessionFlags('attach', { approve: { type: 'string' } }),
  stop: withSessionFlags('stop', {}),
  worktrees: withSessionFlags('worktrees', { json: { type: 'boolean' }, force: { type: 'boolean' } }),
  sandboxes: withSessionFlags('sandboxes', { json: { type: 'boolean' } }),
} satisfies Record<string, Options>;

export type CommandName = keyof typeof COMMAND_OPTIONS;

/** The first word after the command, for the commands that take one. */
export const SUBCOMMANDS = {
  memories: ['ls', 'cat', 'write', 'rm', 'log', 'restore', 'approve', 'reject', 'import'],
  checkpoints: ['ls', 'diff', 'restore'],
  mcp: ['ls', 'tools', 'add', 'rm'],
  skills: ['ls'],
  plugin: ['marketplace', 'install', 'add', 'ls', 'enable', 'disable', 'rm', 'update'],
  threads: ['ls', 'export'],
  worktrees: ['ls', 'apply', 'rm'],
  sandboxes: ['ls', 'stop', 'rm'],
  budget: ['show', 'set'],
} as const satisfies Partial<Record<CommandName, readonly string[]>>;

/** What main.ts takes in place of a command. */
export const HELP_ARGUMENTS = ['--help', '-h', 'help'] as const;
export const VERSION_ARGUMENTS = ['--version', '-v'] as const;

/**
 * Why a command refuses a flag another command takes: it would not apply it. Undefined for a
 * flag no command takes (the parser's own message says it is unknown).
 */
export function flagNotTakenMessage(command: CommandName, flag: string): string | undefined {
  const takers = (Object.keys(COMMAND_OPTIONS) as CommandName[]).filter((name) => Object.hasOwn(COMMAND_OPTIONS[name], flag));
  if (takers.length === 0) return undefined;
  const hint = REFUSAL_HINTS[command]?.[flag];
  return `${command} does not take --${flag}: it would not apply it (${takers.join(', ')} take it)${hint !== undefined ? `; ${hint}` : ''}`;
}

/** What to do instead, where a refused flag has a place that does apply. */
const REFUSAL_HINTS: Partial<Record<CommandName, Record<string, string>>> = {
  host: {
    model: "the host's runs use Settings' model, or the model a protocol request names (config.configurable.model)",
    'base-url': "the host's runs use Settings' base URL for the model",
    'api-key': "the host's runs use the key in Settings or the provider's variable in the host's environment",
  },
};

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(COMMAND_OPTIONS, name);
}
