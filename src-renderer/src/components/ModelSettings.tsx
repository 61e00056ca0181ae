// Provider and model, base URL, API key, connection test and detected local servers.
// The key typed here is part of the dialog's draft: `Save settings` stores it (so does
// `Save key`, at once). The provider's models are listed by themselves only when that can
// work (a key is stored, or none is needed), quietly; a listing error is shown only after the
// person pressed `Refresh models`, and with nothing to list with yet the line says what to do.
// For a local or compatible server's model, `Media input` says which kinds of file it takes
// (SPEC §12: the provider's default, or what the person set for that model).

import { useEffect, useState } from 'react';
import { MEDIA_OVERRIDE_PROVIDERS, mediaInputFor, mediaInputOverride, mediaOverrideKey, takesKind, type MediaKind, type OverriddenFields, type Result } from '../../../src-main/app/contract';
import { listingHint, needsApiKey, parseModel, PROVIDER_LABELS, PROVIDERS, serverLabel, SHORT_PROVIDER_LABELS, withProvider, type Provider } from '../lib/providers';
import { TransportError } from '../transport/errors';
import { capitalized } from '../lib/format';
import { errorMessage } from '../state/toasts';
import { useApi } from '../state/use-api';
import { FlagNote } from './FlagNote';
import { Spinner } from './Icon';
import { ModelPicker } from './ModelPicker';
import type { SettingsDraft } from '../lib/settings-draft';

interface ModelSettingsProps {
  draft: SettingsDraft;
  apiKeys: Record<string, boolean>;
  /** Fields a command-line flag sets for this session: shown, not editable here. */
  overridden: OverriddenFields;
  onChange(patch: Partial<SettingsDraft>): void;
}

type Servers = Result<'settings.detectLocalServers'>;
/** The provider's models: listed, being asked for, what to do first, or why they could not be listed (only once asked). */
type ModelList = { models: string[] } | { hint: string } | { error: string } | 'loading' | null;

const MODEL_PLACEHOLDERS: Record<Provider, string> = {
  anthropic: 'claude-sonnet-4-5',
  openai: 'gpt-4.1',
  google: 'gemini-2.5-flash',
  'openai-compatible': 'the model the server runs',
  ollama: 'qwen3:8b',
};

