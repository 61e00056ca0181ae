// Command-line parsing shared by every subcommand (SPEC §5). Bad usage exits 2.

import { helpColumn, readSessionFlags, sessionFlagHelp, type GivenSessionFlags } from '../app/base/session-flags';
import type { ParseArgsConfig } from 'node:util';
import { PROVIDER_LABELS, SANDBOX_PROVIDER_NAMES } from '../core/process/sandbox-provider-table';
import { KNOWN_AGENTS } from '../app/agents/vendors/catalog';

export class UsageError extends Error {}

// Taken from the module itself: `import` of node:util builds its ESM face from every export,
// which loads worker_threads, the diff and colour code and more, in every command's start.
const { parseArgs } = process.getBuiltinModule('node:util');

export const COMMON_OPTIONS = {
  'data-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

export function parseCommand<O extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

/** A flag's value as a positive amount, e.g. dollars (undefined when the flag is absent). */
export function positiveAmount(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw.trim().replace(/^\$/, ''));
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} must be a positive amount of US dollars, e.g. 0.50 (got '${raw}')`);
  return n;
}

/** A flag's value as a positive whole number (undefined when the flag is absent). */
/** A command's session flags (THE table, app/base/session-flags.ts), read and checked: a bad one is bad usage. */
export function sessionFlagsOf(command: string, values: Readonly<Record<string, unknown>>, cwd: string = process.cwd()): GivenSessionFlags {
  return badRequestAsUsage(() => readSessionFlags(command, values, cwd));
}

function helpLines(text: string): string {
  return helpColumn(text).map((l) => `${' '.repeat(24)}${l}`).join('\n');
}

let help: string | undefined;

/** `--help`'s text: made when it is shown (its session-flag lines wrapped from the table, the catalog's agents), not on every command's start. */
export function helpText(): string {
  help ??= `Usage: deepdesk <command> [options]

