// Applies settings.theme to the page; 'system' follows prefers-color-scheme live.

import { useEffect, useState } from 'react';

export type ThemeSetting = 'dark' | 'light' | 'system';

function prefersDark(): boolean {
  return typeof window !== 'undefined' && typeof window.matchMedia === 'function' && window.matchMedia('(prefers-color-scheme: dark)').matches;
}

export function resolveTheme(setting: ThemeSetting | undefined, systemDark: boolean): 'dark' | 'light' {
  if (setting === 'dark' || setting === 'light') return setting;
  return systemDark ? 'dark' : 'light';
}

const LAST_SETTING = 'deepdesk.theme';

/** The theme setting the window last applied (for screens shown before the settings load, like Open folder). */
export function lastThemeSetting(): ThemeSetting | undefined {
  try {
    const stored = window.localStorage.getItem(LAST_SETTING);
    return stored === 'dark' || stored === 'light' || stored === 'system' ? stored : undefined;
  } catch {
    return undefined;
  }
}

/** Sets data-theme on <html> and returns the theme in force. */
export function useTheme(setting: ThemeSetting | undefined): 'dark' | 'light' {
  const [systemDark, setSystemDark] = useState(prefersDark);
  useEffect(() => {
    if (typeof window.matchMedia !== 'function') return undefined;
    const query = window.matchMedia('(prefers-color-scheme: dark)');
    const onChange = (): void => setSystemDark(query.matches);
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);
  const theme = resolveTheme(setting, systemDark);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    document.documentElement.style.colorScheme = theme;
  }, [theme]);
  useEffect(() => {
    if (setting === undefined) return;
    try {
      window.localStorage.setItem(LAST_SETTING, setting);
    } catch {
      // Storage disabled: the next Open folder screen follows the system.
    }
  }, [setting]);
  return theme;
}
