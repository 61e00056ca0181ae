// Provider and model, base URL, API key, connection test and detected local servers.

import { useEffect, useState } from 'react';
import type { Result } from '../../../src-main/app/contract';
import { parseModel, PROVIDER_LABELS, PROVIDERS, serverLabel, withProvider, type Provider } from '../lib/providers';
import { errorMessage } from '../state/toasts';
import { useApi } from '../state/use-api';
import { Spinner } from './Icon';
import type { SettingsDraft } from './SettingsDialog';

interface ModelSettingsProps {
  draft: SettingsDraft;
  apiKeys: Record<string, boolean>;
  onChange(patch: Partial<SettingsDraft>): void;
}

type Servers = Result<'settings.detectLocalServers'>;
type ModelList = { models: string[] } | { error: string } | 'loading' | null;

const MODEL_PLACEHOLDERS: Record<Provider, string> = {
  anthropic: 'claude-sonnet-4-5',
  openai: 'gpt-4.1',
  'openai-compatible': 'the model the server runs',
  ollama: 'qwen3:8b',
};

export function ModelSettings({ draft, apiKeys, onChange }: ModelSettingsProps): React.JSX.Element {
  const api = useApi();
  const parsed = parseModel(draft.model);
  const [keyProvider, setKeyProvider] = useState<Provider>(parsed.provider ?? 'anthropic');
  const provider = parsed.provider ?? keyProvider;
  const [key, setKey] = useState('');
  const [savingKey, setSavingKey] = useState(false);
  const [test, setTest] = useState<{ ok: boolean; message: string } | 'running' | null>(null);
  const [servers, setServers] = useState<Servers | 'running' | null>(null);
  const [modelList, setModelList] = useState<ModelList>(null);
  const [listVersion, setListVersion] = useState(0);
  const hasKey = apiKeys[provider] === true;
  const baseUrl = draft.baseUrl.trim();

  // Once the provider answers, its models are offered: no typing of `provider:` needed.
  useEffect(() => {
    if (provider === 'openai-compatible' && baseUrl === '') {
      setModelList(null);
      return;
    }
    let cancelled = false;
    const timer = setTimeout(() => {
      setModelList('loading');
      api
        .call('settings.listModels', { provider, ...(baseUrl ? { baseUrl } : {}) })
        .then((r) => !cancelled && setModelList({ models: r.models }))
        .catch((err: unknown) => !cancelled && setModelList({ error: errorMessage(err) }));
    }, 400);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [api, provider, baseUrl, hasKey, listVersion]);

  const setModelName = (name: string): void => {
    // A pasted `provider:model` picks the provider too.
    const pasted = parseModel(name.trim());
    if (pasted.provider) {
      setKeyProvider(pasted.provider);
      onChange({ model: `${pasted.provider}:${pasted.model}` });
    } else {
      onChange({ model: name === '' ? '' : `${provider}:${name}` });
    }
  };

  const chooseProvider = (next: Provider): void => {
    setKeyProvider(next);
    onChange({ model: withProvider(draft.model, next) });
  };

  const saveKey = async (): Promise<void> => {
    setSavingKey(true);
    const saved = await api.safe('settings.setApiKey', { provider, key: key.trim() });
    setSavingKey(false);
    if (saved) setKey('');
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

  const needsKey = provider === 'anthropic' || provider === 'openai';
  return (
    <fieldset className="settings-section">
      <legend>Model</legend>
      <div className="field-row wrap">
        <div className="field provider-field">
          <label htmlFor="settings-provider">Provider</label>
          <select id="settings-provider" value={provider} onChange={(e) => chooseProvider(e.target.value as Provider)}>
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
            <input
              id="settings-model"
              className="mono"
              list="settings-model-list"
              placeholder={MODEL_PLACEHOLDERS[provider]}
              value={parsed.model}
              spellCheck={false}
              autoComplete="off"
              onChange={(e) => setModelName(e.target.value)}
            />
            <button type="button" className="btn btn-quiet" onClick={() => setListVersion((v) => v + 1)} disabled={modelList === 'loading'}>
              Refresh models
            </button>
          </div>
          <datalist id="settings-model-list">
            {modelList && typeof modelList === 'object' && 'models' in modelList ? modelList.models.map((m) => <option key={m} value={m} />) : null}
          </datalist>
          <p className="small muted" role="status">
            {modelList === 'loading'
              ? 'Asking the provider for its models…'
              : modelList === null
                ? provider === 'openai-compatible'
                  ? 'Enter the server’s base URL to list its models.'
                  : ''
                : 'error' in modelList
                  ? `Could not list models: ${modelList.error}`
                  : modelList.models.length === 0
                    ? 'The provider lists no models.'
                    : `${modelList.models.length} model${modelList.models.length === 1 ? '' : 's'} offered by ${PROVIDER_LABELS[provider]}: pick one or type a name.`}
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
          onChange={(e) => onChange({ baseUrl: e.target.value })}
        />
      </div>
      <div className="field">
        <label htmlFor="settings-api-key">API key for {PROVIDER_LABELS[provider]}</label>
        <div className="field-inline">
          <input id="settings-api-key" type="password" autoComplete="off" placeholder={hasKey ? '•••••••• (stored)' : needsKey ? 'paste your key' : 'usually not needed'} value={key} onChange={(e) => setKey(e.target.value)} />
          <button type="button" className="btn" onClick={() => void saveKey()} disabled={savingKey || key.trim() === ''}>
            Save key
          </button>
          {hasKey ? (
            <button type="button" className="btn btn-quiet" onClick={() => void api.safe('settings.setApiKey', { provider, key: '' })}>
              Forget key
            </button>
          ) : null}
        </div>
        <p className={`small ${hasKey ? 'ok-text' : 'muted'}`}>{hasKey ? 'A key is stored for this provider.' : 'No key stored for this provider.'}</p>
      </div>
      <div className="field-inline">
        <button type="button" className="btn" onClick={() => void testConnection()} disabled={test === 'running'}>
          Test connection
        </button>
        {test === 'running' ? <Spinner label="Testing" /> : test ? <span className={test.ok ? 'ok-text' : 'error-text'} role="status">{test.message}</span> : null}
      </div>

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
                          aria-label={`Use ${model} from ${serverLabel(server)}`}
                          onClick={() => {
                            setKeyProvider(server.provider);
                            onChange({ model: `${server.provider}:${model}`, baseUrl: server.baseUrl });
                          }}
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
