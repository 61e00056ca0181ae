// Where a folder keeps each kind of its own configuration (SPEC §9, §11, §15), relative to the
// folder. Plain data, so that what protects these places (the sandbox's read-only list, the
// agent's asking writes) reads the same table the registry's kinds are found by.

import type { TrustEntryKind } from './trust-entry';

const CLAUDE_SETTINGS = ['.claude/settings.json', '.claude/settings.local.json'] as const;

export const FOLDER_CONFIG_PLACES: Readonly<Record<TrustEntryKind, readonly string[]>> = {
  mcp: ['.mcp.json'],
  skill: ['.deepdesk/skills', '.agents/skills', '.claude/skills'],
  hook: ['.deepdesk/hooks.json', ...CLAUDE_SETTINGS],
  command: ['.claude/commands', '.deepdesk/commands'],
  agent: ['.claude/agents', '.deepdesk/agents'],
  rule: CLAUDE_SETTINGS,
  plugin: CLAUDE_SETTINGS,
};

/** Every place of every kind, once. */
export const ALL_FOLDER_CONFIG_PLACES: readonly string[] = [...new Set(Object.values(FOLDER_CONFIG_PLACES).flat())];
