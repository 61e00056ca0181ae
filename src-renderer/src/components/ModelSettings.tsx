// Provider and model, base URL, API key, connection test and detected local servers.
// The key typed here is part of the dialog's draft: `Save settings` stores it (so does
// `Save key`, at once). For a local or compatible server's model, `Media input` says which kinds
// of file it takes (SPEC §12: the provider's default, or what the person set for that model).

import { useState } from 'react';
import { MEDIA_OVERRIDE_PROVIDERS, mediaInputFor, mediaInputOverride, mediaOverrideKey, takesKind, type MediaKind, type OverriddenFields, type Result } from '../../../src-main/app/contract';
import { needsApiKey, parseModel, PROVIDER_LABELS, PROVIDERS, serverLabel, SHORT_PROVIDER_LABELS, withProvider, type Provider } from '../lib/providers';
import { capitalized } from '../lib/format';
import { errorMessage } from '../state/toasts';
import { useApi } from '../state/use-api';
import { useBusy } from '../state/use-busy';
import { useModelList } from '../state/use-model-list';
import { FlagNote } from './FlagNote';
import { Spinner } from './Icon';
import { ModelPicker } from './ModelPicker';
import { Options, TextField } from './TextField';
import type { SettingsDraft } from '../lib/settings-draft';

interface ModelSettingsProps {
  draft: SettingsDraft;
  apiKeys: Record<string, boolean>;
  /** Fields a command-line flag sets for this session: shown, not editable here. */
  overridden: OverriddenFields;
  onChange(patch: Partial<SettingsDraft>): void;
}

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
  const [savingKey, saving] = useBusy();
  const stored = apiKeys[provider] === true;
  const baseUrl = draft.baseUrl.trim();
  const { modelList, refresh, openKey } = useModelList(provider, baseUrl, stored || overridden.apiKey === true, key);

  const setModelName = (name: string): void => {
    // A pasted `provider:model` picks the provider too.
    const pasted = parseModel(name.trim());
    onChange(pasted.provider ? { keyProvider: pasted.provider, model: `${pasted.provider}:${pasted.model}` } : { model: name === '' ? '' : `${provider}:${name}` });
  };

  const saveKey = async (): Promise<void> => {
    if (await saving(() => api.safe('settings.setApiKey', { provider, key: key.trim() }))) onChange({ apiKeyText: '' });
  };

  // `typeof null` is 'object' too: null, or the list's answer.
  const listed = typeof modelList === 'object' ? modelList : null;
  const models = listed !== null && 'models' in listed ? listed.models : [];
  return (
    <fieldset className="settings-section">
      <legend>Model</legend>
      <div className="field-row wrap">
        <div className="field provider-field">
          <label htmlFor="settings-provider">Provider</label>
          <select id="settings-provider" value={provider} disabled={overridden.model === true} onChange={(e) => onChange({ keyProvider: e.target.value as Provider, model: withProvider(draft.model, e.target.value as Provider) })}>
            <Options options={PROVIDERS.map((p) => ({ value: p, label: PROVIDER_LABELS[p] }))} />
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
          <p id="settings-model-status" className={`small ${listed !== null && 'error' in listed ? 'error-text' : 'muted'}`} role="status">
            {modelList === 'loading'
              ? 'Asking the provider for its models…'
              : listed === null
                ? ''
                : 'hint' in listed
                  ? listed.hint
                  : 'error' in listed
                    ? `Could not list models: ${listed.error}`
                    : models.length === 0
                      ? 'The provider lists no models.'
                      : `${models.length} model${models.length === 1 ? '' : 's'} offered by ${PROVIDER_LABELS[provider]}: pick one or type another id.`}
          </p>
        </div>
      </div>
      <TextField
        id="settings-base-url"
        label="Base URL"
        className="mono"
        placeholder={provider === 'ollama' ? 'http://127.0.0.1:11434' : provider === 'openai-compatible' ? 'http://127.0.0.1:1234/v1' : 'the provider’s default'}
        value={draft.baseUrl}
        spellCheck={false}
        disabled={overridden.baseUrl === true}
        aria-describedby={overridden.baseUrl ? 'settings-base-url-flag' : undefined}
        onValue={(baseUrl) => onChange({ baseUrl })}
      >
        {overridden.baseUrl ? <FlagNote id="settings-base-url-flag" field="baseUrl" /> : null}
      </TextField>
      <div className="field">
        <label htmlFor="settings-api-key">API key for {PROVIDER_LABELS[provider]}</label>
        <div className="field-inline">
          <input
            id="settings-api-key"
            type="password"
            autoComplete="off"
            placeholder={stored ? '•••••••• (stored)' : needsApiKey(provider) ? 'paste your key' : 'usually not needed'}
            value={key}
            aria-describedby="settings-api-key-status"
            onChange={(e) => onChange({ apiKeyText: e.target.value })}
          />
          <button type="button" className="btn" onClick={() => void saveKey()} disabled={savingKey || key.trim() === ''}>
            Save key
          </button>
          {stored ? (
            <button type="button" className="btn btn-quiet" onClick={() => void api.safe('settings.setApiKey', { provider, key: '' })}>
              Forget key
            </button>
          ) : null}
        </div>
        <p id="settings-api-key-status" className={`small ${stored ? 'ok-text' : 'muted'}`}>
          {key.trim() !== ''
            ? `Save settings stores this key for ${SHORT_PROVIDER_LABELS[provider]}${stored ? ', in place of the stored one' : ''}.`
            : stored
              ? 'A key is stored for this provider.'
              : 'No key stored for this provider.'}
        </p>
        {overridden.apiKey ? <FlagNote id="settings-api-key-flag" field="apiKey" /> : null}
      </div>
      {MEDIA_OVERRIDE_PROVIDERS.includes(provider) && parsed.model.trim() !== '' ? (
        <MediaInputSettings provider={provider} model={parsed.model.trim()} overrides={draft.mediaInput} onChange={(mediaInput) => onChange({ mediaInput })} />
      ) : null}
      <ConnectionTest model={draft.model.trim()} baseUrl={baseUrl} apiKey={key.trim()} />
      <LocalServers locked={overridden.model === true || overridden.baseUrl === true} onChange={onChange} />
      <TextField id="settings-subagent-model" label="Subagent model" className="mono" spellCheck={false} placeholder={draft.model.trim() ? `the thread's model (${draft.model.trim()})` : "the thread's model"} value={draft.subagentModelText} onValue={(subagentModelText) => onChange({ subagentModelText })} linkHelp
        help="What subagents run on (PROVIDER:MODEL), often a cheaper model; one whose declaration names a model runs on that. Empty: the thread's model."
      />
    </fieldset>
  );
}

