// The one place the window opens links outside itself (Markdown links, the terminal's links):
// the first link to each host asks, showing the address it really goes to (the text of a
// model-written link can say anything); a host confirmed once opens without asking again in
// this window. The host (Electron's window-open handler, or the browser) then opens it.

import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { externalLink, type ExternalLink } from '../lib/external-link';

type OpenLink = (href: string) => void;

const OpenLinkContext = createContext<OpenLink | null>(null);

function openOutside(link: ExternalLink): void {
  window.open(link.href, '_blank', 'noopener,noreferrer');
}

export function ExternalLinkProvider({ children }: { children: ReactNode }): React.JSX.Element {
  const confirmed = useRef(new Set<string>());
  const [asking, setAsking] = useState<ExternalLink | null>(null);

  const open = useCallback<OpenLink>((href) => {
    const link = externalLink(href);
    if (link === null) return;
    if (confirmed.current.has(link.key)) openOutside(link);
    else setAsking(link);
  }, []);

  const answer = (yes: boolean): void => {
    if (asking !== null && yes) {
      confirmed.current.add(asking.key);
      openOutside(asking);
    }
    setAsking(null);
  };

  return (
    <OpenLinkContext.Provider value={open}>
      {children}
      {asking !== null ? (
        <ConfirmDialog title="Open this link in your browser?" label="Open link" confirmLabel="Open link" tone="primary" onConfirm={() => answer(true)} onCancel={() => answer(false)}>
          <p className="confirm-message">
            It goes to <strong>{asking.destination}</strong>:
          </p>
          <p className="mono small link-address">{asking.href}</p>
          <p className="muted small">A link’s text can differ from where it goes. Other links to {asking.destination} will open without asking again in this window.</p>
        </ConfirmDialog>
      ) : null}
    </OpenLinkContext.Provider>
  );
}

/** Opens an http(s) or mailto link outside the window, asking first for a new host. */
export function useOpenExternalLink(): OpenLink {
  const open = useContext(OpenLinkContext);
  // Outside the provider (a test rendering one component) nothing opens without asking.
  return useMemo(() => open ?? (() => undefined), [open]);
}
