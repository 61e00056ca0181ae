// The settings, loaded once, kept current by 'settings.changed' (also when another window or
// process saved them), shared by every panel.

import { createContext, useCallback, useContext, useMemo, type ReactNode } from 'react';
import type { Params, Settings } from '../../../src-main/app/contract';
import { useApi } from './use-api';
import { useEvent } from './transport-context';
import { useAskedValue } from './use-live-value';

interface SettingsApi {
  /** null until loaded (or when loading failed). */
  settings: Settings | null;
  /**
   * Saves the fields in `patch` (only those: the app merges them into the file as it is now);
   * resolves with the saved settings, rejects when they were not saved (nothing changed then).
   */
  update(patch: Params<'settings.update'>): Promise<Settings>;
  replace(settings: Settings): void;
}

const SettingsContext = createContext<SettingsApi | null>(null);

export function SettingsProvider({ children }: { children: ReactNode }): React.JSX.Element {
  const api = useApi();
  const [settings, setSettings] = useAskedValue('settings.get');
  useEvent('settings.changed', setSettings);

  const update = useCallback(
    async (patch: Params<'settings.update'>) => {
      const next = await api.call('settings.update', patch);
      setSettings(next);
      return next;
    },
    [api],
  );

  const value = useMemo(() => ({ settings, update, replace: setSettings }), [settings, update]);
  return <SettingsContext.Provider value={value}>{children}</SettingsContext.Provider>;
}

export function useSettings(): SettingsApi {
  const api = useContext(SettingsContext);
  if (!api) throw new Error('useSettings outside SettingsProvider');
  return api;
}
