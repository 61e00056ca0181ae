// Said plainly when the window stopped reconnecting, and which of two it is:
// - not signed in: the server answers, but this tab has no key (the address bar drops it once
//   the page opened, so a new tab on the bare address has none) or the key of an earlier serve;
// - gone: nothing answers at this address (serve stopped, or runs at another address now).
// Each says how to get back in; `Reload` and `Try again` (without reloading) are the ways out.

import { useEffect, useState } from 'react';
import { useConnection, useTransport } from '../state/transport-context';
import { whileCurrent } from '../lib/while-current';

type Reach = 'unknown' | 'answers' | 'silent';

/** Whether anything answers HTTP at the page's own address (any status counts: 401 is an answer). */
async function serverAnswers(): Promise<boolean> {
  try {
    await fetch(`${location.origin}/`, { method: 'HEAD', cache: 'no-store', credentials: 'same-origin' });
    return true;
  } catch {
    return false;
  }
}

export function ConnectionGone(): React.JSX.Element | null {
  const transport = useTransport();
  const { status } = useConnection();
  const [reach, setReach] = useState<Reach>('unknown');
  useEffect(() => {
    if (status !== 'gone') {
      setReach('unknown');
      return;
    }
    return whileCurrent(serverAnswers(), (answers) => setReach(answers ? 'answers' : 'silent'));
  }, [status]);
  if (status !== 'gone' || reach === 'unknown') return null;
  const actions = (
    <div className="connection-gone-actions">
      <button type="button" className="btn" onClick={() => transport.reconnect?.()}>
        Try again
      </button>
      <button type="button" className="btn btn-primary" onClick={() => location.reload()}>
        Reload
      </button>
    </div>
  );
  if (reach === 'answers') {
    return (
      <div className="connection-gone" role="alert" data-reason="not-signed-in">
        <p className="connection-gone-text">
          <strong>Not signed in.</strong> Deepdesk runs at {location.host}, but this tab does not have its key: the address{' '}
          <code>deepdesk serve</code> printed carries it, and the address bar drops it once the page opened. Run{' '}
          <code>deepdesk serve --print-url</code> (with the same <code>--data-dir</code>, if you gave one) to print that address again, and open it here.
        </p>
        {actions}
      </div>
    );
  }
  return (
    <div className="connection-gone" role="alert" data-reason="gone">
      <p className="connection-gone-text">
        <strong>This window’s Deepdesk server is gone.</strong> Nothing answers at {location.host}: it stopped, or runs at another address now. If you
        started <code>deepdesk serve</code> again, open the address it printed (<code>Deepdesk is running at http://127.0.0.1:…</code>, or{' '}
        <code>deepdesk serve --print-url</code> prints it); this tab stopped trying.
      </p>
      {actions}
    </div>
  );
}
