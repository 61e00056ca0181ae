import { describe, expect, it, vi } from 'vitest';
import type { MenuItemConstructorOptions } from 'electron';
import { appMenuTemplate } from './app-menu';

function roles(items: MenuItemConstructorOptions[]): string[] {
  return items.flatMap((item) => [...(item.role ? [item.role] : []), ...(Array.isArray(item.submenu) ? roles(item.submenu) : [])]);
}
function labelled(items: MenuItemConstructorOptions[], label: string): MenuItemConstructorOptions | undefined {
  for (const item of items) {
    if (item.label === label) return item;
    const inner = Array.isArray(item.submenu) ? labelled(item.submenu, label) : undefined;
    if (inner) return inner;
  }
  return undefined;
}

describe('the application menu', () => {
  it('has no DevTools and no Reload in a packaged app, on every platform', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      const template = appMenuTemplate({ packaged: true, platform, openFolder: () => undefined });
      for (const role of ['reload', 'forceReload', 'toggleDevTools']) expect(roles(template), `${platform} ${role}`).not.toContain(role);
      expect(roles(template)).toEqual(expect.arrayContaining(['editMenu', 'zoomIn', 'windowMenu']));
    }
  });

  it('keeps them for development (an unpackaged app)', () => {
    expect(roles(appMenuTemplate({ packaged: false, platform: 'linux', openFolder: () => undefined }))).toEqual(expect.arrayContaining(['reload', 'toggleDevTools']));
  });

  it('File › Open Folder… opens the folder dialog in place', () => {
    const openFolder = vi.fn();
    const item = labelled(appMenuTemplate({ packaged: true, platform: 'linux', openFolder }), 'Open Folder…');
    (item?.click as () => void)();
    expect(openFolder).toHaveBeenCalledTimes(1);
  });
});