Commands:
  tools                 JSON-lines tool session on stdin/stdout
  run "prompt"          run the agent headless and print its final answer
  serve                 serve the app to a browser on 127.0.0.1
  serve --print-url     print the address (with its key) of the serve running on
                        this data folder, to open the window again
  memories ls [--proposed] | cat PATH [--version N] | write PATH | rm PATH |
      log PATH [--json] | restore PATH --version N |
      approve PATH [--version N] | reject PATH [--version N] |
      import claude-code|codex [--from DIR] [--dry-run]
                        the agent's long-term memories of the folder's project and
                        global/: list, print, write (stdin) and remove them; a memory's
                        versions and bringing one back; answer proposed ones; bring in
                        Claude Code's or Codex's memories
  checkpoints ls --thread ID | diff ID [PATH] | restore ID [--force]
                        what the agent changed in a thread, and undoing it
  blame FILE [--json]   who wrote each line: agent THREAD MODEL, person or unknown
  mcp ls | tools NAME | add NAME [--project] -- COMMAND [ARGS…] |
      add NAME [--project] --url URL [--header 'K: V']… | rm NAME
                        the MCP servers whose tools the agent gets
  trust [--revoke]      list the folder's own configuration (MCP servers, skills) and
                        trust it to load, or forget that trust
  skills ls             the skills the agent gets (yours and, once trusted, the folder's)
                        and the ones that could not be used
  plugin marketplace add SOURCE | marketplace ls | marketplace rm NAME |
      marketplace update [NAME] | install PLUGIN@MARKETPLACE [--yes] |
      add SOURCE [--yes] | ls | enable NAME | disable NAME | rm NAME | update [NAME] [--yes]
                        Claude Code plugins and marketplaces (skills, commands, agents,
                        hooks, MCP servers), each confirmed by what it loads
  acp                   the agent for an editor (Zed, JetBrains, Neovim, Emacs) over the
                        Agent Client Protocol on stdin/stdout
  usage [--since DATE] [--by thread|day|model] [--json]
                        what the model calls cost: tokens and dollars by thread, day or
                        model, with a total; and sandbox time by provider
  budget [show] [--folder DIR] [--json] | set SCOPE KEY VALUE
                        the budget tree (workspace, folders, threads, fan-outs): what
                        each spent and may spend; set a cap (SCOPE workspace, folder:DIR,
                        thread or thread:ID; KEY as in settings.json budgets,
                        docs/usage.md)
  threads ls | export THREAD [--format jsonl|md] [--output FILE] [--no-media]
                        list the threads; write one (messages, tool calls, approvals,
                        usage) as JSON lines or a Markdown transcript
  agents [--json]       the agent host's runs: ID  STATE  FOLDER  TITLE
  agents install NAME [--yes]
${helpLines(`install a catalog agent (${KNOWN_AGENTS.map((a) => a.name).join(', ')}) at its pinned version into the data folder, once you confirm`)}
  attach THREAD         follow a run of the agent host and answer its approvals here
                        (Ctrl-C detaches; the run goes on)
  stop THREAD           stop a run of the agent host
  worktrees ls [--json] | apply THREAD | rm THREAD [--force]
                        the git worktrees threads work in: list them with their
                        threads and changes, apply one's changes to your folder, remove one
  sandboxes ls [--json] | stop ID | rm ID
${helpLines(`the providers' sandboxes threads run in (${SANDBOX_PROVIDER_NAMES.map((p) => PROVIDER_LABELS[p]).join(', ')}): list them with their threads, age and state; stop or remove one (what it changed comes back to its worktree first)`)}
  host [--idle-seconds N] [--listen [HOST:]PORT] [--print-key | --rotate-key]
                        the agent host itself (run, serve and attach start it on demand);
                        with --listen it also serves the Agent Protocol (LangGraph's API)
  --version, -v         print deepdesk's version

Common options:
  --data-dir DIR        data folder holding deepdesk.db (default: $DEEPDESK_HOME or ~/.deepdesk)
  --folder DIR          project folder (default: the current directory; serve without
                        it opens the window on Open folder instead); on another machine:
                        ssh://[USER@]HOST[:PORT]/ABS/PATH (run, serve, tools, checkpoints).
                        Taken by run, serve, tools, acp, checkpoints, blame, mcp, trust,
                        skills, memories and host; other commands refuse it

Model options (run, serve, acp; --memories-store also tools and memories; other
commands refuse them):
${sessionFlagHelp('common')}

Sandbox options (run, serve, acp):
${sessionFlagHelp('sandbox')}

Mount options (run, serve, tools, acp):
${sessionFlagHelp('mount')}

run options:
  --thread ID           continue (or start) the thread with this id
  --approve ask|auto|deny  what to do when a tool call needs approval (default ask)
  --mode ask|edit|auto|plan  what needs approval: ask (default) asks for changes and
                        commands; edit runs file changes; auto also runs commands in the
                        sandbox (needs one); plan is read-only
  --json                print events as JSON lines
  --detach              start the run in the agent host, print its thread id and return
  --worktree [NAME]     run in a new git worktree of the folder (branch deepdesk/NAME; a
                        name is made up when none is given; --worktree=NAME works too)
  --carry-changes       with --worktree: carry the folder's uncommitted changes over
${sessionFlagHelp('command', 'run')}
  --print-request       print the request the run would send first (its system prompt's
                        parts, its tools, the prompt) with each part's tokens and the
                        total, without calling the model; the prompt is optional

checkpoints options:
  --thread ID           the thread whose checkpoints to list
  --force               restore even files changed after the agent's change

host options:
  --listen [HOST:]PORT  serve the Agent Protocol there too (host 127.0.0.1 unless given;
                        [::1]:PORT for IPv6; port 0: any free one); prints its URL. When
                        a host already runs, it listens while this command runs (Ctrl-C
                        stops it). Without it, Settings › Agent Protocol decides
  --allow-remote        with --listen: allow an address other computers can reach
  --cors-origin ORIGIN  with --listen: a browser origin allowed to call (repeatable)
  --folder DIR          the folder of runs whose request names none
  --print-key           print the Agent Protocol's key (the x-api-key clients send)
  --rotate-key          replace that key (the old one stops working) and print the new one

trust options:
  --revoke              forget the trust given in this folder

skills ls options:
${sessionFlagHelp('command', 'skills')}

acp options:
  --folder DIR          the folder session/list lists without a cwd (each session works in
                        the editor's cwd)
${sessionFlagHelp('command', 'acp')}

serve options:
  --port N              port to listen on (default: a free port)
${sessionFlagHelp('command', 'serve')}

usage options:
  --since DATE          only the calls (and sandbox time) from that day on (YYYY-MM-DD, UTC)
  --by thread|day|model how to group (default thread)
  --json                print the report as one JSON document

threads export options:
  --format jsonl|md     JSON lines (default; for evals) or a Markdown transcript
  --output FILE         write it to FILE (created readable by you only), not stdout
  --no-media            leave out the base64 of images and files (jsonl)

worktrees options:
  --json                ls: print the worktrees as JSON
  --force               rm: remove even when work would be lost (its branch too)

mcp add options:
  --project             into the folder's .mcp.json (trusted as you wrote it), not yours
  -e, --env KEY=VALUE   the server's environment (repeatable)
  --credential NAME     one of Deepdesk's own credentials (a provider's key, …) its
                        env or headers may expand as \${NAME} (repeatable)
  --no-sandbox          run the server outside the sandbox
  --transport http|sse  for --url (default http)
`;
  return help;
}

/** What the app's session code refused as a bad request (an error with code `bad_request`) is bad usage here. */
export function badRequestAsUsage<T>(work: () => T): T {
  try {
    return work();
  } catch (err) {
    if (err instanceof Error && (err as { code?: unknown }).code === 'bad_request') throw new UsageError(err.message);
    throw err;
  }
}
