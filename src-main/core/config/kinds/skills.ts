// Skills (SPEC §11): one trust entry per valid skill of the folder's skills folders.

import { PROJECT_SKILL_DIRS, userSkillDirs } from '../../extensions/skills/discover';
import { projectSkillTrustEntries } from '../../extensions/skills/trust-entries';
import type { ConfigKind } from './kind';

export const skillKind: ConfigKind = {
  kind: 'skill',
  noun: 'skills',
  projectPaths: PROJECT_SKILL_DIRS,
  userPaths: ({ dataDir, home }) => userSkillDirs(dataDir, home),
  folderEntries: (folder) => projectSkillTrustEntries(folder),
};
