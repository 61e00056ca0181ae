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
] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;

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
