// The CLI's one table of commands: the options each command's parser accepts and the
// subcommands it takes. main.ts dispatches on these names and every command parses with its
// row, so the docs test (scripts/docs.test.ts) checks README and docs/ against what the CLI
// really accepts. Kept free of the commands' own imports: loading it costs nothing.

import type { ParseArgsConfig } from 'node:util';
import { COMMON_OPTIONS } from './usage';

type Options = NonNullable<ParseArgsConfig['options']>;

/** `--mount /PREFIX/=SPEC`, on the commands that open a mount table (run, serve, tools, acp). */
export const MOUNT_OPTIONS = { mount: { type: 'string', multiple: true } } as const satisfies Options;

/** `--sandbox PROVIDER` and `--sandbox-id ID` (SPEC §18), on run, serve and acp. */
export const SANDBOX_OPTIONS = { sandbox: { type: 'string' }, 'sandbox-id': { type: 'string' } } as const satisfies Options;

export const COMMAND_OPTIONS = {
  tools: { ...COMMON_OPTIONS, ...MOUNT_OPTIONS },
  memories: COMMON_OPTIONS,
  run: {
    ...COMMON_OPTIONS,
    thread: { type: 'string' },
    approve: { type: 'string' },
    mode: { type: 'string' },
    json: { type: 'boolean' },
    'context-window': { type: 'string' },
    'evict-chars': { type: 'string' },
    'max-cost': { type: 'string' },
    trust: { type: 'boolean' },
    'mcp-config': { type: 'string', multiple: true },
    detach: { type: 'boolean' },
    // `--worktree [NAME]`: run-command.ts reads the optional NAME before parsing (parseArgs has no optional values).
    worktree: { type: 'string' },
    'carry-changes': { type: 'boolean' },
    'print-request': { type: 'boolean' },
    ...SANDBOX_OPTIONS,
    ...MOUNT_OPTIONS,
  },
  serve: { ...COMMON_OPTIONS, ...MOUNT_OPTIONS, ...SANDBOX_OPTIONS, port: { type: 'string' }, 'context-window': { type: 'string' }, 'mcp-config': { type: 'string', multiple: true } },
  checkpoints: { ...COMMON_OPTIONS, thread: { type: 'string' }, force: { type: 'boolean' } },
  mcp: {
    ...COMMON_OPTIONS,
    project: { type: 'boolean' },
    url: { type: 'string' },
    header: { type: 'string', multiple: true },
    env: { type: 'string', short: 'e', multiple: true },
    credential: { type: 'string', multiple: true },
    transport: { type: 'string' },
    'no-sandbox': { type: 'boolean' },
    trust: { type: 'boolean' },
    'mcp-config': { type: 'string', multiple: true },
  },
  trust: { ...COMMON_OPTIONS, revoke: { type: 'boolean' } },
  skills: { ...COMMON_OPTIONS, 'context-window': { type: 'string' } },
  plugin: { ...COMMON_OPTIONS, yes: { type: 'boolean' } },
  acp: {
    ...COMMON_OPTIONS,
    ...SANDBOX_OPTIONS,
    trust: { type: 'boolean' },
    'mcp-config': { type: 'string', multiple: true },
    'context-window': { type: 'string' },
    'evict-chars': { type: 'string' },
    ...MOUNT_OPTIONS,
  },
  usage: { ...COMMON_OPTIONS, since: { type: 'string' }, by: { type: 'string' }, json: { type: 'boolean' } },
  threads: { ...COMMON_OPTIONS, format: { type: 'string' }, output: { type: 'string' }, 'no-media': { type: 'boolean' } },
  host: {
    ...COMMON_OPTIONS,
    'idle-seconds': { type: 'string' },
    listen: { type: 'string' },
    'allow-remote': { type: 'boolean' },
    'cors-origin': { type: 'string', multiple: true },
    'print-key': { type: 'boolean' },
    'rotate-key': { type: 'boolean' },
  },
  agents: { ...COMMON_OPTIONS, json: { type: 'boolean' } },
  attach: { ...COMMON_OPTIONS, approve: { type: 'string' } },
  stop: COMMON_OPTIONS,
  worktrees: { ...COMMON_OPTIONS, json: { type: 'boolean' }, force: { type: 'boolean' } },
  sandboxes: { ...COMMON_OPTIONS, json: { type: 'boolean' }, sandbox: { type: 'string' } },
} as const satisfies Record<string, Options>;

export type CommandName = keyof typeof COMMAND_OPTIONS;

/** The first word after the command, for the commands that take one. */
export const SUBCOMMANDS = {
  memories: ['ls', 'cat', 'write', 'rm'],
  checkpoints: ['ls', 'diff', 'restore'],
  mcp: ['ls', 'tools', 'add', 'rm'],
  skills: ['ls'],
  plugin: ['marketplace', 'install', 'add', 'ls', 'enable', 'disable', 'rm', 'update'],
  threads: ['ls', 'export'],
  worktrees: ['ls', 'apply', 'rm'],
  sandboxes: ['ls', 'stop', 'rm'],
} as const satisfies Partial<Record<CommandName, readonly string[]>>;

/** What main.ts takes in place of a command. */
export const HELP_ARGUMENTS = ['--help', '-h', 'help'] as const;
export const VERSION_ARGUMENTS = ['--version', '-v'] as const;

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(COMMAND_OPTIONS, name);
}
