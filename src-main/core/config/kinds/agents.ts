// Custom subagents (SPEC §11): one trust entry per subagent file of the folder.

import { agentItems } from '../../extensions/definitions/agents';
import { definitionPlaces } from '../../extensions/definitions/project-places';
import { FOLDER_CONFIG_PLACES } from '../places';
import type { ConfigKind } from './kind';

export const agentKind: ConfigKind = {
  kind: 'agent',
  noun: 'subagents',
  projectPaths: FOLDER_CONFIG_PLACES.agent,
  userPaths: (places) => definitionPlaces('agents', places).person.map((p) => p.dir),
  folderItems: (folder) => agentItems(folder),
};
