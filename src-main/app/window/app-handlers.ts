// What the window asks of the app itself: where it runs and what it has to tell.

import { basename } from 'node:path';
import type { HandlersFor, WindowServices } from './handlers';

export function appHandlers(w: WindowServices): HandlersFor<'app.'> {
  const provider = w.session.place.provider;
  return {
    'app.info': async () => ({
      folder: w.folder,
      folderName: basename(w.folder),
      version: w.version,
      transport: w.transport,
      canPickFolder: false,
      ...(provider ? { sandbox: { provider: provider.name, label: provider.label, sandboxId: provider.sandboxId } } : {}),
    }),
    'app.notices': async () => w.notices(),
  };
}
