// Settings › Plugins (SPEC §15): installed plugins with their parts, turned on and off,
// updated and removed; marketplaces added and removed; a plugin installed or updated only
// after its list of what it would load is shown (`Install` confirms exactly that copy).
// Plugin-, marketplace- and repository-written text is shown as text, never as markup.

import { useId, useState } from 'react';
import { pluginPartCounts, type PluginPreviewDto, type PluginsListDto } from '../../../src-main/app/contract';
import { useApi } from '../state/use-api';
import { useBusy } from '../state/use-busy';
import { useLiveValue } from '../state/use-live-value';
import { PluginPreview, pluginContentLines, type PluginVerb } from './PluginPreview';
import { VisibleText } from './VisibleText';

export function PluginSettings(): React.JSX.Element {
  const api = useApi();
  const titleId = useId();
  const sourceId = useId();
  const [list, setList] = useLiveValue('plugins.list', 'plugins.changed');
  const [source, setSource] = useState('');
  const [preview, setPreview] = useState<(PluginPreviewDto & { verb: PluginVerb }) | null>(null);
  const [busy, run] = useBusy();
  const took = (next: PluginsListDto | undefined): void => void (next && setList(next));
  const showPreview = (verb: PluginVerb, ask: () => Promise<PluginPreviewDto | undefined>): void =>
    void run(async () => {
      const next = await ask();
      if (next) setPreview({ ...next, verb });
    });
  const cancelPreview = (): void => {
    if (preview) void api.safe('plugins.cancel', { token: preview.token });
    setPreview(null);
  };

  return (
    <section className="settings-section" aria-labelledby={titleId} role="region">
      <h3 id={titleId} className="settings-section-title">
        Plugins
      </h3>
      <p className="muted small">Claude Code plugins: skills, commands, subagents, hooks and MCP servers in one package. Each is installed only after you see what it loads, and loads only while it is what you confirmed.</p>
      {list === null ? <p className="muted small">Loading…</p> : null}
      {list && list.plugins.length === 0 ? <p className="muted small">No plugins installed.</p> : null}
      {list && list.plugins.length > 0 ? (
        <ul className="mcp-list">
          {list.plugins.map((plugin) => (
            <li key={plugin.name} className="mcp-server" aria-label={plugin.name}>
              <div className="mcp-server-head">
                <strong className="mono">{plugin.name}</strong>
                {plugin.version ? <span className="muted small">{plugin.version}</span> : null}
                <span className="muted small">{plugin.marketplace ? `from ${plugin.marketplace}` : 'added directly'}</span>
              </div>
              {plugin.contents ? <div className="small">{pluginPartCounts(plugin.contents)}</div> : null}
              {plugin.contents ? (
                <ul className="small mono plugin-parts">
                  {pluginContentLines(plugin.contents).map((line) => (
                    <li key={line}>
                      <VisibleText text={line} />
                    </li>
                  ))}
                </ul>
              ) : null}
              {plugin.problem ? (
                <p className="error-text small">
                  <VisibleText text={plugin.problem} />
                </p>
              ) : null}
              <label className="checkbox">
                <input type="checkbox" aria-label={`Enable ${plugin.name}`} checked={plugin.enabled} onChange={(e) => void api.safe('plugins.setEnabled', { name: plugin.name, enabled: e.target.checked }).then(took)} /> Enabled
              </label>
              <div className="row-actions">
                <button type="button" className="btn btn-small" disabled={busy} aria-label={`Update ${plugin.name}`} onClick={() => showPreview('Update', () => api.safe('plugins.previewUpdate', { name: plugin.name }))}>
                  Update
                </button>
                <button type="button" className="btn btn-small" disabled={busy} aria-label={`Remove ${plugin.name}`} onClick={() => void api.safe('plugins.remove', { name: plugin.name }).then(took)}>
                  Remove
                </button>
              </div>
            </li>
          ))}
        </ul>
      ) : null}
      {preview ? (
        <PluginPreview
          preview={preview}
          verb={preview.verb}
          busy={busy}
          onConfirm={() =>
            void run(async () => {
              const next = await api.safe('plugins.install', { token: preview.token });
              took(next);
              setPreview(null);
            })
          }
          onCancel={cancelPreview}
        />
      ) : null}
      <h4 className="small">Marketplaces</h4>
      {list?.marketplaces.map((market) => (
        <div key={market.name} className="mcp-server" role="group" aria-label={`Marketplace ${market.name}`}>
          <div className="mcp-server-head">
            <strong className="mono">{market.name}</strong>
            <span className="muted small mono">{market.source}</span>
            <button type="button" className="btn btn-small" aria-label={`Remove marketplace ${market.name}`} onClick={() => void api.safe('plugins.removeMarketplace', { name: market.name }).then(took)}>
              Remove
            </button>
          </div>
          {market.problem ? <p className="error-text small">{market.problem}</p> : null}
          <ul className="mcp-list">
            {market.plugins.map((p) => (
              <li key={p.name} className="small">
                <span className="mono">{p.name}</span> {p.description ? <VisibleText text={p.description} /> : null}{' '}
                {list.plugins.some((installed) => installed.name === p.name) ? (
                  // Installed: its Update and Remove are on its row above.
                  <span className="badge">Installed</span>
                ) : (
                  <button type="button" className="btn btn-small" disabled={busy} aria-label={`Install ${p.name}`} onClick={() => showPreview('Install', () => api.safe('plugins.preview', { spec: `${p.name}@${market.name}` }))}>
                    Install…
                  </button>
                )}
              </li>
            ))}
          </ul>
        </div>
      ))}
      <div className="field">
        <label htmlFor={sourceId}>Add a marketplace (a git URL or a local folder)</label>
        <input id={sourceId} className="mono" value={source} placeholder="https://github.com/owner/marketplace.git" onChange={(e) => setSource(e.target.value)} />
        <button type="button" className="btn" disabled={busy || source.trim() === ''} onClick={() => void run(async () => {
          const next = await api.safe('plugins.addMarketplace', { source: source.trim() });
          if (next) {
            took(next);
            setSource('');
          }
        })}>
          Add marketplace
        </button>
      </div>
    </section>
  );
}
