// Said plainly when the window stopped reconnecting (its `deepdesk serve` stopped, or runs at
// another address now): what happened, how to open the new address, and the ways out
// (`Reload` this address, `Try again` without reloading). Shown in the notices' place.

import { useConnection, useTransport } from '../state/transport-context';

export function ConnectionGone(): React.JSX.Element | null {
  const transport = useTransport();
  const { status } = useConnection();
  if (status !== 'gone') return null;
  return (
    <div className="connection-gone" role="alert">
      <p className="connection-gone-text">
        <strong>This window’s Deepdesk server is gone.</strong> It stopped, or runs at another address now. If you started{' '}
        <code>deepdesk serve</code> again, open the address it printed (<code>Deepdesk is running at http://127.0.0.1:…</code>); this tab
        stopped trying {location.host}.
      </p>
      <div className="connection-gone-actions">
        <button type="button" className="btn" onClick={() => transport.reconnect?.()}>
          Try again
        </button>
        <button type="button" className="btn btn-primary" onClick={() => location.reload()}>
          Reload
        </button>
      </div>
    </div>
  );
}
