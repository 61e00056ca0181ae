// Permission rules from Claude Code's settings files (SPEC §11): a folder's `allow` and `ask`
// rules are one trust entry each (its `deny` rules apply untrusted: they only restrict).

import { folderRuleItems } from '../claude-permissions';
import { userClaudeSettingsFile } from '../claude-settings';
import { FOLDER_CONFIG_PLACES } from '../places';
import type { ConfigKind } from './kind';

export const ruleKind: ConfigKind = {
  kind: 'rule',
  noun: 'permission rules',
  projectPaths: FOLDER_CONFIG_PLACES.rule,
  jsonKey: 'permissions',
  userPaths: ({ home }) => [userClaudeSettingsFile(home)],
  folderItems: (folder) => folderRuleItems(folder),
};
