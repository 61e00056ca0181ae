// A run paused at a cap (SPEC §26): the line that names it, and *Raise and resume* — the cap set
// higher where it is set (`deepdesk budget set`'s scope and key), after which the run goes on
// where it stopped. A cap the window cannot set (a price that is unknown) says where to go.

import { useId, useState } from 'react';
import { budgetsWith } from '../../../src-main/app/contract';
import type { PausedNotice } from '../lib/thread-reducer';
import { useSettings } from '../state/settings-context';
import { Icon } from './Icon';

export function BudgetPausedNotice({ paused, onOpenSettings }: { paused: PausedNotice; onOpenSettings: () => void }): React.JSX.Element {
  const { settings, update } = useSettings();
  const tokens = paused.key === 'maxTokens';
  const [value, setValue] = useState(() => (paused.cap !== undefined ? String(tokens ? paused.cap * 2 : Math.round(paused.cap * 200) / 100) : ''));
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const inputId = useId();
  const raisable = paused.scope !== undefined && paused.key !== undefined;
  const raise = async (): Promise<void> => {
    setError(null);
    const next = Number(value);
    if (!(next > (paused.cap ?? 0))) {
      setError(`Give a limit above the one reached${paused.cap !== undefined ? ` (${tokens ? paused.cap.toLocaleString('en-US') : `$${paused.cap.toFixed(2)}`})` : ''}.`);
      return;
    }
    setSaving(true);
    try {
      await update({ budgets: budgetsWith(settings?.budgets, paused.scope!, paused.key!, next) });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setSaving(false);
    }
  };
  return (
    <div className="budget-paused" role="status" aria-label="Paused at a budget">
      <Icon name="circle" size={14} />
      <span className="budget-paused-line">{paused.line}</span>
      {raisable ? (
        <span className="budget-paused-raise">
          <label htmlFor={inputId}>{tokens ? 'New limit (tokens)' : 'New limit (USD)'}</label>
          <input id={inputId} type="number" min={0} step={tokens ? 1000 : 0.5} value={value} onChange={(e) => setValue(e.target.value)} className="input input-small" />
          <button type="button" className="btn btn-primary btn-small" disabled={saving} onClick={() => void raise()}>
            Raise and resume
          </button>
        </span>
      ) : (
        <button type="button" className="btn btn-small" onClick={onOpenSettings}>
          Open settings
        </button>
      )}
      {error !== null ? (
        <span className="error-text small" role="alert">
          {error}
        </span>
      ) : null}
    </div>
  );
}
