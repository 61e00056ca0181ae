// Settings › Updates: the version this is, `Check for updates` and what the check found. The
// desktop app checks its publish target (off, saying why, until a build has one); the served
// window says updates do not apply to it.

import { useCallback, useId, useState } from 'react';
import { useApi } from '../state/use-api';
import { useEvent } from '../state/transport-context';
import { useAskedValue } from '../state/use-live-value';

export function UpdateSettings(): React.JSX.Element {
  const api = useApi();
  const titleId = useId();
  const [status, setStatus] = useAskedValue('updates.status');
  const [checking, setChecking] = useState(false);
  useEvent('updates.changed', setStatus);

  const check = useCallback(async () => {
    setChecking(true);
    const next = await api.safe('updates.check', {});
    if (next) setStatus(next);
    setChecking(false);
  }, [api]);

  return (
    <section className="settings-section" aria-labelledby={titleId}>
      <h3 id={titleId} className="settings-section-title">
        Updates
      </h3>
      {status === null ? (
        <p className="muted small">Loading…</p>
      ) : (
        <>
          <p className="small">Deepdesk {status.currentVersion}</p>
          <p className="muted small" role="status">
            {status.message}
            {status.checkedAt ? ` (checked ${new Date(status.checkedAt).toLocaleString()})` : ''}
          </p>
          <div className="field-row">
            <button type="button" className="btn btn-small" onClick={() => void check()} disabled={!status.canCheck || checking || status.state === 'checking'}>
              Check for updates
            </button>
            {status.state === 'downloaded' ? (
              <button type="button" className="btn btn-small btn-primary" onClick={() => void api.safe('updates.install', {})}>
                Restart to update
              </button>
            ) : null}
          </div>
        </>
      )}
    </section>
  );
}