export function ModelSettings({ draft, apiKeys, overridden, onChange }: ModelSettingsProps): React.JSX.Element {
  const api = useApi();
  const parsed = parseModel(draft.model);
  const provider = parsed.provider ?? draft.keyProvider;
  const key = draft.apiKeyText;
  const [savingKey, setSavingKey] = useState(false);
  const [test, setTest] = useState<{ ok: boolean; message: string; detail?: string } | 'running' | null>(null);
  const [servers, setServers] = useState<Servers | 'running' | null>(null);
  const [modelList, setModelList] = useState<ModelList>(null);
  /** The person's `Refresh models` (each lists again, says why it failed and opens the list), for this provider and URL. */
  const [asked, setAsked] = useState<{ n: number; target: string } | null>(null);
  const hasKey = apiKeys[provider] === true || overridden.apiKey === true;
  const baseUrl = draft.baseUrl.trim();
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

  const setModelName = (name: string): void => {
    // A pasted `provider:model` picks the provider too.
    const pasted = parseModel(name.trim());
    if (pasted.provider) {
      onChange({ keyProvider: pasted.provider, model: `${pasted.provider}:${pasted.model}` });
    } else {
      onChange({ model: name === '' ? '' : `${provider}:${name}` });
    }
  };

  const chooseProvider = (next: Provider): void => {
    onChange({ keyProvider: next, model: withProvider(draft.model, next) });
  };

  const saveKey = async (): Promise<void> => {
    setSavingKey(true);
    const saved = await api.safe('settings.setApiKey', { provider, key: key.trim() });
    setSavingKey(false);
    if (saved) onChange({ apiKeyText: '' });
  };

  const testConnection = async (): Promise<void> => {
    if (!draft.model.trim()) {
      setTest({ ok: false, message: 'Enter a model first, as PROVIDER:MODEL.' });
      return;
    }
    setTest('running');
    try {
      const result = await api.call('settings.testConnection', {
        model: draft.model.trim(),
        ...(draft.baseUrl.trim() ? { baseUrl: draft.baseUrl.trim() } : {}),
        ...(key.trim() ? { apiKey: key.trim() } : {}),
      });
      setTest(result);
    } catch (err) {
      setTest({ ok: false, message: errorMessage(err) });
    }
  };

  const detect = async (): Promise<void> => {
    setServers('running');
    const found = await api.safe('settings.detectLocalServers', {});
    setServers(found ?? []);
  };

  const needsKey = needsApiKey(provider);
  const models = modelList !== null && typeof modelList === 'object' && 'models' in modelList ? modelList.models : [];
  return (
    <fieldset className="settings-section">
      <legend>Model</legend>
      <div className="field-row wrap">
        <div className="field provider-field">
          <label htmlFor="settings-provider">Provider</label>
          <select id="settings-provider" value={provider} disabled={overridden.model === true} onChange={(e) => chooseProvider(e.target.value as Provider)}>
            {PROVIDERS.map((p) => (
              <option key={p} value={p}>
                {PROVIDER_LABELS[p]}
              </option>
            ))}
          </select>
        </div>
        <div className="field grow">
          <label htmlFor="settings-model">Model</label>
          <div className="field-inline">
            <ModelPicker
              id="settings-model"
              value={parsed.model}
              models={models}
              placeholder={MODEL_PLACEHOLDERS[provider]}
              disabled={overridden.model === true}
              describedBy={overridden.model ? 'settings-model-flag' : 'settings-model-status'}
              onChange={setModelName}
              openKey={openKey}
            />
            <button type="button" className="btn btn-quiet" onClick={refresh} disabled={modelList === 'loading' || overridden.model === true}>
              Refresh models
            </button>
          </div>
          {overridden.model ? <FlagNote id="settings-model-flag" field="model" /> : null}
          <p id="settings-model-status" className={`small ${modelList !== null && typeof modelList === 'object' && 'error' in modelList ? 'error-text' : 'muted'}`} role="status">
            {modelList === 'loading'
              ? 'Asking the provider for its models…'
              : modelList === null
                ? ''
                : 'hint' in modelList
                  ? modelList.hint
                  : 'error' in modelList
                    ? `Could not list models: ${modelList.error}`
                    : modelList.models.length === 0
                      ? 'The provider lists no models.'
                      : `${modelList.models.length} model${modelList.models.length === 1 ? '' : 's'} offered by ${PROVIDER_LABELS[provider]}: pick one or type another id.`}
          </p>
        </div>
      </div>
      <div className="field">
        <label htmlFor="settings-base-url">Base URL</label>
        <input
          id="settings-base-url"
          className="mono"
          placeholder={provider === 'ollama' ? 'http://127.0.0.1:11434' : provider === 'openai-compatible' ? 'http://127.0.0.1:1234/v1' : 'the provider’s default'}
          value={draft.baseUrl}
          spellCheck={false}
          disabled={overridden.baseUrl === true}
          aria-describedby={overridden.baseUrl ? 'settings-base-url-flag' : undefined}
          onChange={(e) => onChange({ baseUrl: e.target.value })}
        />
        {overridden.baseUrl ? <FlagNote id="settings-base-url-flag" field="baseUrl" /> : null}
      </div>
      <div className="field">
        <label htmlFor="settings-api-key">API key for {PROVIDER_LABELS[provider]}</label>
        <div className="field-inline">
          <input
            id="settings-api-key"
            type="password"
            autoComplete="off"
            placeholder={apiKeys[provider] === true ? '•••••••• (stored)' : needsKey ? 'paste your key' : 'usually not needed'}
            value={key}
            aria-describedby="settings-api-key-status"
            onChange={(e) => onChange({ apiKeyText: e.target.value })}
          />
          <button type="button" className="btn" onClick={() => void saveKey()} disabled={savingKey || key.trim() === ''}>
            Save key
          </button>
          {apiKeys[provider] === true ? (
            <button type="button" className="btn btn-quiet" onClick={() => void api.safe('settings.setApiKey', { provider, key: '' })}>
              Forget key
            </button>
          ) : null}
        </div>
        <p id="settings-api-key-status" className={`small ${apiKeys[provider] === true ? 'ok-text' : 'muted'}`}>
          {key.trim() !== ''
            ? `Save settings stores this key for ${SHORT_PROVIDER_LABELS[provider]}${apiKeys[provider] === true ? ', in place of the stored one' : ''}.`
            : apiKeys[provider] === true
              ? 'A key is stored for this provider.'
              : 'No key stored for this provider.'}
        </p>
        {overridden.apiKey ? <FlagNote id="settings-api-key-flag" field="apiKey" /> : null}
      </div>
      {MEDIA_OVERRIDE_PROVIDERS.includes(provider) && parsed.model.trim() !== '' ? (
        <MediaInputSettings provider={provider} model={parsed.model.trim()} overrides={draft.mediaInput} onChange={(mediaInput) => onChange({ mediaInput })} />
      ) : null}
      <div className="field-inline">
        <button type="button" className="btn" onClick={() => void testConnection()} disabled={test === 'running'}>
          Test connection
        </button>
        {test === 'running' ? <Spinner label="Testing" /> : test ? <span className={test.ok ? 'ok-text' : 'error-text'} role="status">{test.message}</span> : null}
      </div>
      {test !== 'running' && test?.detail !== undefined ? (
        <details className="notice-detail">
          <summary>Technical detail</summary>
          <code>{test.detail}</code>
        </details>
      ) : null}

      <div className="local-servers">
        <div className="field-inline">
          <button type="button" className="btn" onClick={() => void detect()} disabled={servers === 'running'}>
            Detect local servers
          </button>
          <span className="muted small">Ollama, LM Studio or llama.cpp on this machine</span>
          {servers === 'running' ? <Spinner label="Looking for local servers" /> : null}
        </div>
        {Array.isArray(servers) ? (
          servers.length === 0 ? (
            <p className="muted small">No local model server found.</p>
          ) : (
            <ul className="server-list">
              {servers.map((server) => (
                <li key={server.baseUrl}>
                  <div className="server-head">
                    <strong>{serverLabel(server)}</strong> <span className="muted mono small">{server.baseUrl}</span>
                  </div>
                  {server.models.length === 0 ? (
                    <p className="muted small">No models loaded.</p>
                  ) : (
                    <div className="server-models">
                      {server.models.map((model) => (
                        <button
                          key={model}
                          type="button"
                          className="btn btn-small"
                          disabled={overridden.model === true || overridden.baseUrl === true}
                          aria-label={`Use ${model} from ${serverLabel(server)}`}
                          onClick={() => onChange({ keyProvider: server.provider, model: `${server.provider}:${model}`, baseUrl: server.baseUrl })}
                        >
                          {model}
                        </button>
                      ))}
                    </div>
                  )}
                </li>
              ))}
            </ul>
          )
        ) : null}
      </div>
    </fieldset>
  );
}

