// Custom slash commands (SPEC §11): one trust entry per command file of the folder.

import { commandItems } from '../../extensions/definitions/commands';
import { definitionPlaces } from '../../extensions/definitions/project-places';
import { FOLDER_CONFIG_PLACES } from '../places';
import type { ConfigKind } from './kind';

export const commandKind: ConfigKind = {
  kind: 'command',
  noun: 'commands',
  projectPaths: FOLDER_CONFIG_PLACES.command,
  userPaths: (places) => definitionPlaces('commands', places).person.map((p) => p.dir),
  folderItems: (folder) => commandItems(folder),
};
