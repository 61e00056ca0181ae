// The settings, loaded once, kept current by 'settings.changed', shared by every panel.

import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { Params, Settings } from '../../../src-main/app/contract';
import { useApi } from './use-api';
import { useConnection, useEvent } from './transport-context';

interface SettingsApi {
  /** null until loaded (or when loading failed). */
  settings: Settings | null;
  /** Saves a patch; resolves with the new settings, or undefined when it failed (a toast says why). */
  update(patch: Params<'settings.update'>): Promise<Settings | undefined>;
  replace(settings: Settings): void;
}

const SettingsContext = createContext<SettingsApi | null>(null);

export function SettingsProvider({ children }: { children: ReactNode }): React.JSX.Element {
  const api = useApi();
  const { reconnects } = useConnection();
  const [settings, setSettings] = useState<Settings | null>(null);

  useEffect(() => {
    let cancelled = false;
    void api.safe('settings.get', {}).then((s) => {
      if (!cancelled && s) setSettings(s);
    });
    return () => {
      cancelled = true;
    };
  }, [api, reconnects]);

  useEvent('settings.changed', setSettings);

  const update = useCallback(
    async (patch: Params<'settings.update'>) => {
      const next = await api.safe('settings.update', patch);
      if (next) setSettings(next);
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