/** `Test connection` with the model, base URL and key as typed (trimmed). */
function ConnectionTest({ model, baseUrl, apiKey }: { model: string; baseUrl: string; apiKey: string }): React.JSX.Element {
  const api = useApi();
  const [test, setTest] = useState<{ ok: boolean; message: string; detail?: string } | 'running' | null>(null);
  const run = async (): Promise<void> => {
    if (!model) {
      setTest({ ok: false, message: 'Enter a model first, as PROVIDER:MODEL.' });
      return;
    }
    setTest('running');
    try {
      setTest(await api.call('settings.testConnection', { model, ...(baseUrl ? { baseUrl } : {}), ...(apiKey ? { apiKey } : {}) }));
    } catch (err) {
      setTest({ ok: false, message: errorMessage(err) });
    }
  };
  return (
    <>
      <div className="field-inline">
        <button type="button" className="btn" onClick={() => void run()} disabled={test === 'running'}>
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
    </>
  );
}

/** `Detect local servers`, and a button for each model they run (it sets the provider, model and base URL). `locked`: a flag sets one of those. */
function LocalServers({ locked, onChange }: { locked: boolean; onChange(patch: Partial<SettingsDraft>): void }): React.JSX.Element {
  const api = useApi();
  const [servers, setServers] = useState<Result<'settings.detectLocalServers'> | 'running' | null>(null);
  const detect = async (): Promise<void> => {
    setServers('running');
    setServers((await api.safe('settings.detectLocalServers', {})) ?? []);
  };
  return (
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
                        disabled={locked}
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
