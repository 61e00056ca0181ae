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
  return theme;
}