const MEDIA_CHOICES: ReadonlyArray<{ kind: MediaKind; label: string }> = [
  { kind: 'image', label: 'Images' },
  { kind: 'audio', label: 'Audio' },
  { kind: 'video', label: 'Video' },
  { kind: 'document', label: 'PDF documents' },
];

interface MediaInputSettingsProps {
  provider: Provider;
  model: string;
  overrides: SettingsDraft['mediaInput'];
  onChange(overrides: SettingsDraft['mediaInput']): void;
}

/** The kinds of file this model is sent as content (the rest reach it as text or a one-line notice). */
function MediaInputSettings({ provider, model, overrides, onChange }: MediaInputSettingsProps): React.JSX.Element {
  const key = mediaOverrideKey(provider, model);
  const set = mediaInputOverride(overrides, provider, model);
  const byDefault = mediaInputFor(provider, model);
  const takes = (kind: MediaKind): boolean => (set !== undefined ? set.includes(kind) : takesKind(byDefault, kind));
  const toggle = (kind: MediaKind, on: boolean): void => {
    const kinds = MEDIA_CHOICES.map((c) => c.kind).filter((k) => (k === kind ? on : takes(k)));
    onChange({ ...overrides, [key]: kinds });
  };
  const useDefault = (): void => {
    const { [key]: _dropped, ...rest } = overrides ?? {};
    onChange(rest);
  };
  return (
    <div className="field" role="group" aria-labelledby="settings-media-input-label" aria-describedby="settings-media-input-status">
      {/* Styled as the other fields' labels; it names the group (aria-labelledby), not one control. */}
      <label id="settings-media-input-label">Media input</label>
      <div className="field-inline">
        {MEDIA_CHOICES.map(({ kind, label }) => (
          <label key={kind} className="checkbox">
            <input type="checkbox" checked={takes(kind)} onChange={(e) => toggle(kind, e.target.checked)} /> {label}
          </label>
        ))}
        <button type="button" className="btn btn-quiet" onClick={useDefault} disabled={set === undefined}>
          Use provider default
        </button>
      </div>
      <p id="settings-media-input-status" className="muted small">
        {set === undefined
          ? `${capitalized(SHORT_PROVIDER_LABELS[provider])}’s default for ${model}; a kind it does not take reaches it as text or a one-line notice.`
          : `Set for ${model}; a kind it does not take reaches it as text or a one-line notice.`}
      </p>
    </div>
  );
}
