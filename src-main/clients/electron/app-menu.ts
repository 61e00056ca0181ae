// The application menu. A packaged app has no DevTools and no Reload (a reload drops the
// page's state, and DevTools is a console into the window that renders model output); an
// unpackaged one (`npm start` from a checkout) keeps them for development.

import type { MenuItemConstructorOptions } from 'electron';

export interface AppMenuOptions {
  packaged: boolean;
  platform: NodeJS.Platform;
  /** File › Open Folder…: the native dialog; the folder opens in place, in the same window. */
  openFolder(): void;
}

export function appMenuTemplate(options: AppMenuOptions): MenuItemConstructorOptions[] {
  const mac = options.platform === 'darwin';
  const developer: MenuItemConstructorOptions[] = options.packaged ? [] : [{ role: 'reload' }, { role: 'forceReload' }, { role: 'toggleDevTools' }, { type: 'separator' }];
  return [
    ...(mac ? [{ role: 'appMenu' } satisfies MenuItemConstructorOptions] : []),
    {
      label: 'File',
      submenu: [{ label: 'Open Folder…', accelerator: 'CmdOrCtrl+O', click: () => options.openFolder() }, { type: 'separator' }, mac ? { role: 'close' } : { role: 'quit' }],
    },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [...developer, { role: 'resetZoom' }, { role: 'zoomIn' }, { role: 'zoomOut' }, { type: 'separator' }, { role: 'togglefullscreen' }],
    },
    { role: 'windowMenu' },
  ];
}
