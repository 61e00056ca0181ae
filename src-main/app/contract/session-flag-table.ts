// THE table of session flags: the command-line flags that shape one session (the model, its
// sizes, mounts, the memories store, MCP configs, trust, the sandbox). The CLI's parser options
// and help, the request a command sends the agent host (and the host's check of it), the flags
// the composition and the window take over Settings (and the window marks), the Agent Protocol's
// `configurable` and the docs test all derive from these rows: a new flag is one row here and
// the place where it takes effect. Pure data, here so the window's contract can read it (as
// the sandbox providers' table); what reads and checks the values is app/base/session-flags.ts.

import { SANDBOX_PROVIDER_NAMES, SANDBOX_PROVIDER_TABLE } from '../../core/process/sandbox-provider-table';

/** What a flag's value is: one text, a whole number above 0, a repeatable text, absolute files, a switch, or part of `sandbox`. */
export type SessionFlagKind = 'text' | 'count' | 'texts' | 'files' | 'switch' | 'sandbox-provider' | 'sandbox-id';

/** The commands that take a flag: each one named (a command that would not apply it does not take it). */
export type SessionFlagCommands = readonly string[];

/** Where `--help` lists a flag: with every command's, in a section of its own, or under each command that takes it. */
export type HelpSection = 'common' | 'sandbox' | 'mount' | 'command';

interface SessionFlagRow {
  /** The flag without its dashes. */
  readonly flag: string;
  /** Where the value lands in the session request (`run`'s runs.start, `acp`'s open, serve's window). */
  readonly key: string;
  readonly kind: SessionFlagKind;
  readonly commands: SessionFlagCommands;
  /** The value's name in `--help` (none for a switch). */
  readonly value?: string;
  readonly help: string;
  /** Help worded for one command where the flag means more there. */
  readonly helpFor?: Readonly<Record<string, string>>;
  readonly section: HelpSection;
  /** Given, it wins over Settings' value for this session only (absent, Settings' stands). */
  readonly overSettings?: boolean;
  /** Read from an Agent Protocol run's `config.configurable` too. */
  readonly configurable?: boolean;
}

/**
 * The commands that call a model: they take the model's flags. Any other (`host` included: its
 * runs take Settings' model, or the one a protocol request names) refuses them rather than
 * accepting and ignoring them.
 */
const MODEL_COMMANDS = ['run', 'serve', 'acp'] as const;

