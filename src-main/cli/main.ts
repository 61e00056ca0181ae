import { flagNotTakenMessage, HELP_ARGUMENTS, isCommandName, VERSION_ARGUMENTS, type CommandName } from './command-table';
import { packageVersion } from '../app/base/package-version';
import { helpText, UsageError } from './usage';
import { guardTerminalOutput } from './terminal-output';

type Command = (argv: string[]) => Promise<number>;

// Loaded on demand: each command pulls in only what it needs (start-up time matters). One
// entry per row of the command table, no more, no fewer.
const COMMANDS: Record<CommandName, Command> = {
  tools: async (argv) => (await import('./tools-command')).toolsCommand(argv),
  memories: async (argv) => (await import('./memories-command')).memoriesCommand(argv),
  run: async (argv) => (await import('./run-command')).runCommand(argv),
  serve: async (argv) => (await import('./serve-command')).serveCommand(argv),
  checkpoints: async (argv) => (await import('./checkpoints-command')).checkpointsCommand(argv),
  blame: async (argv) => (await import('./blame-command')).blameCommand(argv),
  mcp: async (argv) => (await import('./mcp-command')).mcpCommand(argv),
  trust: async (argv) => (await import('./trust-command')).trustCommand(argv),
  skills: async (argv) => (await import('./skills-command')).skillsCommand(argv),
  plugin: async (argv) => (await import('./plugin-command')).pluginCommand(argv),
  acp: async (argv) => (await import('./acp-command')).acpCommand(argv),
  usage: async (argv) => (await import('./usage-command')).usageCommand(argv),
  budget: async (argv) => (await import('./budget-command')).budgetCommand(argv, { stdout: process.stdout, env: process.env, cwd: process.cwd() }),
  threads: async (argv) => (await import('./threads-command')).threadsCommand(argv),
  host: async (argv) => (await import('./host-command')).hostCommand(argv),
  agents: async (argv) => (await import('./agents-command')).agentsCommand(argv),
  attach: async (argv) => (await import('./agents-command')).attachCommand(argv),
  stop: async (argv) => (await import('./agents-command')).stopCommand(argv),
  worktrees: async (argv) => (await import('./worktrees-command')).worktreesCommand(argv),
  sandboxes: async (argv) => (await import('./sandboxes-command')).sandboxesCommand(argv),
};

/** Runs the CLI; returns the exit status (0 ok, 1 agent/provider error, 2 bad usage). */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  // What a command prints is shown, never obeyed; `acp` speaks JSON-RPC on its stdout, whose
  // strings JSON already escapes (its stderr lines are guarded like every command's).
  if (name !== 'acp') guardTerminalOutput(process.stdout);
  guardTerminalOutput(process.stderr);
  if (name === undefined || (HELP_ARGUMENTS as readonly string[]).includes(name)) {
    process.stdout.write(helpText());
    return name === undefined ? 2 : 0;
  }
  if ((VERSION_ARGUMENTS as readonly string[]).includes(name)) {
    process.stdout.write(`deepdesk ${packageVersion()}\n`);
    return 0;
  }
  const command = isCommandName(name) ? COMMANDS[name] : undefined;
  if (command === undefined) {
    process.stderr.write(`deepdesk: unknown command '${name}'\n${helpText()}`);
    return 2;
  }
  try {
    if (rest.includes('--help') || rest.includes('-h')) {
      process.stdout.write(helpText());
      return 0;
    }
    return await command(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      // A flag another command takes: say this one would not apply it, rather than that it is unknown.
      const unknown = /^Unknown option '--([\w-]+)'/.exec(err.message)?.[1];
      const refused = unknown !== undefined && isCommandName(name) ? flagNotTakenMessage(name, unknown) : undefined;
      process.stderr.write(`deepdesk ${name}: ${refused ?? err.message}\n`);
      return 2;
    }
    process.stderr.write(`deepdesk ${name}: ${oneLine(err)}\n`);
    return 1;
  }
}

function oneLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0] ?? message;
}
