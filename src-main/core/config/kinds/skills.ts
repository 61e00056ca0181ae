// Skills (SPEC §11): one trust entry per valid skill of the folder's skills folders.

import { projectSkillItems, userSkillDirs } from '../../extensions/skills/discover';
import { FOLDER_CONFIG_PLACES } from '../places';
import type { ConfigKind } from './kind';

export const skillKind: ConfigKind = {
  kind: 'skill',
  noun: 'skills',
  projectPaths: FOLDER_CONFIG_PLACES.skill,
  userPaths: ({ dataDir, home }) => userSkillDirs(dataDir, home),
  folderItems: (folder) => projectSkillItems(folder),
};
