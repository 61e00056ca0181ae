// Hooks (SPEC §11): one trust entry per hook command of the folder's hooks files.

import { hookTrustKey, projectHooksFiles, readHooksFiles, userHooksFiles } from '../../extensions/hooks/config';
import { problemLine } from '../mcp-config-types';
import { hookFiles, projectHookDigest } from '../entry-files';
import { visibleLine } from '../../text/visible-line';
import type { HookEntry } from '../../extensions/hooks/types';
import type { TrustEntry } from '../trust-entry';
import { FOLDER_CONFIG_PLACES } from '../places';
import type { ConfigKind } from './kind';

/** `Hook EVENT [MATCHER] if RULE: COMMAND`, as the trust question and a plugin's install list show it. */
export function hookLabel(hook: HookEntry): string {
  return visibleLine(`Hook ${hook.event}${hook.matcher !== undefined ? ` [${hook.matcher}]` : ''}${hook.if !== undefined ? ` if ${hook.if}` : ''}: ${hook.command}`);
}

export const hookKind: ConfigKind = {
  kind: 'hook',
  noun: 'hooks',
  jsonKey: 'hooks',
  projectPaths: FOLDER_CONFIG_PLACES.hook,
  userPaths: ({ dataDir, home }) => userHooksFiles(dataDir, home),
  // `Hook EVENT [MATCHER]: COMMAND`
  folderEntries(folder) {
    const read = readHooksFiles(projectHooksFiles(folder), 'project');
    const entries: TrustEntry[] = read.hooks.map((hook) => ({
      kind: 'hook',
      key: hookTrustKey(hook),
      file: hook.file,
      digest: projectHookDigest(folder, hook),
      label: hookLabel(hook),
    }));
    return { entries, problems: read.problems.map(problemLine) };
  },
  entryFiles: (folder) => readHooksFiles(projectHooksFiles(folder), 'project').hooks.flatMap((hook) => hookFiles(folder, hook)),
};
