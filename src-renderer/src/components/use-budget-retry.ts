// A budget's stop (SPEC §17) cannot be retried as it is: the same call would stop again at
// once. `Retry` comes back once the budget per thread or the prices changed since the stop
// was shown (Open settings, on the stop's line, is where they are set).

import { useRef } from 'react';
import { useSettings } from '../state/settings-context';

/** Whether the budget or the prices changed since the budget stop `stopId` was first shown here. */
export function useChangedSinceBudgetStop(stopId: string | null): boolean {
  const { settings } = useSettings();
  const now = JSON.stringify([settings?.threadBudgetUsd ?? null, settings?.prices ?? {}]);
  const seen = useRef<{ stopId: string; settings: string } | null>(null);
  if (stopId === null) {
    seen.current = null;
    return false;
  }
  if (seen.current?.stopId !== stopId) seen.current = { stopId, settings: now };
  return seen.current.settings !== now;
}
