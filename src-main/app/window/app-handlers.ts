// What the window asks of the app itself: where it runs and what it has to tell.

import { basename } from 'node:path';
import { sandboxPlaceOf } from './approval-extras';
import type { HandlersFor, WindowServices } from './handlers';

export function appHandlers(w: WindowServices): HandlersFor<'app.'> {
  const sandbox = sandboxPlaceOf(w.session.place);
  return {
    'app.info': async () => ({
      folder: w.folder,
      folderName: basename(w.folder),
      version: w.version,
      transport: w.transport,
      canPickFolder: false,
      ...(sandbox ? { sandbox } : {}),
    }),
    'app.notices': async () => w.notices(),
  };
}