export const SESSION_FLAGS = [
  {
    flag: 'model',
    key: 'model',
    kind: 'text',
    commands: MODEL_COMMANDS,
    value: 'PROVIDER:MODEL',
    help: 'anthropic, openai, google (or google_genai), openai-compatible\nor ollama',
    section: 'common',
    overSettings: true,
    configurable: true,
  },
  { flag: 'base-url', key: 'baseUrl', kind: 'text', commands: MODEL_COMMANDS, value: 'URL', help: "the provider's base URL (OpenAI-compatible servers)", section: 'common', overSettings: true },
  {
    flag: 'api-key',
    key: 'apiKey',
    kind: 'text',
    commands: MODEL_COMMANDS,
    value: 'KEY',
    help: 'API key (else ANTHROPIC_API_KEY / OPENAI_API_KEY /\nGOOGLE_GENERATIVE_AI_API_KEY or GEMINI_API_KEY)',
    section: 'common',
    overSettings: true,
  },
  {
    flag: 'memories-store',
    key: 'memoriesStore',
    kind: 'text',
    commands: [...MODEL_COMMANDS, 'tools', 'memories'],
    value: 'sqlite|postgres://USER@HOST[:PORT]/DB',
    help: "where /memories/ lives (default: Settings', else sqlite in the\ndata folder); the password comes from PGPASSWORD or ~/.pgpass",
    section: 'common',
    overSettings: true,
  },
  {
    flag: 'context-window',
    key: 'contextWindow',
    kind: 'count',
    commands: ['run', 'serve', 'acp', 'skills'],
    value: 'N',
    help: "override the model's context window (tokens)",
    helpFor: { skills: "say what the prompt's skill list leaves out for this window (tokens)" },
    section: 'command',
    overSettings: true,
  },
  {
    flag: 'evict-chars',
    key: 'evictChars',
    kind: 'count',
    commands: ['run', 'acp'],
    value: 'N',
    help: 'override the large-result eviction threshold (characters)',
    section: 'command',
    overSettings: true,
  },
  {
    flag: 'mount',
    key: 'mounts',
    kind: 'texts',
    commands: ['run', 'serve', 'tools', 'acp'],
    value: '/PREFIX/=SPEC',
    help:
      "adds a folder to the agent's paths (repeatable; over Settings'\nmounts, a flag winning at its prefix; this session only). SPEC:\nFOLDER, ro:FOLDER (read-only) or git+URL[#BRANCH] (file://,\nssh://, http(s)://, git:// or user@host:path; each step's writes\nare one commit, pushed)",
    section: 'mount',
  },
  {
    flag: 'mcp-config',
    key: 'mcpConfig',
    kind: 'files',
    commands: ['run', 'serve', 'acp', 'mcp'],
    value: 'FILE',
    help: 'MCP servers from FILE too (repeatable)',
    helpFor: { acp: "MCP servers from FILE too, besides the editor's (repeatable)" },
    section: 'command',
  },
  {
    flag: 'trust',
    key: 'trust',
    kind: 'switch',
    commands: ['run', 'acp', 'mcp'],
    help: "load this folder's untrusted configuration for this run only",
    helpFor: { acp: "load one folder's untrusted configuration (--folder's, else the\nfirst session's), as it is now, for this process only" },
    section: 'command',
  },
  {
    flag: 'sandbox',
    key: 'sandbox',
    kind: 'sandbox-provider',
    commands: ['run', 'serve', 'acp', 'sandboxes'],
    value: SANDBOX_PROVIDER_NAMES.join('|'),
    help: `the thread works in the provider's sandbox: the folder goes up as git sees it, changes come back as a worktree (branch deepdesk/NAME); keys from ${SANDBOX_PROVIDER_NAMES.map((p) => SANDBOX_PROVIDER_TABLE[p].keys.join('/')).join(', ')} or Settings › Sandboxes; serve opens the window on the worktree of --folder (needed there), acp gives each new session the worktree of its folder`,
    section: 'sandbox',
  },
  {
    flag: 'goal',
    key: 'goal',
    kind: 'text',
    commands: ['run'],
    value: 'TEXT',
    help: 'pursue a goal (SPEC §21): the host runs the verify steps itself when the agent ends a turn and the run ends achieved, unmet, stalled, blocked, paused or budget-limited (exit 0 only when achieved)',
    section: 'command',
    configurable: true,
  },
  {
    flag: 'verify',
    key: 'verify',
    kind: 'texts',
    commands: ['run'],
    value: 'CMD',
    help: "with --goal: a verify step, taken as given (success is exit code 0; repeatable); none given, the agent drafts them from the folder and the draft is shown first",
    section: 'command',
    configurable: true,
  },
  {
    flag: 'agent',
    key: 'externalAgent',
    kind: 'text',
    commands: ['run'],
    value: 'NAME',
    help: "the thread's agent is another one over ACP (SPEC §22): one of the catalog's, installed in Settings › Agents, or a command added there; its turn, tool calls, plan and approvals are the thread's; with --goal the host checks its claim of done as for Deepdesk's agent; with --candidates repeatable, given to the candidates in turn",
    section: 'command',
  },
  {
    flag: 'candidates',
    key: 'candidates',
    kind: 'count',
    commands: ['run'],
    value: 'N',
    help: "with --goal: N threads pursue the goal at once, each on its own git worktree (--agent and --model given per candidate in turn, the agents first; --prompt too), sharing one --max-cost; the host ranks them by evidence and prints the ranking; the folder is untouched until one is applied (deepdesk worktrees apply THREAD)",
    section: 'command',
  },
  {
    flag: 'prompt',
    key: 'prompts',
    kind: 'texts',
    commands: ['run'],
    value: 'P',
    help: "with --candidates: a candidate's own instruction, added to its first message after the goal (\"Instruction for this attempt: P\"); repeatable, given to the candidates in turn",
    section: 'command',
  },
  {
    flag: 'reviewer',
    key: 'reviewerChoice',
    kind: 'text',
    commands: ['run', 'serve', 'acp', 'host'],
    value: 'MODEL|thread|off',
    help: "answer what would ask the person with a reviewer model first (SPEC §23; PROVIDER:MODEL, or thread: the thread's own model), over Settings' Review with a model; off: the person answers everything; a thread whose reviewer's breaker tripped is reviewed again",
    helpFor: { host: "the reviewer (SPEC §23; PROVIDER:MODEL, thread or off) of the host's runs, windows and editors whose own flags name none, over Settings' Review with a model" },
    section: 'command',
    overSettings: true,
  },
  { flag: 'sandbox-id', key: 'sandbox', kind: 'sandbox-id', commands: ['run', 'serve', 'acp'], value: 'ID', help: 'reattach that sandbox (and its worktree); acp: its first session', section: 'sandbox' },
] as const satisfies readonly SessionFlagRow[];

export type SessionFlagRowOf = (typeof SESSION_FLAGS)[number];
