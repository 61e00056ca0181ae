// Claude Code's names for Deepdesk's base tools (SPEC §11): hooks see them, hook matchers,
// subagents' `tools` and permission rules may use them.

/** Deepdesk's name → Claude Code's. */
export const CLAUDE_CODE_NAMES: Readonly<Record<string, string>> = {
  execute: 'Bash',
  read_file: 'Read',
  write_file: 'Write',
  edit_file: 'Edit',
  glob: 'Glob',
  grep: 'Grep',
  ls: 'LS',
  task: 'Task',
  write_todos: 'TodoWrite',
};

const DEEPDESK_NAMES: Readonly<Record<string, string>> = {
  ...Object.fromEntries(Object.entries(CLAUDE_CODE_NAMES).map(([ours, theirs]) => [theirs, ours])),
  MultiEdit: 'edit_file',
};

/** The Deepdesk tool a name means: Claude Code's `Bash` is `execute`; any other name is itself. */
export function deepdeskToolName(name: string): string {
  return Object.hasOwn(DEEPDESK_NAMES, name) ? DEEPDESK_NAMES[name]! : name;
}
