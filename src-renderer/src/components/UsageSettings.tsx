// Settings › Prices (a price per `provider:model` over the table Deepdesk knows, the budget
// per thread, and how many runs go at once, SPEC §16) and Settings › Telemetry (where traces
// go), SPEC §17. Both are part of the Settings draft: nothing is saved before `Save settings`.

import { useEffect, useId, useRef, useState } from 'react';
import { emptyPriceRow, MAX_RUNS_AT_ONCE, type PriceRow } from '../lib/usage-settings';
import { Icon, IconButton } from './Icon';
import { TextField } from './TextField';
import '../styles/usage.css';

const AMOUNTS = [
  ['input', 'Input'],
  ['output', 'Output'],
  ['cacheRead', 'Cache read'],
  ['cacheWrite', 'Cache write'],
] as const;

interface PricesSettingsProps {
  /** The model runs use now (`provider:model`): `Add price` starts with it. */
  modelInUse: string;
  rows: readonly PriceRow[];
  onRowsChange(rows: PriceRow[]): void;
  budgetText: string;
  onBudgetChange(text: string): void;
  /** The budget saved now (shown while the field is being changed). */
  savedBudget: number | undefined;
  /** `Runs at once` as typed (empty: the default), and what is saved now. */
  runsText: string;
  onRunsChange(text: string): void;
  savedRuns: number | undefined;
}

export function PricesSettings({ modelInUse, rows, onRowsChange, budgetText, onBudgetChange, savedBudget, runsText, onRunsChange, savedRuns }: PricesSettingsProps): React.JSX.Element {
  const ids = useId();
  const list = useRef<HTMLUListElement>(null);
  const addButton = useRef<HTMLButtonElement>(null);
  /** A row just added (its first empty field) or moved into place (its model field) takes the keyboard once it is drawn. */
  const [focusTo, setFocusTo] = useState<{ key: string; empty: boolean } | null>(null);
  useEffect(() => {
    if (focusTo === null) return;
    const inputs = [...(list.current?.querySelectorAll<HTMLInputElement>(`[data-price-key="${CSS.escape(focusTo.key)}"] input`) ?? [])];
    const target = (focusTo.empty ? inputs.find((input) => input.value === '') : undefined) ?? inputs[0];
    target?.focus();
    setFocusTo(null);
  }, [focusTo]);

  const change = (key: string, patch: Partial<PriceRow>): void => onRowsChange(rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const remove = (index: number): void => {
    const next = rows.filter((_, i) => i !== index);
    onRowsChange(next);
    // The keyboard goes to the row that takes its place, else to `Add price`.
    const after = next[index] ?? next[index - 1];
    if (after) setFocusTo({ key: after.key, empty: false });
    else addButton.current?.focus();
  };
  const add = (): void => {
    const row = emptyPriceRow(modelInUse, rows);
    onRowsChange([...rows, row]);
    setFocusTo({ key: row.key, empty: true });
  };

  return (
    <fieldset className="settings-section">
      <legend>Prices</legend>
      <p className="muted small">
        US dollars per million tokens, for a model Deepdesk has no price for or to use yours instead. A call of a model with no known price is counted in tokens only.
      </p>
      {rows.length > 0 ? (
        <ul className="price-list" ref={list} aria-label="Prices per model">
          {rows.map((row, i) => {
            const name = row.model.trim() || 'new model';
            return (
              <li key={row.key} data-price-key={row.key}>
                <fieldset className="price-row">
                  <legend className="visually-hidden">Price of {name}</legend>
                  <TextField id={`${ids}-${row.key}-model`} fieldClass="price-model" label="Model (provider:model)" className="mono" value={row.model} placeholder="openai:gpt-4o" spellCheck={false} autoComplete="off" onValue={(model) => change(row.key, { model })} />
                  {AMOUNTS.map(([field, label]) => (
                    <TextField key={field} id={`${ids}-${row.key}-${field}`} fieldClass="price-amount" label={label} inputMode="decimal" value={row[field]} placeholder={field === 'input' || field === 'output' ? '0.00' : 'optional'} autoComplete="off" onValue={(amount) => change(row.key, { [field]: amount })} />
                  ))}
                  <IconButton icon="trash" className="price-remove" aria-label={`Remove price of ${name}`} title="Remove" onClick={() => remove(i)} />
                </fieldset>
              </li>
            );
          })}
        </ul>
      ) : (
        <p className="muted small">No prices of your own yet.</p>
      )}
      <button type="button" className="btn btn-small" ref={addButton} onClick={add}>
        <Icon name="plus" size={14} />
        Add price
      </button>
      <TextField id={`${ids}-budget`} fieldClass="price-budget" label="Budget per thread (USD)" inputMode="decimal" value={budgetText} placeholder="no budget" autoComplete="off" onValue={onBudgetChange} linkHelp
        help={
          <>
            A run stops before the model call that would take its thread&apos;s cost past this, and says so. A model with no known price cannot be held to a budget: give it a price
            above. Empty: no budget.
            {savedBudget !== undefined && budgetText.trim() === '' ? ` The budget of $${savedBudget} goes when you save.` : ''}
          </>
        }
      />
      <TextField id={`${ids}-runs`} fieldClass="price-budget" label="Runs at once" inputMode="numeric" value={runsText} placeholder="the default" autoComplete="off" onValue={onRunsChange} linkHelp
        help={
          <>
            How many threads may work at the same time (1 to {MAX_RUNS_AT_ONCE}); a run beyond it waits, shown as Queued, until one ends. Empty: the default for this machine.
            {savedRuns !== undefined && runsText.trim() === '' ? ` The limit of ${savedRuns} goes when you save.` : ''}
          </>
        }
      />
    </fieldset>
  );
}

interface TelemetrySettingsProps {
  endpoint: string;
  captureContent: boolean;
  onChange(patch: { endpoint?: string; captureContent?: boolean }): void;
}

export function TelemetrySettings({ endpoint, captureContent, onChange }: TelemetrySettingsProps): React.JSX.Element {
  const ids = useId();
  return (
    <fieldset className="settings-section">
      <legend>Telemetry</legend>
      <p className="muted small" id={`${ids}-about`}>
        Nothing leaves this machine unless an endpoint is set here (or the OTEL_* or LANGSMITH_* variables are set where Deepdesk starts).
      </p>
      <TextField id={`${ids}-endpoint`} label="OTLP endpoint" value={endpoint} placeholder="http://localhost:4318" spellCheck={false} autoComplete="off" aria-describedby={`${ids}-about`} onValue={(value) => onChange({ endpoint: value })} />
      <label className="usage-checkbox">
        <input type="checkbox" checked={captureContent} onChange={(e) => onChange({ captureContent: e.target.checked })} />
        Send message content with traces
      </label>
      <p className="muted small">Traces follow the OpenTelemetry GenAI conventions: a span per turn, model call and tool call. Messages and tool content go only when this is on.</p>
    </fieldset>
  );
}
