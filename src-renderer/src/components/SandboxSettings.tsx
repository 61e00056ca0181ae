// Settings › Sandboxes (SPEC §18): the provider a thread in a sandbox runs in, what its
// sandboxes are made with (CPU and memory where the provider offers them), the idle timeout,
// the upload cap, the caps on what comes back (per file, per step) and each provider's price per hour — part of the draft, saved with `Save
// settings` — and each provider's keys, saved at once with `Save key` and never shown back
// (only whether one is saved), with `Test key` (one cheap authenticated call). The chosen
// service's price and keys show; the others' are behind a disclosure.

import { useId, useState } from 'react';
import { SANDBOX_PROVIDER_LABELS, SANDBOX_PROVIDER_NAMES, type SandboxProvider, type Settings } from '../../../src-main/app/contract';
import { offersSize, type SandboxesDraft } from '../lib/sandbox-settings';
import { useSettings } from '../state/settings-context';
import { errorMessage } from '../state/toasts';
import { useApi } from '../state/use-api';
import { useBusy } from '../state/use-busy';
import { Options, TextField } from './TextField';

interface SandboxSettingsProps {
  draft: SandboxesDraft;
  sandboxKeys: Settings['sandboxKeys'];
  onChange(draft: SandboxesDraft): void;
}

export function SandboxSettings({ draft, sandboxKeys, onChange }: SandboxSettingsProps): React.JSX.Element {
  const ids = useId();
  const set = (patch: Partial<SandboxesDraft>): void => onChange({ ...draft, ...patch });
  const chosen = draft.provider === '' ? null : draft.provider;
  // A function, not a component made in render (that would be drawn anew, losing the keyboard, at every keystroke).
  const serviceFields = (provider: SandboxProvider): React.JSX.Element => (
    <ServiceFieldsOf key={provider} provider={provider} ids={ids} price={draft.prices[provider]} onPrice={(value) => set({ prices: { ...draft.prices, [provider]: value } })} keys={sandboxKeys?.[provider] ?? {}} />
  );
  const cpu = offersSize(draft.provider, 'cpu');
  const memory = offersSize(draft.provider, 'memory');
  const field = (key: 'image' | 'cpu' | 'memory' | 'idle' | 'upload' | 'backFile' | 'backStep', label: string, placeholder: string, numeric = true) => (
    <TextField id={`${ids}-${key}`} label={label} className={numeric ? undefined : 'mono'} inputMode={numeric ? 'decimal' : undefined} value={draft[key]} placeholder={placeholder} spellCheck={false} autoComplete="off" onValue={(value) => set({ [key]: value })} />
  );
  return (
    <fieldset className="settings-section">
      <legend>Sandboxes</legend>
      <p className="muted small">
        A thread can run in a provider&apos;s sandbox instead of on this computer (New thread in a sandbox…). What the agent changes comes back as a worktree branch.
      </p>
      <div className="field">
        <label htmlFor={`${ids}-provider`}>Sandbox service</label>
        <select id={`${ids}-provider`} value={draft.provider} onChange={(e) => set({ provider: e.target.value as SandboxProvider | '' })}>
          <option value="">None chosen</option>
          <Options options={SANDBOX_PROVIDER_NAMES.map((p) => ({ value: p, label: SANDBOX_PROVIDER_LABELS[p] }))} />
        </select>
      </div>
      {field('image', 'Image or template', 'the provider’s default', false)}
      {cpu && field('cpu', 'CPUs', 'the provider’s default')}
      {memory && field('memory', 'Memory (GiB)', 'the provider’s default')}
      {!cpu && !memory ? (
        <p className="muted small">{SANDBOX_PROVIDER_LABELS[draft.provider as SandboxProvider]} sizes its sandboxes by template: no CPU or memory to choose here.</p>
      ) : !cpu ? (
        <p className="muted small">{SANDBOX_PROVIDER_LABELS[draft.provider as SandboxProvider]} takes no CPU count: it sizes its sandboxes by memory.</p>
      ) : null}
      {field('idle', 'Idle timeout (minutes)', 'the provider’s default')}
      {field('upload', 'Upload cap (MB)', 'the default cap')}
      {field('backFile', 'Bring-back cap per file (MB)', '50')}
      {field('backStep', 'Bring-back cap per step (MB)', '500')}
      {chosen !== null ? serviceFields(chosen) : null}
      <details className="sandbox-other-services">
        <summary>{chosen !== null ? 'Other services’ keys and prices' : 'Each service’s key and price'}</summary>
        {SANDBOX_PROVIDER_NAMES.filter((p) => p !== chosen).map(serviceFields)}
      </details>
    </fieldset>
  );
}

