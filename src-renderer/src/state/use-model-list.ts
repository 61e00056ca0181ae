// Settings › Model's list of the provider's models: listed by itself only when that can work (a
// key is stored, or none is needed), quietly; a listing error is shown only after the person
// pressed `Refresh models` (which lists with the typed key, and opens the list once it is there),
// and with nothing to list with yet the line says what to do.

import { useEffect, useState } from 'react';
import { listingHint, type Provider } from '../lib/providers';
import { TransportError } from '../transport/errors';
import { errorMessage } from './toasts';
import { useApi } from './use-api';

/** The provider's models: listed, being asked for, what to do first, or why they could not be listed (only once asked). */
export type ModelList = { models: string[] } | { hint: string } | { error: string } | 'loading' | null;

/** `key`: the key typed in (read when the person asks). `openKey` moves on when a refresh the person asked for found models to show. */
export function useModelList(provider: Provider, baseUrl: string, hasKey: boolean, key: string): { modelList: ModelList; refresh(): void; openKey: number } {
  const api = useApi();
  const [modelList, setModelList] = useState<ModelList>(null);
  /** The person's `Refresh models` (each lists again, says why it failed and opens the list), for this provider and URL. */
  const [asked, setAsked] = useState<{ n: number; target: string } | null>(null);
  const target = `${provider} ${baseUrl}`;
  const askedHere = asked !== null && asked.target === target ? asked.n : 0;

  // By itself, quietly, when it can work; on `Refresh models`, with the typed key and out loud.
  useEffect(() => {
    const asked = askedHere;
    const typedKey = asked > 0 ? key.trim() : '';
    const hint = listingHint(provider, baseUrl, hasKey || typedKey !== '');
    if (hint !== null && (asked === 0 || provider === 'openai-compatible')) {
      setModelList({ hint });
      return undefined;
    }
    let cancelled = false;
    const timer = setTimeout(
      () => {
        setModelList('loading');
        api
          .call('settings.listModels', { provider, ...(baseUrl ? { baseUrl } : {}), ...(typedKey ? { apiKey: typedKey } : {}) })
          .then((r) => !cancelled && setModelList({ models: r.models }))
          .catch((err: unknown) => {
            if (cancelled) return;
            // Nothing to list with yet (no key): what to do. A failure is told only when asked.
            if (err instanceof TransportError && err.code === 'needs_settings') setModelList({ hint: errorMessage(err) });
            else setModelList(asked > 0 ? { error: errorMessage(err) } : null);
          });
      },
      asked > 0 ? 0 : 400,
    );
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
    // The typed key is read when the person asks, not on every keystroke.
  }, [api, provider, baseUrl, hasKey, askedHere]);

  // A refresh the person asked for opens the list once it is there.
  const [openKey, setOpenKey] = useState(0);
  const [openPending, setOpenPending] = useState(false);
  useEffect(() => {
    if (!openPending || modelList === 'loading' || modelList === null) return;
    setOpenPending(false);
    if ('models' in modelList && modelList.models.length > 0) setOpenKey((k) => k + 1);
  }, [openPending, modelList]);
  const refresh = (): void => {
    setModelList('loading');
    setAsked((a) => ({ n: (a?.n ?? 0) + 1, target }));
    setOpenPending(true);
  };
  return { modelList, refresh, openKey };
}
