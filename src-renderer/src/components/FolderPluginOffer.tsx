// The plugins a folder's `.claude/settings.json` turns on (`enabledPlugins`), offered in its
// trust question as Claude Code offers them (SPEC §15), never installed silently: a
// marketplace the folder names in `extraKnownMarketplaces` is added on its own confirmation
// (its source shown), then the plugin is installed only after its list of what it would load
// is shown and confirmed — the same preview and install as Settings › Plugins.

import { useState } from 'react';
import type { FolderPluginRequestDto, PluginPreviewDto } from '../../../src-main/app/contract';
import { useApi } from '../state/use-api';
import { useBusy } from '../state/use-busy';
import { PluginPreview } from './PluginPreview';
import { VisibleText } from './VisibleText';

export function FolderPluginOffer({ requests }: { requests: readonly FolderPluginRequestDto[] }): React.JSX.Element {
  const api = useApi();
  const [preview, setPreview] = useState<PluginPreviewDto | null>(null);
  const [market, setMarket] = useState<FolderPluginRequestDto | null>(null);
  const [busy, run] = useBusy();
  const showPreview = (request: FolderPluginRequestDto): void =>
    void run(async () => {
      setMarket(null);
      const next = await api.safe('plugins.preview', { spec: request.spec });
      if (next) setPreview(next);
    });
  const cancelPreview = (): void => {
    if (preview) void api.safe('plugins.cancel', { token: preview.token });
    setPreview(null);
  };

  return (
    <div role="group" aria-label="Plugins this folder asks for" className="trust-plugins">
      <h3 className="trust-prompt-title">Plugins this folder asks for</h3>
      <p className="muted small">Its settings turn these on. An installed plugin is yours: it loads in every folder, as those in Settings › Plugins do. Each installs only after you see what it would load.</p>
      <ul className="trust-list">
        {requests.map((request) => (
          <li key={request.spec} aria-label={`Plugin ${request.spec}`}>
            <VisibleText text={request.spec} /> <span className="muted">({request.file})</span>{' '}
            {request.marketplaceAdded ? (
              <button type="button" className="btn btn-small" disabled={busy} aria-label={`Install ${request.plugin}`} onClick={() => showPreview(request)}>
                Install…
              </button>
            ) : request.marketplaceSource !== undefined ? (
              <button type="button" className="btn btn-small" disabled={busy} aria-label={`Add marketplace ${request.marketplace}`} onClick={() => (cancelPreview(), setMarket(request))}>
                Add marketplace {request.marketplace}…
              </button>
            ) : (
              <span className="muted trust-plugin-note">The folder does not say where the marketplace {request.marketplace} is: add it in Settings › Plugins, then install it here.</span>
            )}
          </li>
        ))}
      </ul>
      {market && market.marketplaceSource !== undefined ? (
        <div role="group" aria-label={`Add marketplace ${market.marketplace}?`} className="plugin-preview">
          <p className="small">
            Add the marketplace {market.marketplace} from <VisibleText text={market.marketplaceSource} />? It is fetched with git, your credentials applying; nothing of it loads until you install one of its plugins.
          </p>
          <div className="row-actions">
            <button
              type="button"
              className="btn btn-primary"
              disabled={busy}
              onClick={() =>
                void run(async () => {
                  // The folder's question follows: the plugin is offered for install once its marketplace is there.
                  if (await api.safe('plugins.addMarketplace', { source: market.marketplaceSource! })) setMarket(null);
                })
              }
            >
              Add marketplace
            </button>
            <button type="button" className="btn" onClick={() => setMarket(null)}>
              Cancel
            </button>
          </div>
        </div>
      ) : null}
      {preview ? (
        <PluginPreview
          preview={preview}
          verb="Install"
          busy={busy}
          onConfirm={() =>
            void run(async () => {
              if (await api.safe('plugins.install', { token: preview.token })) setPreview(null);
            })
          }
          onCancel={cancelPreview}
        />
      ) : null}
    </div>
  );
}