/** A service's price per hour (part of the draft) and its keys (saved at once), and `Test key`. */
function ServiceFieldsOf({ provider, ids, price, onPrice, keys }: { provider: SandboxProvider; ids: string; price: string; onPrice(value: string): void; keys: Record<string, boolean> }): React.JSX.Element {
  return (
    <div className="sandbox-service" role="group" aria-label={SANDBOX_PROVIDER_LABELS[provider]}>
      <TextField id={`${ids}-price-${provider}`} label={`Price per hour for ${SANDBOX_PROVIDER_LABELS[provider]} (USD)`} inputMode="decimal" value={price} placeholder="not priced" autoComplete="off" onValue={onPrice} />
      {Object.entries(keys).map(([variable, saved]) => (
        <SandboxKey key={variable} provider={provider} variable={variable} saved={saved} />
      ))}
      <TestKey provider={provider} />
    </div>
  );
}

/** `Test key`: one cheap authenticated call to the service, with the key stored or in the environment. */
function TestKey({ provider }: { provider: SandboxProvider }): React.JSX.Element {
  const api = useApi();
  const [busy, run] = useBusy();
  const [result, setResult] = useState<{ ok: boolean; message: string } | null>(null);
  const test = async (): Promise<void> => {
    setResult(null);
    setResult(await run(() => api.call('sandboxes.testKey', { provider }).catch((err: unknown) => ({ ok: false, message: errorMessage(err) }))));
  };
  return (
    <div className="field-inline sandbox-test-key">
      <button type="button" className="btn" aria-label={`Test ${SANDBOX_PROVIDER_LABELS[provider]} key`} onClick={() => void test()} disabled={busy}>
        {busy ? 'Testing…' : 'Test key'}
      </button>
      <span className={`small ${result === null ? 'muted' : result.ok ? 'ok-text' : 'error-text'}`} role="status">
        {result?.message ?? ''}
      </span>
    </div>
  );
}

/** One key variable of a provider: typed, saved at once, never shown back. */
function SandboxKey({ provider, variable, saved }: { provider: SandboxProvider; variable: string; saved: boolean }): React.JSX.Element {
  const api = useApi();
  const { replace } = useSettings();
  const id = useId();
  const [value, setValue] = useState('');
  const [busy, run] = useBusy();
  const [error, setError] = useState<string | null>(null);
  const store = async (text: string): Promise<void> => {
    setError(null);
    const saved = await run(() => api.call('settings.setSandboxKey', { variable, value: text }).catch((err: unknown) => void setError(errorMessage(err))));
    if (saved === undefined) return;
    replace(saved);
    setValue('');
  };
  return (
    <div className="field">
      <label htmlFor={id}>
        {SANDBOX_PROVIDER_LABELS[provider]} key <span className="mono">{variable}</span>
      </label>
      <div className="field-inline">
        <input
          id={id}
          type="password"
          autoComplete="off"
          value={value}
          placeholder={saved ? '•••••••• (stored)' : 'paste your key'}
          aria-describedby={`${id}-status`}
          onChange={(e) => setValue(e.target.value)}
        />
        <button type="button" className="btn" aria-label={`Save ${variable}`} onClick={() => void store(value)} disabled={busy || value.trim() === ''}>
          Save key
        </button>
        {saved ? (
          <button type="button" className="btn btn-quiet" aria-label={`Forget ${variable}`} onClick={() => void store('')} disabled={busy}>
            Forget key
          </button>
        ) : null}
      </div>
      <p id={`${id}-status`} className={`small ${error ? 'error-text' : saved ? 'ok-text' : 'muted'}`} role={error ? 'alert' : undefined}>
        {error ?? (saved ? `A key is stored for ${variable}.` : `No key stored for ${variable} (the environment's is used when set).`)}
      </p>
    </div>
  );
}
