// Hooks (SPEC §11): one trust entry per hook command of the folder's hooks files.

import { personHookFolderFiles, projectHookItems, projectHooksFiles, readHooksFiles, userHooksFiles } from '../../extensions/hooks/config';
import { hookFiles } from '../entry-files';
import { FOLDER_CONFIG_PLACES } from '../places';
import type { ConfigKind } from './kind';

export const hookKind: ConfigKind = {
  kind: 'hook',
  noun: 'hooks',
  jsonKey: 'hooks',
  projectPaths: FOLDER_CONFIG_PLACES.hook,
  userPaths: ({ dataDir, home }) => userHooksFiles(dataDir, home),
  // `Hook EVENT [MATCHER]: COMMAND`
  folderItems: (folder) => projectHookItems(folder),
  entryFiles: (folder) => readHooksFiles(projectHooksFiles(folder), 'project').hooks.flatMap((hook) => hookFiles(folder, hook)),
  personEntryFiles: (folder, { dataDir, home }) => personHookFolderFiles(folder, dataDir, home),
};
