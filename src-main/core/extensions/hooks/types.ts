// Hooks (SPEC §11): a person's commands run on the agent's events, in Claude Code's format.

export const HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'Stop',
  'SessionEnd',
  'PostToolUseFailure',
  'PermissionRequest',
  'Notification',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'PostCompact',
  // Before a `!` shell line of a skill or a command runs (its matcher: the skill's or command's name).
  'PreSkillShellCommand',
] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;

/** The events whose hooks decide whether something runs (allow, ask, deny): a tool call, a skill's or command's shell line. */
export const PERMISSION_EVENTS: ReadonlySet<HookEventName> = new Set(['PreToolUse', 'PreSkillShellCommand']);

/**
 * A shell line of a skill or a command (`` !`git status` ``), as the agent is asked to run it
 * with `execute`: which skill or command it is of, and who invoked that: the person (typing
 * `/name`) or the model (reading the skill to use it).
 */
export interface SkillShellLine {
  command: string;
  /** One of the two: the skill's name, or the command's (`/name` without the slash). */
  skillName?: string;
  commandName?: string;
  invokedBy: 'user' | 'model';
}

/** One command of a hooks file, as it will run. */
export interface HookEntry {
  /** Stable: `FILE#EVENT.GROUP.INDEX` (the place in its file), for turning it off in Settings. */
  id: string;
  event: HookEventName;
  /** The group's `matcher` (a regular expression on tool names); absent or empty matches every tool. */
  matcher?: string;
  command: string;
  /** The handler's `if`: a permission rule (Claude Code's syntax) limiting it to the calls it matches. */
  if?: string;
  /** A plugin's hook: its installed folder (`CLAUDE_PLUGIN_ROOT`). */
  pluginRoot?: string;
  timeoutMs: number;
  /** `user`: `<data-dir>/hooks.json`; `project`: the folder's `.deepdesk/hooks.json` (trusted). */
  source: 'user' | 'project';
  /** Absolute path of the file that declares it. */
  file: string;
  /** sha256 of the entry as written (its group's matcher and the command object): what trust is recorded against. */
  digest: string;
}

export type { HookRef } from '../../agent/types';
