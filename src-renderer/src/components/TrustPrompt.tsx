// The folder's own configuration (SPEC §9): until the person trusts it, nothing of it loads.
// The question does not block the window: it lists exactly what would load (each MCP server
// with its command or URL and whether it runs sandboxed, each hook, each skill) and waits.
// The plugins the folder's settings turn on are offered in it too, each on its own confirmation.
// An entry trusted before and changed since says so, with what it was then.
// `Trust folder` sends the digest of the list on screen: if the configuration changed since,
// nothing is trusted and the new list is shown with a note. Trusting answers at once; the
// servers start in the background (Settings › MCP servers shows how they are doing). After
// either answer the keyboard goes to the message box (the prompt's buttons are gone).

import type { TrustStateDto } from '../../../src-main/app/contract';
import { focusMessageBox } from '../lib/focus';
import { useToasts } from '../state/toasts';
import { useApi } from '../state/use-api';
import { useBusy } from '../state/use-busy';
import { useLiveValue } from '../state/use-live-value';
import { FolderPluginOffer } from './FolderPluginOffer';
import { VisibleText } from './VisibleText';

type TrustEntryDto = TrustStateDto['untrusted'][number];

function serversStartingNote(trusted: readonly TrustEntryDto[]): string | null {
  const servers = trusted.filter((entry) => entry.kind === 'mcp').length;
  if (servers === 0) return null;
  return `Folder trusted. ${servers === 1 ? 'Its MCP server is' : `Its ${servers} MCP servers are`} starting; Settings › MCP servers shows how ${servers === 1 ? 'it is' : 'they are'} doing.`;
}

export function TrustPrompt(): React.JSX.Element | null {
  const api = useApi();
  const { push } = useToasts();
  const [state, set] = useLiveValue('trust.get', 'trust.changed');
  const [busy, run] = useBusy();
  if (!state || (state.untrusted.length === 0 && state.plugins.length === 0) || state.dismissed) return null;
  const untrusted = state.untrusted.length > 0;

  const act = async (method: 'trust.grant' | 'trust.dismiss'): Promise<void> => {
    const shown = state.untrusted;
    const next = await run(() => (method === 'trust.grant' ? api.safe('trust.grant', { digest: state.digest }) : api.safe('trust.dismiss', {})));
    if (!next) return;
    set(next);
    const gone = (next.untrusted.length === 0 && next.plugins.length === 0) || next.dismissed;
    if (method === 'trust.grant' && next.untrusted.length === 0) {
      const note = serversStartingNote(shown);
      if (note !== null) push(note, 'info');
    }
    if (gone) focusMessageBox();
  };

  return (
    <section role="group" aria-labelledby="trust-prompt-title" className="trust-prompt">
      <h2 id="trust-prompt-title" className="trust-prompt-title">
        Trust this folder?
      </h2>
      {untrusted ? <p className="muted small">This folder&apos;s own configuration would load the following. Nothing of it runs until you trust it.</p> : null}
      {state.note ? (
        <p className="small" role="status">
          {state.note}
        </p>
      ) : null}
      {untrusted ? (
        <ul className="trust-list">
          {state.untrusted.map((entry) => (
            <li key={entry.key} title={entry.file}>
              <VisibleText text={entry.label} />
              {entry.changedFrom !== undefined ? <ChangedSince entry={entry} before={entry.changedFrom} /> : null}
            </li>
          ))}
        </ul>
      ) : null}
      {state.plugins.length > 0 ? <FolderPluginOffer requests={state.plugins} /> : null}
      <div className="dialog-actions">
        <button type="button" className="btn" disabled={busy} onClick={() => void act('trust.dismiss')}>
          Not now
        </button>
        {untrusted ? (
          <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void act('trust.grant')}>
            Trust folder
          </button>
        ) : null}
      </div>
    </section>
  );
}

/** What changed in an entry trusted before: the line it had then, or that only what it does not show changed. */
function ChangedSince({ entry, before }: { entry: TrustEntryDto; before: string }): React.JSX.Element {
  return (
    <div className="trust-changed small">
      <span className="badge badge-warn">Changed since you trusted it</span>{' '}
      {before === '' ? (
        <span className="muted">what it was then is not known.</span>
      ) : before === entry.label ? (
        <span className="muted">The line above is the same; settings it does not show (such as its environment) changed.</span>
      ) : (
        <span>
          <span className="muted">Was: </span>
          <VisibleText text={before} />
        </span>
      )}
    </div>
  );
}
