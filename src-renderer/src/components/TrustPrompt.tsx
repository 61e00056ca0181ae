// The folder's own configuration (SPEC §9): until the person trusts it, nothing of it loads.
// The question does not block the window: it lists exactly what would load (each MCP server
// with its command or URL and whether it runs sandboxed, each hook, each skill) and waits.
// `Trust folder` sends the digest of the list on screen: if the configuration changed since,
// nothing is trusted and the new list is shown with a note.

import { useState } from 'react';
import { useApi } from '../state/use-api';
import { useLiveValue } from '../state/use-live-value';
import { VisibleText } from './VisibleText';

export function TrustPrompt(): React.JSX.Element | null {
  const api = useApi();
  const [state, set] = useLiveValue('trust.get', 'trust.changed');
  const [busy, setBusy] = useState(false);
  if (!state || state.untrusted.length === 0 || state.dismissed) return null;

  const act = async (method: 'trust.grant' | 'trust.dismiss'): Promise<void> => {
    setBusy(true);
    try {
      const next = method === 'trust.grant' ? await api.safe('trust.grant', { digest: state.digest }) : await api.safe('trust.dismiss', {});
      if (next) set(next);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section role="group" aria-labelledby="trust-prompt-title" className="trust-prompt">
      <h2 id="trust-prompt-title" className="trust-prompt-title">
        Trust this folder?
      </h2>
      <p className="muted small">This folder&apos;s own configuration would load the following. Nothing of it runs until you trust it.</p>
      {state.note ? (
        <p className="small" role="status">
          {state.note}
        </p>
      ) : null}
      <ul className="trust-list">
        {state.untrusted.map((entry) => (
          <li key={entry.key} title={entry.file}>
            <VisibleText text={entry.label} />
          </li>
        ))}
      </ul>
      <div className="dialog-actions">
        <button type="button" className="btn" disabled={busy} onClick={() => void act('trust.dismiss')}>
          Not now
        </button>
        <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void act('trust.grant')}>
          Trust folder
        </button>
      </div>
    </section>
  );
}
